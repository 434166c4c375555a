import { api } from '$lib/services/trpc';
import { describeError } from '$lib/utils/errors';

/** The project tabs' order as the user arranges it; every move is saved as `projectOrder`. */
export class TabOrder {
  slugs = $state<string[]>([]);
  error = $state<string | undefined>();
  saving = $state(false);
  /** The last move in words, for a live region: screen-reader users hear where the tab went. */
  announcement = $state('');

  constructor(initial: string[]) {
    this.slugs = [...initial];
  }

  /** Moves a tab to an index of the new order (clamped), then saves; a failed save puts the old order back. */
  async move(slug: string, to: number, nameOf: (slug: string) => string = (s) => s): Promise<void> {
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
      this.announcement = `${nameOf(slug)} moved to position ${target + 1} of ${next.length}.`;
    } catch (error) {
      this.slugs = previous;
      this.error = `The new order was not saved: ${describeError(error).message}`;
    } finally {
      this.saving = false;
    }
  }

  /** Drops a tab into the gap before `gap` (0…length, counted in the current order). */
  async drop(slug: string, gap: number, nameOf?: (slug: string) => string): Promise<void> {
    const from = this.slugs.indexOf(slug);
    if (from < 0) return;
    await this.move(slug, gap > from ? gap - 1 : gap, nameOf);
  }
}
