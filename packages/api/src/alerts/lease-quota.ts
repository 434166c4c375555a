import { randomUUID } from 'node:crypto';
import type { Store } from '@dash/db';

/** A turn taken: `release` gives it back (when what it was for did not happen after all). */
export interface Turn {
  release(): Promise<void>;
}

/**
 * At most `limit` turns of one key in any window of `windowMs`, for every dashboard process on the database (SQLite,
 * Postgres and MySQL alike): the key has `limit` named leases ("slots": the key itself, then `key#1`, `key#2`…), and a
 * turn holds one for the window. A slot is taken with a new holder each time, so only a free or expired one is: the
 * store's one atomic statement decides, whichever process asks. This process remembers when its own turns end, to skip
 * the slots it knows are held and to say when the next turn is (another process's turn: at most the whole window).
 */
export class LeaseQuota {
  /** Slot name → when this process's turn in it ends. */
  private readonly ends = new Map<string, number>();

  constructor(
    private readonly leases: Store['leases'],
    private readonly now: () => number,
  ) {}

  /** Takes one of `key`'s `limit` turns now; else answers how long until one frees (ms, at most `windowMs`). */
  async take(key: string, limit: number, windowMs: number): Promise<Turn | { waitMs: number }> {
    const now = this.now();
    const at = new Date(now).toISOString();
    let waitMs = windowMs;
    for (let slot = 0; slot < limit; slot++) {
      const name = slot === 0 ? key : `${key}#${slot}`;
      const end = this.ends.get(name);
      if (end !== undefined && end > now && end - now <= windowMs) {
        waitMs = Math.min(waitMs, end - now);
        continue;
      }
      this.ends.delete(name);
      const holder = randomUUID();
      if (await this.leases.acquire(name, holder, windowMs, at)) {
        this.ends.set(name, now + windowMs);
        return {
          release: async () => {
            this.ends.delete(name);
            await this.leases.release(name, holder);
          },
        };
      }
    }
    return { waitMs };
  }
}
