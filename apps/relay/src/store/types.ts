import type { RelayEvent } from '@dash/webhooks';

export interface Admission {
  /** False when the caller is over its rate limit; `retryAfterMs` says for how long. */
  allowed: boolean;
  retryAfterMs: number;
  /** The delivery id was already stored within the replay window. */
  duplicate: boolean;
}

export interface PollPage {
  /** Oldest first. */
  events: RelayEvent[];
  /** Pass back as `since`: the position of the last event returned, or `since` itself when none was. */
  cursor: number;
}

/**
 * Where the relay keeps events, rate-limit windows and delivery ids. Every method is one atomic step
 * (one round trip on Redis), so several relay processes on one store share limits and replay memory.
 */
export interface RelayStore {
  readonly kind: 'redis' | 'upstash' | 'memory';
  /** Counts a request in a sliding window and, when given a delivery key, says whether it was seen. */
  admit(options: { rateKey: string; limit: number; windowMs: number; deliveryKey?: string }): Promise<Admission>;
  /**
   * Records the delivery id (for `dedupeMs`) and appends the events, atomically: false, and nothing
   * stored, when the id is already there. Each event gets a position after every earlier one.
   */
  commit(options: { deliveryKey: string; dedupeMs: number; eventsKey: string; events: RelayEvent[] }): Promise<boolean>;
  /** Prunes events older than `retentionMs`, then returns up to `limit` events after `since`. */
  poll(options: { eventsKey: string; since: number; limit: number; retentionMs: number }): Promise<PollPage>;
  close(): Promise<void>;
}

/** The store could not be reached or failed; the relay answers 503 and retries on the next request. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The relay's store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}
