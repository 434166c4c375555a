import type { SandboxReply } from '../service.ts';

/** RevenueCat's error envelope: its type, the parameter at fault, and where its docs explain it. */

export function error(status: number, type: string, message: string, param?: string): SandboxReply {
  return {
    status,
    body: {
      object: 'error',
      type,
      ...(param ? { param } : {}),
      message,
      retryable: false,
      doc_url: `https://errors.rev.cat/${type.replace(/_/g, '-')}`,
    },
  };
}

export const parameterError = (param: string, message: string) => error(400, 'parameter_error', message, param);
