import type { Clock } from './clock.ts';

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
    take: inOrder(waitForTurn),
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, clock.now() + ms);
    },
    refund(turn) {
      const index = sent.lastIndexOf(turn);
      if (index >= 0) sent.splice(index, 1);
    },
  };
}

/** `take` serving this process's callers in the order they asked, whether each was served or gave up. */
function inOrder(waitForTurn: (signal: AbortSignal | undefined, maxWaitMs: number) => Promise<Turn>): RateLimiter['take'] {
  let queue: Promise<unknown> = Promise.resolve();
  return (signal, maxWaitMs = MAX_LIMITER_WAIT_MS) => {
    const turn = queue.then(() => waitForTurn(signal, maxWaitMs));
    queue = turn.catch(() => undefined);
    return turn;
  };
}

/**
 * A window kept outside this process (a database, Redis), so that every process using it shares one limit: `take`
 * counts a call now when there is room, or says how long until there could be.
 */
export interface SharedWindow {
  take(now: number): Promise<{ turn: number } | { waitMs: number }>;
  /** No call until `until` (ms UTC), for every process. */
  pause(until: number): Promise<void>;
  refund(turn: number): Promise<void>;
}

/**
 * The sliding window of `slidingWindowLimiter` held in a `SharedWindow`: several dashboard processes on one account
 * together stay within its limit. This process's callers still queue in the order they asked; a 429 pauses this
 * process at once and the others through the window. The window's store failing fails the call (nothing is sent
 * unless the shared count allowed it).
 */
export function sharedWindowLimiter(window: SharedWindow, clock: Clock): RateLimiter {
  let pausedUntil = 0;
  const told = (promise: Promise<void>) => void promise.catch(() => undefined);

  async function waitForTurn(signal: AbortSignal | undefined, maxWaitMs: number): Promise<Turn> {
    for (;;) {
      signal?.throwIfAborted();
      const now = clock.now();
      const answer = pausedUntil > now ? { waitMs: pausedUntil - now } : await window.take(now);
      if ('turn' in answer) return answer.turn;
      if (answer.waitMs > maxWaitMs) throw new LimiterBusyError(answer.waitMs);
      await clock.sleep(answer.waitMs, signal);
    }
  }

  return {
    take: inOrder(waitForTurn),
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, clock.now() + ms);
      told(window.pause(pausedUntil));
    },
    refund(turn) {
      told(window.refund(turn));
    },
  };
}
