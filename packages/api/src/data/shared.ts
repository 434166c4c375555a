import { createHash, randomBytes } from 'node:crypto';
import type { RateLimit, SharedWindow } from '@dash/connectors';
import type { Store } from '@dash/db';

/**
 * One holder at a time of a named piece of work across processes, until it gives it up or `ttlMs` passes (a process
 * that died holding it does not block the others for longer).
 */
export interface Flights {
  take(name: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
}

/**
 * What several dashboard processes share so that together they behave as one: each upstream account's rate window,
 * and one fetch per cache miss. Kept in the database when it is Postgres or MySQL, in Redis when REDIS_URL is given,
 * and in this process's memory on SQLite (one process is all there is).
 */
export interface Coordination {
  /** Where: `memory`, `database` or `redis` (the log says which at start). */
  readonly where: 'memory' | 'database' | 'redis';
  /** The window of the upstream account `key`; undefined in memory (the limiter keeps its own). */
  window(key: string, rate: RateLimit): SharedWindow | undefined;
  /** Who fetches a cache key; undefined in memory (the cache's own single-flight is all there is). */
  readonly flights: Flights | undefined;
  close(): Promise<void>;
}

/** A name's digest: any length of credential name or cache key fits the columns and Redis keys it is stored under. */
export const digest = (name: string) => createHash('sha256').update(name).digest('hex').slice(0, 32);

/** The meta value naming this installation: the database, whichever processes serve it (an import never copies it). */
export const INSTALLATION_META = 'installation';

/**
 * This installation's id (made on first use): what keeps two dashboards on one Redis apart, a staging and a
 * production one say. Every process of one database reads the same; a database of its own (another installation,
 * or a copy made by an import, which keeps its own id) gets another. Of processes starting at once on a new
 * database, the store keeps the first id written and every process answers that one (`meta.claim`).
 */
export async function installationOf(store: Store): Promise<string> {
  const stored = await store.meta.get(INSTALLATION_META);
  if (typeof stored === 'string' && /^[0-9a-f]{16}$/.test(stored)) return stored;
  const id = randomBytes(8).toString('hex');
  if (stored === undefined) return String(await store.meta.claim(INSTALLATION_META, id));
  // Something that is no id (edited by hand): replaced.
  await store.meta.put(INSTALLATION_META, id);
  return id;
}

export const memoryCoordination: Coordination = { where: 'memory', window: () => undefined, flights: undefined, close: () => Promise.resolve() };

/** Through the store's own tables (`rate_limits`, `rate_calls`, `leases`) when it has shared rate windows. */
export function coordinationFor(store: Store): Coordination {
  const windows = store.rateWindows;
  if (!windows) return memoryCoordination;
  return {
    where: 'database',
    window: (key, { limit, windowMs }) => {
      const row = digest(key);
      return {
        take: (now) => windows.take(row, limit, windowMs, now),
        pause: (until) => windows.pause(row, until),
        refund: (turn) => windows.refund(row, turn),
      };
    },
    flights: {
      take: (name, holder, ttlMs, now) => store.leases.acquire(`flight:${digest(name)}`, holder, ttlMs, new Date(now).toISOString()),
      release: (name, holder) => store.leases.release(`flight:${digest(name)}`, holder),
    },
    close: () => Promise.resolve(),
  };
}

/** Counts a call when there is room: `{turn, 0}`, or `{0, ms until a place could free}`. Keys: calls, pause, turn counter. */
const TAKE = `
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if paused > now then return {0, paused - now} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(1, tonumber(oldest[2]) + window - now)}
end
local turn = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[1], now, turn)
redis.call('PEXPIRE', KEYS[1], window)
redis.call('PEXPIRE', KEYS[3], window)
return {turn, 0}`;

/** A later pause wins: sets the pause until ARGV[1] (expiring then) unless one lasts longer. */
const PAUSE = `
if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 0`;

/** Gives a flight up only when `holder` still holds it. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** One Redis client for a process, and each installation's coordination over it (`scope`). */
export interface RedisCoordination {
  /** The coordination of one installation (see `installationOf`): its own keys, so two dashboards on one Redis never meet. */
  scope(installation: string): Coordination;
  close(): Promise<void>;
}

/**
 * Through Redis (`REDIS_URL`): a sorted set of calls per account, taken by a script so a take is one atomic step, and
 * `SET NX PX` for a flight. Keys start with `dash:<installation>:` (the relay's start with `relay:`, so one Redis can
 * serve both, and dashboards on other databases keep to their own); an account's keys share a hash tag.
 */
export async function redisCoordination(url: string): Promise<RedisCoordination> {
  // Loaded only when REDIS_URL names a Redis: the client is a third of what a dashboard without one would load at start.
  const { createClient } = await import('redis');
  let connected = false;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    // Unreachable at start: the start fails with the reason. Lost later: it reconnects, and calls fail meanwhile.
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries, cause) => (connected ? Math.min(100 * 2 ** retries, 3_000) : cause) },
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`REDIS_URL: cannot reach Redis at ${new URL(url).host} (${(error as Error).message})`, { cause: error });
  }
  connected = true;
  const run = async (script: string, keys: string[], args: (string | number)[]) =>
    client.eval(script, { keys, arguments: args.map(String) });
  const scope = (installation: string): Coordination => ({
    where: 'redis',
    window: (key, { limit, windowMs }) => {
      const tag = `dash:${installation}:rate:{${digest(key)}}`;
      const [calls, pause, turns] = [`${tag}:calls`, `${tag}:pause`, `${tag}:turns`];
      return {
        async take(now) {
          const [turn, waitMs] = (await run(TAKE, [calls, pause, turns], [now, windowMs, limit])) as [number, number];
          return turn > 0 ? { turn } : { waitMs };
        },
        async pause(until) {
          // The key only has to outlive the pause; a window's length more covers processes whose clocks differ a little.
          await run(PAUSE, [pause], [until, Math.max(0, until - Date.now()) + windowMs]);
        },
        async refund(turn) {
          await client.zRem(calls, String(turn));
        },
      };
    },
    flights: {
      async take(name, holder, ttlMs) {
        return (await client.set(`dash:${installation}:flight:${digest(name)}`, holder, { condition: 'NX', expiration: { type: 'PX', value: ttlMs } })) === 'OK';
      },
      async release(name, holder) {
        await run(RELEASE, [`dash:${installation}:flight:${digest(name)}`], [holder]);
      },
    },
    // The client is the process's, shared by every installation it serves (a database switch makes a new one).
    close: () => Promise.resolve(),
  });
  return {
    scope,
    close: async () => {
      await client.close();
    },
  };
}
