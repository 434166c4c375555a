import type { RelayEvent } from '@dash/webhooks';
import DataLoader from 'dataloader';
import type { CountIncrement, EventNotices, IngestOutcome, PollPage, RateCheck, RelayStore, TenantRecord } from './types.ts';
import { slotOf } from './slots.ts';
import { CountsUnsavedError, StoreUnavailableError } from './types.ts';

/** Runs a Lua script by its text (EVALSHA with a fallback to EVAL, as each client does best). */
export type Evaluate = (script: string, keys: string[], args: string[]) => Promise<unknown>;

// Redis's own clock, so relay processes with skewed clocks still agree on windows and positions.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * The sliding window as a Lua function over a list of the times of the last `limit` admitted requests,
 * newest first. A request is admitted when fewer than `limit` of them fall within the last `window` ms,
 * that is when the `limit`-th newest is older than that; it is then recorded and the list cut back to
 * `limit`. Returns nil when admitted, or the ms until the oldest of them leaves the window. (Exact, like a
 * sorted set of every hit, with O(1) list commands and no unique member to make up.)
 */
const ADMIT = `local function admit(key, limit, window)
  if redis.call('LLEN', key) >= limit then
    local oldest = tonumber(redis.call('LINDEX', key, limit - 1))
    if now - oldest < window then return oldest + window - now end
    redis.call('LTRIM', key, 0, limit - 2)
  end
  redis.call('LPUSH', key, now)
  redis.call('PEXPIRE', key, window)
  return nil
end`;

/** KEYS: rate window. ARGV: limit, window ms. Returns {1, the admission's time} or {0, retry ms}. */
export const LIMIT = `${NOW}
${ADMIT}
local wait = admit(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]))
if wait then return {0, wait} end
return {1, now}`;

/** KEYS: rate window. ARGV: an admission's time (LIMIT's answer). Takes that admission out of the window. */
export const REFUND = `redis.call('LREM', KEYS[1], 1, ARGV[1])
return 1`;

/** The channel announcing that events were stored under a key: the key's name with this after it. */
const STORED = ':stored';
export const storedChannel = (eventsKey: string) => `${eventsKey}${STORED}`;
export const eventsKeyOf = (channel: string) => channel.slice(0, -STORED.length);

/**
 * Any number of webhooks, each judged in turn as if it ran alone. Per webhook, KEYS: rate window,
 * delivery id, events, last position; ARGV: limit, window ms, dedupe ms, event count (-1 to only check),
 * then that many JSON events. Returns {code, retry ms} per webhook: 0 rate limited,
 * 2 duplicate, 1 admitted, 3 stored.
 * Positions are milliseconds, bumped past the last one so every event has its own: a poller's cursor
 * then never splits a millisecond, and an event stored later always lands after it. Each events key's
 * last position is read once and its new events are added in one ZADD, however many webhooks share it.
 * Delivery ids are recorded last, after every event is in: should a write fail midway, no id has been
 * spent on events that were not stored, so the provider's retry is stored rather than refused.
 * Then one PUBLISH per events key that got events (its new last position; long polls read the store
 * themselves), inside this same call: no round trip of its own, and next to nothing when no relay
 * process subscribes to the key, which is whenever no long poll waits on it. On a Redis Cluster it is
 * SPUBLISH, the sharded kind: the message goes to the channel's own shard only (the channel is the
 * events key's name plus a suffix, so it shares the key's hash tag and slot), not to every node.
 */
const ingestScript = (publish: 'PUBLISH' | 'SPUBLISH') => `${NOW}
${ADMIT}
local replies, last, added, order, ids = {}, {}, {}, {}, {}
local arg = 1
for k = 1, #KEYS, 4 do
  local count = tonumber(ARGV[arg + 3])
  local first = arg + 4
  local delivery = KEYS[k + 1]
  local wait = admit(KEYS[k], tonumber(ARGV[arg]), tonumber(ARGV[arg + 1]))
  local code = 3
  if wait then
    code = 0
  elseif ids[delivery] or redis.call('EXISTS', delivery) == 1 then
    code = 2
  elseif count < 0 then
    code = 1
  else
    ids[delivery] = ARGV[arg + 2]
    if count > 0 then
      local events = KEYS[k + 2]
      if not last[events] then
        last[events] = tonumber(redis.call('GET', KEYS[k + 3]) or '0')
        added[events] = {}
        order[#order + 1] = {events, KEYS[k + 3]}
      end
      local position = math.max(now, last[events] + 1)
      local members = added[events]
      for i = first, first + count - 1 do
        members[#members + 1] = position
        members[#members + 1] = ARGV[i]
        position = position + 1
      end
      last[events] = position - 1
    end
  end
  replies[#replies + 1] = code
  replies[#replies + 1] = wait or 0
  arg = first + math.max(count, 0)
end
for _, keys in ipairs(order) do
  local members = added[keys[1]]
  for i = 1, #members, 400 do
    redis.call('ZADD', keys[1], unpack(members, i, math.min(i + 399, #members)))
  end
  redis.call('SET', keys[2], last[keys[1]])
end
for delivery, ttl in pairs(ids) do
  redis.call('SET', delivery, '1', 'PX', ttl)
end
for _, keys in ipairs(order) do
  redis.call('${publish}', keys[1] .. '${STORED}', last[keys[1]])
end
return replies`;
export const INGEST = ingestScript('PUBLISH');
export const INGEST_SHARDED = ingestScript('SPUBLISH');

/** KEYS: events. ARGV: since, limit, retention ms. Returns member, score, member, score… */
export const POLL = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[3])))
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))`;

/**
 * KEYS: a hash of counts per increment (one key may come several times). ARGV: ttl ms, then a field and an amount
 * per key. Adds each (HINCRBY, so every relay process's counts add up) and keeps each hash ttl ms from now.
 */
export const ADD_COUNTS = `local ttl = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('HINCRBY', KEYS[i], ARGV[i * 2], ARGV[i * 2 + 1])
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return #KEYS`;

/** KEYS: hashes of counts. Returns each one's fields and counts (field, count, field, count…), in order. */
export const READ_COUNTS = `local hashes = {}
for i = 1, #KEYS do hashes[i] = redis.call('HGETALL', KEYS[i]) end
return hashes`;

const lastPositionKey = (eventsKey: string) => `${eventsKey}:last`;
const TENANTS = 'relay:tenants';

const TENANT_CREATE = `return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])`;
const TENANT_GET = `return redis.call('HGET', KEYS[1], ARGV[1])`;
const TENANT_LIST = `return redis.call('HVALS', KEYS[1])`;
const TENANT_REPLACE = `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;
const TENANT_REMOVE = `return redis.call('HDEL', KEYS[1], ARGV[1])`;
/** KEYS: a tenant's events, last position and hashes of counts; in the tenant's slot, so a call of its own on a cluster. */
const TENANT_DATA_REMOVE = `return redis.call('DEL', unpack(KEYS))`;

const tenantOf = (reply: unknown) => (typeof reply === 'string' ? (JSON.parse(reply) as TenantRecord) : undefined);

type Delivery = Parameters<RelayStore['ingest']>[0];

/** Enough to amortise the call; few enough that one script never holds Redis for long. */
const MAX_BATCH = 64;

async function ingestAll(evaluate: Evaluate, script: string, batch: readonly Delivery[]): Promise<IngestOutcome[]> {
  const keys: string[] = [];
  const args: string[] = [];
  for (const { rateKey, limit, windowMs, deliveryKey, dedupeMs, eventsKey, events } of batch) {
    keys.push(rateKey, deliveryKey, eventsKey, lastPositionKey(eventsKey));
    args.push(String(limit), String(windowMs), String(dedupeMs), String(events ? events.length : -1));
    for (const event of events ?? []) args.push(JSON.stringify(event));
  }
  const replies = numbers(await evaluate(script, keys, args));
  if (replies.length !== batch.length * 2) throw new Error(`Expected ${batch.length * 2} numbers from the ingest script, got ${replies.length}`);
  return batch.map((_, i): IngestOutcome => {
    const code = replies[i * 2];
    if (code === 0) return { outcome: 'rate_limited', retryAfterMs: Math.max(0, replies[i * 2 + 1] ?? 0) };
    return { outcome: code === 2 ? 'duplicate' : code === 3 ? 'stored' : 'admitted' };
  });
}

/**
 * On a Redis Cluster one script may only touch keys of one slot: the batch is split by slot (a tenant's
 * keys share one, through their hash tag), and each part is one call, all sent at once. A part that
 * fails answers its own webhooks with 503 and no others.
 */
async function ingestBySlot(evaluate: Evaluate, script: string, batch: readonly Delivery[]): Promise<(IngestOutcome | Error)[]> {
  const parts = new Map<number, number[]>();
  const answers: (IngestOutcome | Error)[] = [];
  batch.forEach((delivery, i) => {
    const slot = slotOf(delivery.rateKey);
    const keys = [delivery.deliveryKey, delivery.eventsKey, lastPositionKey(delivery.eventsKey)];
    if (keys.some((key) => slotOf(key) !== slot)) {
      answers[i] = new StoreUnavailableError(new Error(`The keys of one webhook lie in more than one cluster slot: ${[delivery.rateKey, ...keys].join(', ')}`));
      return;
    }
    parts.set(slot, [...(parts.get(slot) ?? []), i]);
  });
  await Promise.all(
    [...parts.values()].map(async (indexes) => {
      try {
        const outcomes = await ingestAll(evaluate, script, indexes.map((i) => batch[i]!));
        indexes.forEach((i, j) => (answers[i] = outcomes[j]!));
      } catch (error) {
        for (const i of indexes) answers[i] = new StoreUnavailableError(error);
      }
    }),
  );
  return answers;
}

/** Indexes of `keys` by their cluster slot (one part for all of them off a cluster). */
function bySlot(keys: readonly string[], cluster: boolean): number[][] {
  if (!cluster) return [keys.map((_, i) => i)];
  const parts = new Map<number, number[]>();
  keys.forEach((key, i) => {
    const slot = slotOf(key);
    parts.set(slot, [...(parts.get(slot) ?? []), i]);
  });
  return [...parts.values()];
}

/** ADD_COUNTS, one call per slot, all at once; the increments of the calls that failed are named in the error. */
async function addCounts(evaluate: Evaluate, increments: readonly CountIncrement[], ttlMs: number, cluster: boolean): Promise<void> {
  if (increments.length === 0) return;
  let failure: unknown;
  const unsaved: CountIncrement[] = [];
  await Promise.all(
    bySlot(
      increments.map((i) => i.key),
      cluster,
    ).map(async (indexes) => {
      const part = indexes.map((i) => increments[i]!);
      try {
        await evaluate(ADD_COUNTS, part.map((i) => i.key), [String(ttlMs), ...part.flatMap((i) => [i.field, String(i.by)])]);
      } catch (error) {
        failure ??= error;
        unsaved.push(...part);
      }
    }),
  );
  if (unsaved.length > 0) throw new CountsUnsavedError(failure, unsaved);
}

/** READ_COUNTS, one call per slot, all at once: each hash's counts, in the order of `keys`. */
async function readCounts(evaluate: Evaluate, keys: readonly string[], cluster: boolean): Promise<Record<string, number>[]> {
  const hashes: Record<string, number>[] = keys.map(() => ({}));
  if (keys.length === 0) return hashes;
  await Promise.all(
    bySlot(keys, cluster).map(async (indexes) => {
      const reply = await evaluate(READ_COUNTS, indexes.map((i) => keys[i]!), []);
      if (!Array.isArray(reply) || reply.length !== indexes.length) throw new Error('Unexpected counts reply');
      indexes.forEach((index, j) => {
        const pairs: unknown = reply[j];
        if (!Array.isArray(pairs)) throw new Error('Unexpected counts reply');
        for (let p = 0; p + 1 < pairs.length; p += 2) hashes[index]![String(pairs[p])] = Number(pairs[p + 1]);
      });
    }),
  );
  return hashes;
}

async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new StoreUnavailableError(error);
  }
}

function numbers(reply: unknown): number[] {
  if (!Array.isArray(reply)) throw new Error(`Unexpected script reply: ${JSON.stringify(reply)}`);
  return reply.map((value) => Number(value));
}

/**
 * The Redis and Upstash stores: the same scripts, run through each client's `evaluate`. `notices` are
 * the store's (Redis pub/sub) or undefined (Upstash); `close` ends them first. With `cluster`, every
 * call touches the keys of one slot only (group commits are split by slot) and the ingest script
 * announces stored events with sharded pub/sub (SPUBLISH), unless `sharded` is false (a cluster
 * before Redis 7: PUBLISH, which the cluster bus carries to every node).
 */
export function scriptStore(
  kind: 'redis' | 'upstash',
  evaluate: Evaluate,
  close: () => Promise<void>,
  notices?: EventNotices,
  options: { cluster?: boolean; sharded?: boolean } = {},
): RelayStore {
  // Group commit: the webhooks that arrive in one turn of the event loop share one script call (one
  // per slot on a cluster), so under load the store's per-command cost (and Redis's per-script cost)
  // is paid once per batch.
  const commit = options.cluster
    ? (batch: readonly Delivery[]) => ingestBySlot(evaluate, options.sharded === false ? INGEST : INGEST_SHARDED, batch)
    : (batch: readonly Delivery[]) => guarded(() => ingestAll(evaluate, INGEST, batch));
  const deliveries = new DataLoader<Delivery, IngestOutcome>(commit, {
    cache: false,
    maxBatchSize: MAX_BATCH,
    batchScheduleFn: (run) => setImmediate(run),
  });

  return {
    kind,
    limit: ({ rateKey, limit, windowMs }) =>
      guarded(async (): Promise<RateCheck> => {
        const [allowed = 0, detail = 0] = numbers(await evaluate(LIMIT, [rateKey], [String(limit), String(windowMs)]));
        return allowed === 1 ? { allowed: true, retryAfterMs: 0, ticket: String(detail) } : { allowed: false, retryAfterMs: Math.max(0, detail) };
      }),

    refund: ({ rateKey, ticket }) =>
      guarded(async () => {
        await evaluate(REFUND, [rateKey], [ticket]);
      }),

    ingest: (delivery) => deliveries.load(delivery),

    tenants: {
      create: (record) => guarded(async () => Number(await evaluate(TENANT_CREATE, [TENANTS], [record.id, JSON.stringify(record)])) === 1),
      get: (id) => guarded(async () => tenantOf(await evaluate(TENANT_GET, [TENANTS], [id]))),
      list: () =>
        guarded(async () => {
          const reply = await evaluate(TENANT_LIST, [TENANTS], []);
          return (Array.isArray(reply) ? reply : []).flatMap((value) => tenantOf(value) ?? []);
        }),
      replace: (record) => guarded(async () => Number(await evaluate(TENANT_REPLACE, [TENANTS], [record.id, JSON.stringify(record)])) === 1),
      // Two calls, as the registry and the tenant's data lie in different slots on a cluster. The data
      // goes first: should the second call fail, the tenant is still there (503) and removing it again works.
      remove: (id, { eventsKey, countKeys }) =>
        guarded(async () => {
          await evaluate(TENANT_DATA_REMOVE, [eventsKey, lastPositionKey(eventsKey), ...countKeys], []);
          return Number(await evaluate(TENANT_REMOVE, [TENANTS], [id])) === 1;
        }),
    },

    addCounts: (increments, ttlMs) => addCounts(evaluate, increments, ttlMs, options.cluster === true),

    counts: (keys) => guarded(() => readCounts(evaluate, keys, options.cluster === true)),

    poll: ({ eventsKey, since, limit, retentionMs }) =>
      guarded(async (): Promise<PollPage> => {
        const reply = await evaluate(POLL, [eventsKey], [String(since), String(limit), String(retentionMs)]);
        if (!Array.isArray(reply)) throw new Error('Unexpected poll reply');
        const events: RelayEvent[] = [];
        let cursor = since;
        for (let i = 0; i + 1 < reply.length; i += 2) {
          events.push(JSON.parse(String(reply[i])) as RelayEvent);
          cursor = Number(reply[i + 1]);
        }
        return { events, cursor };
      }),

    // A SUBSCRIBE that fails is the store being unavailable, like any other command (503).
    notices: notices && { ...notices, watch: (eventsKey) => guarded(() => notices.watch(eventsKey)) },

    close: () => {
      notices?.end();
      return close();
    },
  };
}
