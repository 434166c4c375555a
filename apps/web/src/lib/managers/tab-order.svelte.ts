import { api } from '$lib/services/trpc';
import { describeError } from '$lib/utils/errors';

/** The project tabs' order as the user arranges it; every move is saved as `projectOrder`. */
export class TabOrder {
  slugs = $state<string[]>([]);
  error = $state<string | undefined>();
  saving = $state(false);

  constructor(initial: string[]) {
    this.slugs = [...initial];
  }

  /** Moves a tab to another index (clamped) and saves; the previous order comes back if the save fails. */
  async move(slug: string, to: number): Promise<void> {
    const from = this.slugs.indexOf(slug);
    const target = Math.max(0, Math.min(this.slugs.length - 1, to));
    if (from < 0 || from === target) return;
    const previous = this.slugs;
    const next = previous.filter((s) => s !== slug);
    next.splice(target, 0, slug);
    this.slugs = next;
    this.error = undefined;
    this.saving = true;
    try {
      await api.settings.update.mutate({ projectOrder: next });
    } catch (error) {
      this.slugs = previous;
      this.error = `The new order was not saved: ${describeError(error).message}`;
    } finally {
      this.saving = false;
    }
  }
}
