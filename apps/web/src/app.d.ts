// See https://svelte.dev/docs/kit/types#app.d.ts
import type { RequestInfo } from '@dash/api';

declare global {
  namespace App {
    interface Error {
      message: string;
      code?: string;
    }
    interface Locals {
      /** Who the request is (none on the sign-in pages) and where it comes from; set by the handle hook. */
      request: RequestInfo;
    }
  }
}

export {};
