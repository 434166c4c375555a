import type { Clock } from './context.ts';

/** Waits, when needed, so that calls to one upstream stay within its published limit. */
export interface RateLimiter {
  /** Resolves when one more request may be sent now; rejects when the signal aborts first. */
  take(signal?: AbortSignal): Promise<void>;
  /** The upstream said 429: send nothing more until `ms` from now. */
  pauseFor(ms: number): void;
}

export interface RateLimit {
  limit: number;
  windowMs: number;
}

/** No limit of ours; a 429 still pauses it. */
export function unlimited(clock: Clock): RateLimiter {
  return slidingWindowLimiter({ limit: Number.POSITIVE_INFINITY, windowMs: 1 }, clock);
}

/**
 * A sliding window: at most `limit` requests in any `windowMs`. Callers are served in the order they
 * asked, so one busy route cannot starve another.
 */
export function slidingWindowLimiter({ limit, windowMs }: RateLimit, clock: Clock): RateLimiter {
  const sent: number[] = [];
  let pausedUntil = 0;
  let queue: Promise<void> = Promise.resolve();

  async function waitForTurn(signal?: AbortSignal) {
    for (;;) {
      signal?.throwIfAborted();
      const now = clock.now();
      while (sent.length > 0 && (sent[0] ?? 0) <= now - windowMs) sent.shift();
      const windowFreesAt = sent.length < limit ? now : (sent[0] ?? now) + windowMs;
      const at = Math.max(windowFreesAt, pausedUntil);
      if (at <= now) {
        sent.push(now);
        return;
      }
      await clock.sleep(at - now, signal);
    }
  }

  return {
    take(signal) {
      const turn = queue.then(() => waitForTurn(signal));
      // The next caller waits for this one's turn, whether it was served or gave up.
      queue = turn.catch(() => undefined);
      return turn;
    },
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, clock.now() + ms);
    },
  };
}
