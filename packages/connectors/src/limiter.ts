import type { Clock } from './context.ts';

/** The wait for a turn would be longer than the caller is willing to hold a request open. */
export class LimiterBusyError extends Error {
  constructor(readonly waitMs: number) {
    super(`the next free slot is in ${Math.ceil(waitMs / 1000)} s`);
    this.name = 'LimiterBusyError';
  }
}

/** A request waits at most this long for its turn; longer, and it fails now as rate limited. */
export const MAX_LIMITER_WAIT_MS = 15_000;

/** Waits, when needed, so that calls to one upstream stay within its published limit. */
export interface RateLimiter {
  /**
   * Resolves when one more request may be sent now; rejects when the signal aborts first, or with
   * LimiterBusyError when the turn is further away than `maxWaitMs` (a user is waiting on the answer).
   */
  take(signal?: AbortSignal, maxWaitMs?: number): Promise<Turn>;
  /** The upstream said 429: send nothing more until `ms` from now. */
  pauseFor(ms: number): void;
  /** The upstream did not count the request that took `turn` (it says so): its place in the window is free again. */
  refund(turn: Turn): void;
}

/** A request's place in the window, as `take` gave it. */
export type Turn = number;

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
  let queue: Promise<unknown> = Promise.resolve();

  async function waitForTurn(signal: AbortSignal | undefined, maxWaitMs: number): Promise<Turn> {
    for (;;) {
      signal?.throwIfAborted();
      const now = clock.now();
      while (sent.length > 0 && (sent[0] ?? 0) <= now - windowMs) sent.shift();
      const windowFreesAt = sent.length < limit ? now : (sent[0] ?? now) + windowMs;
      const at = Math.max(windowFreesAt, pausedUntil);
      if (at <= now) {
        sent.push(now);
        return now;
      }
      if (at - now > maxWaitMs) throw new LimiterBusyError(at - now);
      await clock.sleep(at - now, signal);
    }
  }

  return {
    take(signal, maxWaitMs = MAX_LIMITER_WAIT_MS) {
      const turn = queue.then(() => waitForTurn(signal, maxWaitMs));
      // The next caller waits for this one's turn, whether it was served or gave up.
      queue = turn.catch(() => undefined);
      return turn;
    },
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, clock.now() + ms);
    },
    refund(turn) {
      const index = sent.lastIndexOf(turn);
      if (index >= 0) sent.splice(index, 1);
    },
  };
}
