import type { RelayEvent } from '@dash/webhooks';

export interface RateCheck {
  /** False when the caller is over its rate limit; `retryAfterMs` says for how long. */
  allowed: boolean;
  retryAfterMs: number;
  /** When allowed: what `refund` takes to give this admission back. */
  ticket?: string;
}

export type IngestOutcome =
  | { outcome: 'rate_limited'; retryAfterMs: number }
  /** The delivery id was stored within the replay window. */
  | { outcome: 'duplicate' }
  /** Within the limits and new, but nothing to store (the delivery failed a check of its own). */
  | { outcome: 'admitted' }
  | { outcome: 'stored' };

export interface PollPage {
  /** Oldest first. */
  events: RelayEvent[];
  /** Pass back as `since`: the position of the last event returned, or `since` itself when none was. */
  cursor: number;
}

/** A managed relay's tenant. Webhook secrets are kept as given (they key the HMACs); the poll secret only as its SHA-256. */
export interface TenantRecord {
  id: string;
  label: string;
  createdAt: string;
  pollSecretHash: string;
  secrets: Partial<Record<string, string[]>>;
}

/** One count to add to one field of a hash of counts (a scope's refusals in one hour: `<integration>:<reason>`). */
export interface CountIncrement {
  key: string;
  field: string;
  by: number;
}

/** Why a wait for stored events ended. */
export type WakeReason = 'stored' | 'timeout' | 'aborted' | 'ended';

/** One long poll's interest in one events key, from `EventNotices.watch` until `stop()`. */
export interface EventWatch {
  /**
   * Settles with 'stored' when events have been stored under the key since the watch began or since the
   * last 'stored' (at once if they already have), 'timeout' after `ms`, 'aborted' when `signal` aborts,
   * or 'ended' once the notices have ended (the store is closing). A notice carries no events: read them.
   */
  next(ms: number, signal?: AbortSignal): Promise<WakeReason>;
  /** The notices have ended (the store is closing): a read that fails now is the close, not an outage. */
  readonly ended: boolean;
  /** Stops watching; the last watch of a key in this process unsubscribes from it. Safe to call twice. */
  stop(): void;
}

/** Tells a process's long polls that events were stored under a key, by this process or another on the store. */
export interface EventNotices {
  /**
   * Starts watching `eventsKey`. Resolves once notices for it are live, so every event stored after
   * that is noticed: read the store only after it resolves, or an event stored in between is missed.
   */
  watch(eventsKey: string): Promise<EventWatch>;
  /** The watches open in this process, for one key or all: what a test checks for leaks. */
  watching(eventsKey?: string): number;
  /** Ends every watch at once, and every later one as it starts: for shutdown. The store's `close()` does it too. */
  end(): void;
}

/**
 * Where the relay keeps events, rate-limit windows and delivery ids. Every method is one atomic step
 * (one script on Redis; ingests that arrive together share one, each judged as if alone), so several
 * relay processes on one store share limits and replay memory.
 */
export interface RelayStore {
  readonly kind: 'redis' | 'upstash' | 'memory';
  tenants: {
    /** False when the id is taken. */
    create(record: TenantRecord): Promise<boolean>;
    get(id: string): Promise<TenantRecord | undefined>;
    list(): Promise<TenantRecord[]>;
    /** False when there is no such tenant. */
    replace(record: TenantRecord): Promise<boolean>;
    /**
     * Removes the tenant, its buffered events and the hashes of counts named (its refusal counts, so a tenant made
     * again under the id starts from none); its short-lived rate and replay keys expire by themselves.
     */
    remove(id: string, data: { eventsKey: string; countKeys: readonly string[] }): Promise<boolean>;
  };
  /** Counts a request in a sliding window. */
  limit(options: { rateKey: string; limit: number; windowMs: number }): Promise<RateCheck>;
  /** Gives an admission back (a long poll that an event woke): its place in the window is free again. */
  refund(options: { rateKey: string; ticket: string }): Promise<void>;
  /**
   * A webhook's whole visit to the store, atomically and in one round trip: counts it in the rate
   * window, checks its delivery id, and, when `events` are given (the delivery passed every check of its
   * own), records the id for `dedupeMs` and appends the events after every earlier one. The id is
   * recorded only with the events, so a delivery that failed never burns it.
   */
  ingest(options: {
    rateKey: string;
    limit: number;
    windowMs: number;
    deliveryKey: string;
    dedupeMs: number;
    eventsKey: string;
    events: RelayEvent[] | undefined;
  }): Promise<IngestOutcome>;
  /**
   * Adds each increment to its field of its hash and keeps the hash for `ttlMs` from now, in one round trip (one
   * call per slot, all at once, on a cluster). Counts from several relay processes add up. Rejects with a
   * `CountsUnsavedError` that names the increments not added, for the caller to try again.
   */
  addCounts(increments: readonly CountIncrement[], ttlMs: number): Promise<void>;
  /** Each hash's fields and counts, in the order of `keys`, in one round trip; an empty record for a hash that is gone. */
  counts(keys: readonly string[]): Promise<Record<string, number>[]>;
  /** Prunes events older than `retentionMs`, then returns up to `limit` events after `since`. */
  poll(options: { eventsKey: string; since: number; limit: number; retentionMs: number }): Promise<PollPage>;
  /**
   * What wakes long polls: on Redis, pub/sub (one subscriber connection per process, one channel per
   * events key while a poll of this process waits on it); in memory, within the process. Undefined on
   * Upstash's REST API, which cannot push a message: long polls there answer at once.
   */
  readonly notices: EventNotices | undefined;
  /** Ends held long polls (see `EventNotices.end`), then lets go of the store's connections. */
  close(): Promise<void>;
}

/** The store could not be reached or failed; the relay answers 503 and retries on the next request. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The relay's store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** `addCounts` failed for `unsaved` (all of them, or on a cluster those of the slots that failed); the rest were added. */
export class CountsUnsavedError extends StoreUnavailableError {
  readonly unsaved: readonly CountIncrement[];
  constructor(cause: unknown, unsaved: readonly CountIncrement[]) {
    super(cause);
    this.name = 'CountsUnsavedError';
    this.unsaved = unsaved;
  }
}
