import type { RelayEvent } from '@dash/webhooks';
import type { Admission, PollPage, RelayStore } from './types.ts';
import { StoreUnavailableError } from './types.ts';

/** Runs a Lua script by its text (EVALSHA with a fallback to EVAL, as each client does best). */
export type Evaluate = (script: string, keys: string[], args: string[]) => Promise<unknown>;

// Redis's own clock, so relay processes with skewed clocks still agree on windows and positions.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: rate window, delivery id (or ''). ARGV: limit, window ms, unique member. */
export const ADMIT = `${NOW}
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window - now, 0}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
local seen = 0
if KEYS[2] ~= '' then seen = redis.call('EXISTS', KEYS[2]) end
return {1, 0, seen}`;

/**
 * KEYS: delivery id, events, last position. ARGV: dedupe ms, then one JSON event per argument.
 * Positions are milliseconds, bumped past the last one so every event has its own: a poller's cursor
 * then never splits a millisecond, and an event committed later always lands after it.
 */
export const COMMIT = `if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return -1 end
${NOW}
local position = math.max(now, tonumber(redis.call('GET', KEYS[3]) or '0') + 1)
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[2], position, ARGV[i])
  position = position + 1
end
if #ARGV > 1 then redis.call('SET', KEYS[3], position - 1) end
return position - 1`;

/** KEYS: events. ARGV: since, limit, retention ms. Returns member, score, member, score… */
export const POLL = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[3])))
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))`;

const lastPositionKey = (eventsKey: string) => `${eventsKey}:last`;

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
    admit: ({ rateKey, limit, windowMs, deliveryKey }) =>
      guarded(async (): Promise<Admission> => {
        const [allowed = 0, retryAfterMs = 0, seen = 0] = numbers(
          await evaluate(ADMIT, [rateKey, deliveryKey ?? ''], [String(limit), String(windowMs), crypto.randomUUID()]),
        );
        return { allowed: allowed === 1, retryAfterMs: Math.max(0, retryAfterMs), duplicate: seen === 1 };
      }),

    commit: ({ deliveryKey, dedupeMs, eventsKey, events }) =>
      guarded(async () => {
        const reply = await evaluate(
          COMMIT,
          [deliveryKey, eventsKey, lastPositionKey(eventsKey)],
          [String(dedupeMs), ...events.map((event) => JSON.stringify(event))],
        );
        return Number(reply) !== -1;
      }),

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
