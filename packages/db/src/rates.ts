import type { RateWindows } from './store.ts';

/** What one engine does for the shared rate windows, each inside the transaction `take` runs in. */
export interface RateRows {
  /** Locks `key`'s row until the transaction ends (making it when there is none); its pause, ms UTC (0: none). */
  lock(key: string): Promise<number>;
  /** Forgets the calls at or before `before`. */
  prune(key: string, before: number): Promise<void>;
  /** How many calls remain in the window, and the oldest's instant. */
  window(key: string): Promise<{ count: number; oldest: number | null }>;
  /** Counts a call at `at`; its id. */
  record(key: string, at: number): Promise<number>;
}

/**
 * The sliding windows of `Store.rateWindows` over an engine's rows. Every take locks the account's row first, so the
 * processes asking at once are served one after the other and together never exceed the limit.
 */
export function rateWindows(engine: {
  transaction<T>(work: (rows: RateRows) => Promise<T>): Promise<T>;
  pause(key: string, until: number): Promise<void>;
  refund(key: string, turn: number): Promise<void>;
}): RateWindows {
  return {
    take: (key, limit, windowMs, now) =>
      engine.transaction(async (rows) => {
        const pausedUntil = await rows.lock(key);
        if (pausedUntil > now) return { waitMs: pausedUntil - now };
        await rows.prune(key, now - windowMs);
        const { count, oldest } = await rows.window(key);
        if (count >= limit) return { waitMs: Math.max(1, (oldest ?? now) + windowMs - now) };
        return { turn: await rows.record(key, now) };
      }),
    pause: (key, until) => engine.pause(key, until),
    refund: (key, turn) => engine.refund(key, turn),
  };
}
