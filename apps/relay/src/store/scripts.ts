import type { RelayEvent } from '@dash/webhooks';
import type { IngestOutcome, PollPage, RateCheck, RelayStore, TenantRecord } from './types.ts';
import { StoreUnavailableError } from './types.ts';

/** Runs a Lua script by its text (EVALSHA with a fallback to EVAL, as each client does best). */
export type Evaluate = (script: string, keys: string[], args: string[]) => Promise<unknown>;

// Redis's own clock, so relay processes with skewed clocks still agree on windows and positions.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** The sliding window: KEYS[1] the window, ARGV[1] limit, ARGV[2] window ms, ARGV[3] a unique member. */
const RATE = `local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)`;

/** KEYS: rate window. ARGV: limit, window ms, member. Returns {1, 0} or {0, retry ms}. */
export const LIMIT = `${NOW}
${RATE}
return {1, 0}`;

/**
 * KEYS: rate window, delivery id, events, last position. ARGV: limit, window ms, member, dedupe ms,
 * '1' to store (or '0' to only check), then one JSON event per argument.
 * Returns {0, retry ms} rate limited, {2} duplicate, {1} admitted, {3} stored.
 * Positions are milliseconds, bumped past the last one so every event has its own: a poller's cursor
 * then never splits a millisecond, and an event stored later always lands after it.
 */
export const INGEST = `${NOW}
${RATE}
if redis.call('EXISTS', KEYS[2]) == 1 then return {2, 0} end
if ARGV[5] ~= '1' then return {1, 0} end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[4])
if #ARGV > 5 then
  local position = math.max(now, tonumber(redis.call('GET', KEYS[4]) or '0') + 1)
  for i = 6, #ARGV do
    redis.call('ZADD', KEYS[3], position, ARGV[i])
    position = position + 1
  end
  redis.call('SET', KEYS[4], position - 1)
end
return {3, 0}`;

/** KEYS: events. ARGV: since, limit, retention ms. Returns member, score, member, score… */
export const POLL = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[3])))
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))`;

const lastPositionKey = (eventsKey: string) => `${eventsKey}:last`;
const TENANTS = 'relay:tenants';

const TENANT_CREATE = `return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])`;
const TENANT_GET = `return redis.call('HGET', KEYS[1], ARGV[1])`;
const TENANT_LIST = `return redis.call('HVALS', KEYS[1])`;
const TENANT_REPLACE = `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;
const TENANT_REMOVE = `if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3])
return 1`;

const tenantOf = (reply: unknown) => (typeof reply === 'string' ? (JSON.parse(reply) as TenantRecord) : undefined);

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

/** The Redis and Upstash stores: the same scripts, run through each client's `evaluate`. */
export function scriptStore(kind: 'redis' | 'upstash', evaluate: Evaluate, close: () => Promise<void>): RelayStore {
  return {
    kind,
    limit: ({ rateKey, limit, windowMs }) =>
      guarded(async (): Promise<RateCheck> => {
        const [allowed = 0, retryAfterMs = 0] = numbers(await evaluate(LIMIT, [rateKey], [String(limit), String(windowMs), crypto.randomUUID()]));
        return { allowed: allowed === 1, retryAfterMs: Math.max(0, retryAfterMs) };
      }),

    ingest: ({ rateKey, limit, windowMs, deliveryKey, dedupeMs, eventsKey, events }) =>
      guarded(async (): Promise<IngestOutcome> => {
        const [code = 0, retryAfterMs = 0] = numbers(
          await evaluate(
            INGEST,
            [rateKey, deliveryKey, eventsKey, lastPositionKey(eventsKey)],
            [String(limit), String(windowMs), crypto.randomUUID(), String(dedupeMs), events ? '1' : '0', ...(events ?? []).map((e) => JSON.stringify(e))],
          ),
        );
        if (code === 0) return { outcome: 'rate_limited', retryAfterMs: Math.max(0, retryAfterMs) };
        return { outcome: code === 2 ? 'duplicate' : code === 3 ? 'stored' : 'admitted' };
      }),

    tenants: {
      create: (record) => guarded(async () => Number(await evaluate(TENANT_CREATE, [TENANTS], [record.id, JSON.stringify(record)])) === 1),
      get: (id) => guarded(async () => tenantOf(await evaluate(TENANT_GET, [TENANTS], [id]))),
      list: () =>
        guarded(async () => {
          const reply = await evaluate(TENANT_LIST, [TENANTS], []);
          return (Array.isArray(reply) ? reply : []).flatMap((value) => tenantOf(value) ?? []);
        }),
      replace: (record) => guarded(async () => Number(await evaluate(TENANT_REPLACE, [TENANTS], [record.id, JSON.stringify(record)])) === 1),
      remove: (id, eventsKey) =>
        guarded(async () => Number(await evaluate(TENANT_REMOVE, [TENANTS, eventsKey, lastPositionKey(eventsKey)], [id])) === 1),
    },

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

    close,
  };
}
