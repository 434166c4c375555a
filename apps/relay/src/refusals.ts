import { refusalReasonNames, type RefusalReason } from '@dash/contracts';
import { relayIntegrations, type RelayIntegration } from '@dash/webhooks';
import type { CountIncrement, RelayStore } from './store/types.ts';
import { CountsUnsavedError } from './store/types.ts';

/**
 * The webhooks the relay turned away, counted per scope (the single-tenant relay, or a tenant), integration, reason and
 * UTC hour, never with a body: what tells the person setting a webhook up why nothing arrived (issue 53).
 */

export const HOUR_MS = 3_600_000;

export const REFUSAL_LIMITS = {
  /** How often a process sends the counts it holds to the store. */
  flushEveryMs: 2_000,
  /** How many hours before the current one are kept and read. */
  keptHours: 48,
} as const;

/**
 * A count's hash lives this long after its last write: an hour's counts outlive the 48 hours after it by up to an
 * hour, so every hour a read covers (the current one and the 48 before it) is still there when read.
 */
export const COUNT_TTL_MS = (REFUSAL_LIMITS.keptHours + 1) * HOUR_MS;

/** The start of the UTC hour holding `ms`. */
export const hourOf = (ms: number) => ms - (ms % HOUR_MS);

/** A scope's key for an hour's counts (`keysOf(tenant).refusals`). */
export type RefusalsKey = (hour: number) => string;

/** The hours a read covers, newest first: from the one holding `since` (at most 48 before now's) to now's. */
export function hoursSince(since: number, now: number): number[] {
  const newest = hourOf(now);
  const oldest = Math.max(hourOf(since), newest - REFUSAL_LIMITS.keptHours * HOUR_MS);
  const hours: number[] = [];
  for (let hour = newest; hour >= oldest; hour -= HOUR_MS) hours.push(hour);
  return hours;
}

/** The keys of every hour a scope may still have counts under: what goes with a removed tenant. */
export const keptRefusalKeys = (refusals: RefusalsKey, now: number) => hoursSince(0, now).map(refusals);

export interface RefusalCounter {
  /** Counts one refusal in this process's memory, at once; it reaches the store within `flushEveryMs`. */
  count(refusals: RefusalsKey, integration: RelayIntegration, reason: RefusalReason): void;
  /** Sends every count held to the store in one round trip, after any send under way. Rejects when the store fails (the counts are kept). */
  flush(): Promise<void>;
  /** Stops the timer and sends what is held: on shutdown, before the store closes. */
  close(): Promise<void>;
}

/**
 * Counts in process memory and sends them to the store every `everyMs` while there are any, so a refused webhook
 * never waits on the store for its count. Counts the store did not take are kept and sent with the next ones
 * (counts of hours no longer kept are dropped then).
 */
export function refusalCounter({
  store,
  now = Date.now,
  onError,
  everyMs = REFUSAL_LIMITS.flushEveryMs,
}: {
  store: Pick<RelayStore, 'addCounts'>;
  now?: () => number;
  /** A timed send failed, the first time since one succeeded (a `flush()` the caller awaits rejects instead). */
  onError?: (error: unknown) => void;
  everyMs?: number;
}): RefusalCounter {
  /** By key: its hour and its fields' counts. */
  let held = new Map<string, { hour: number; fields: Map<string, number> }>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sending: Promise<void> = Promise.resolve();
  /** Timed sends have been failing since the last that succeeded: the store is away, said once. */
  let failing = false;

  function hold(key: string, hour: number, field: string, by: number) {
    let hash = held.get(key);
    if (!hash) held.set(key, (hash = { hour, fields: new Map() }));
    hash.fields.set(field, (hash.fields.get(field) ?? 0) + by);
  }

  function schedule() {
    if (timer || held.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      flush().then(
        () => {
          failing = false;
          schedule();
        },
        (error: unknown) => {
          if (!failing) onError?.(error);
          failing = true;
          schedule();
        },
      );
    }, everyMs);
    // A process with nothing else to do may exit: `close()` is what sends the last counts.
    timer.unref?.();
  }

  async function send() {
    if (held.size === 0) return;
    const batch = held;
    held = new Map();
    const oldest = hourOf(now()) - REFUSAL_LIMITS.keptHours * HOUR_MS;
    const increments: CountIncrement[] = [];
    for (const [key, { hour, fields }] of batch) {
      if (hour < oldest) continue;
      for (const [field, by] of fields) increments.push({ key, field, by });
    }
    try {
      await store.addCounts(increments, COUNT_TTL_MS);
    } catch (error) {
      for (const { key, field, by } of error instanceof CountsUnsavedError ? error.unsaved : increments) hold(key, batch.get(key)!.hour, field, by);
      throw error;
    }
  }

  function flush(): Promise<void> {
    const run = sending.then(send);
    sending = run.catch(() => {});
    return run;
  }

  return {
    count(refusals, integration, reason) {
      const hour = hourOf(now());
      hold(refusals(hour), hour, `${integration}:${reason}`, 1);
      schedule();
    },
    flush,
    close() {
      clearTimeout(timer);
      timer = undefined;
      return flush();
    },
  };
}

/** One hour's count of one reason for one integration, as `GET /api/refusals` answers it. */
export interface RefusalHour {
  /** The hour's start, ms (UTC). */
  hour: number;
  integration: RelayIntegration;
  reason: RefusalReason;
  count: number;
}

const integrationNames = new Set<string>(relayIntegrations);
const reasonNames = new Set<string>(refusalReasonNames);

/**
 * A scope's counts of the hours from the one holding `since` to now's (at most the 48 kept before it), newest hour
 * first and, within an hour, by integration and reason. A field this relay does not know (a newer relay's reason,
 * during a rollout) is left out.
 */
export async function readRefusals(store: Pick<RelayStore, 'counts'>, refusals: RefusalsKey, since: number, now: number): Promise<RefusalHour[]> {
  const hours = hoursSince(since, now);
  const hashes = await store.counts(hours.map(refusals));
  return hours.flatMap((hour, i) =>
    Object.entries(hashes[i] ?? {})
      .flatMap(([field, count]) => {
        const [integration = '', reason = ''] = field.split(':');
        if (!integrationNames.has(integration) || !reasonNames.has(reason) || !(count > 0)) return [];
        return [{ hour, integration: integration as RelayIntegration, reason: reason as RefusalReason, count }];
      })
      .sort((a, b) => a.integration.localeCompare(b.integration) || refusalReasonNames.indexOf(a.reason) - refusalReasonNames.indexOf(b.reason)),
  );
}
