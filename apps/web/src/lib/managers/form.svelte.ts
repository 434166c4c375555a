import type { SubmitFunction } from '@sveltejs/kit';
import { describeError } from '$lib/utils/errors';

/**
 * The state of one form: busy while it submits, the server's error (message and per-field), and an
 * announced success message. Every form in the app goes through this.
 */
export class FormState {
  busy = $state(false);
  error = $state<string | undefined>();
  fields = $state<Record<string, string>>({});
  success = $state<string | undefined>();

  /** The server's message for a field path such as `values.token`, or for anything inside it (`repos.0`). */
  fieldError(path: string): string | undefined {
    return this.fields[path] ?? Object.entries(this.fields).find(([key]) => key.startsWith(`${path}.`))?.[1];
  }

  /** For `use:enhance` on a form posted to a form action: busy until the page has its answer. */
  enhance({ reset = true } = {}): SubmitFunction {
    return () => {
      this.busy = true;
      return async ({ update }) => {
        await update({ reset });
        this.busy = false;
      };
    };
  }

  async submit(action: () => Promise<string | undefined>): Promise<boolean> {
    this.busy = true;
    this.error = undefined;
    this.fields = {};
    this.success = undefined;
    try {
      this.success = await action();
      return true;
    } catch (error) {
      const described = describeError(error);
      this.error = described.message;
      this.fields = described.fields;
      return false;
    } finally {
      this.busy = false;
    }
  }
}
