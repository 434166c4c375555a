import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { createClient } from 'redis';
import { LimiterBusyError, sharedWindowLimiter, systemClock, type SharedWindow } from '@dash/connectors';
import { openStore, type Store } from '@dash/db';
import { mysqlProblem, postgresProblem, scratchMysql, scratchPostgres } from '@dash/db/testing';
import { migrationsDir } from '../testing.ts';
import { DataCache } from './cache.ts';
import { coordinationFor, INSTALLATION_META, installationOf, redisCoordination, type Coordination } from './shared.ts';

// Two dashboard processes on one database, each with its own store connection, cache and limiters, share one upstream
// call per cache miss (the other answers HIT with the same value) and one rate window per account, through Postgres,
// MySQL, or Redis beside either. SQLite keeps both in memory.

const REDIS_URL = 'redis://127.0.0.1:6379/13';
const inCI = process.env.CI === 'true';
const pgProblem = await postgresProblem();
const myProblem = await mysqlProblem();

/** A process: its own connection to the shared database, and the coordination it would build. */
interface Process {
  store: Store;
  coordination: Coordination;
  close(): Promise<void>;
}

/** A process on the database at `url`: coordinating through its tables, or through Redis under its installation's keys, as the server does. */
async function openProcess(url: string, redis: boolean): Promise<Process> {
  const store = await openStore({ url, migrationsDir });
  if (!redis) return { store, coordination: coordinationFor(store), close: () => store.close() };
  const link = await redisCoordination(REDIS_URL);
  return {
    store,
    coordination: link.scope(await installationOf(store)),
    close: async () => {
      await link.close();
      await store.close();
    },
  };
}

const flushRedis = async () => {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  await client.flushDb();
  await client.close();
};

type Engine = { name: string; problem: string | undefined; scratch: () => Promise<{ url: string; drop: () => Promise<void> }>; redis: boolean };
const engines: Engine[] = [
  { name: 'Postgres', problem: pgProblem, scratch: scratchPostgres, redis: false },
  { name: 'MySQL', problem: myProblem, scratch: scratchMysql, redis: false },
  { name: 'Postgres with REDIS_URL', problem: pgProblem, scratch: scratchPostgres, redis: true },
];

const schema = z.object({ n: z.number() });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A shared window whose writes (a 429's pause, a refund) the test can wait for: the limiter tells the window and goes
 * on, so another process sees them once the store has them, which a loaded machine can take longer than any fixed wait.
 */
function awaited(window: SharedWindow): SharedWindow & { written: () => Promise<unknown> } {
  const writes: Promise<unknown>[] = [];
  const track = <T>(write: Promise<T>) => (writes.push(write), write);
  return {
    ...window,
    pause: (until) => track(window.pause(until)),
    refund: (turn) => track(window.refund(turn)),
    written: () => Promise.all(writes.splice(0)),
  };
}

describe.for(engines)('two processes sharing through $name', (engine) => {
  const skip = engine.problem !== undefined && !inCI;
  let processes: [Process, Process];
  let drop: () => Promise<void>;

  beforeAll(async () => {
    if (skip) return;
    const scratch = await engine.scratch();
    drop = scratch.drop;
    processes = [await openProcess(scratch.url, engine.redis), await openProcess(scratch.url, engine.redis)];
    expect(processes.map((p) => p.coordination.where)).toEqual(engine.redis ? ['redis', 'redis'] : ['database', 'database']);
  });
  afterAll(async () => {
    if (skip) return;
    for (const process of processes) await process.close();
    await drop();
    if (engine.redis) await flushRedis();
  });

  it.skipIf(skip)('one upstream call per cache miss: the process that waited answers HIT with the value the other fetched', async () => {
    const caches = processes.map(({ store, coordination }) => new DataCache(store.cache, systemClock, coordination.flights));
    let calls = 0;
    const load = async () => {
      calls += 1;
      await wait(150);
      return { n: calls };
    };
    const ask = (cache: DataCache) => cache.through({ route: 'revenue', params: { project: 'acme' }, ttlMs: 60_000, schema, load });
    const answers = await Promise.all([...caches, ...caches, ...caches].map(ask));
    expect(calls).toBe(1);
    expect(new Set(answers.map((answer) => JSON.stringify([answer.value, answer.fetchedAt]))).size).toBe(1);
    // The one request whose fetch asked the upstream says MISS; every other, in either process, waited and says HIT.
    expect(answers.map((answer) => answer.status).sort()).toEqual(['HIT', 'HIT', 'HIT', 'HIT', 'HIT', 'MISS']);
    // Fresh now: both answer from it without another call.
    expect((await Promise.all(caches.map(ask))).map((answer) => answer.status)).toEqual(['HIT', 'HIT']);
    expect(calls).toBe(1);
  });

  it.skipIf(skip)('a fetch that fails hands the key to the next process, which fetches it', async () => {
    const [first, second] = processes.map(({ store, coordination }) => new DataCache(store.cache, systemClock, coordination.flights));
    let calls = 0;
    const ask = (cache: DataCache, fail: boolean) =>
      cache.through({
        route: 'traffic',
        params: { project: 'acme' },
        ttlMs: 60_000,
        schema,
        load: async () => {
          calls += 1;
          await wait(100);
          if (fail) throw new Error('upstream 503');
          return { n: 7 };
        },
      });
    const failing = ask(first!, true);
    // The first holds the key once its fetch has begun (however long a loaded machine takes to get there).
    await expect.poll(() => calls, { timeout: 10_000, interval: 5 }).toBe(1);
    const [failed, fetched] = await Promise.allSettled([failing, ask(second!, false)]);
    expect(failed).toMatchObject({ status: 'rejected', reason: { message: 'upstream 503' } });
    expect(fetched).toMatchObject({ status: 'fulfilled', value: { value: { n: 7 }, status: 'MISS' } });
    expect(calls).toBe(2);
  });

  it.skipIf(skip)('calls on one account from both processes stay within its limit in every window', async () => {
    const rate = { limit: 4, windowMs: 400 };
    // The instants the shared window counted each call at (what the store keeps), not when a busy test saw it.
    const sent: number[] = [];
    const limiters = processes.map(({ coordination }) => {
      const window = coordination.window(`acct-${engine.name}`, rate)!;
      const counted: SharedWindow = {
        ...window,
        take: async (now) => {
          const answer = await window.take(now);
          if ('turn' in answer) sent.push(now);
          return answer;
        },
      };
      return sharedWindowLimiter(counted, systemClock);
    });
    await Promise.all(Array.from({ length: 12 }, (_, i) => limiters[i % 2]!.take(undefined, 5_000)));
    sent.sort((a, b) => a - b);
    // Twelve calls at four per 400 ms take at least two full windows, and no window holds more than four.
    expect(sent).toHaveLength(12);
    expect(sent.at(-1)! - sent[0]!).toBeGreaterThanOrEqual(2 * rate.windowMs);
    for (const [i, at] of sent.entries()) expect(sent.filter((other) => other >= at && other < at + rate.windowMs).length, `from call ${i}`).toBeLessThanOrEqual(4);
  });

  it.skipIf(skip)("a 429 seen by one process pauses the other's calls to that account, and a refund frees a place", async () => {
    const rate = { limit: 2, windowMs: 60_000 };
    const paused = processes.map(({ coordination }) => awaited(coordination.window(`paused-${engine.name}`, rate)!));
    const [a, b] = paused.map((window) => sharedWindowLimiter(window, systemClock));
    await a!.take();
    a!.pauseFor(30_000);
    await paused[0]!.written();
    await expect(b!.take(undefined, 1_000)).rejects.toBeInstanceOf(LimiterBusyError);

    const refunded = processes.map(({ coordination }) => awaited(coordination.window(`refund-${engine.name}`, rate)!));
    const [c, d] = refunded.map((window) => sharedWindowLimiter(window, systemClock));
    await c!.take();
    const second = await d!.take();
    await expect(c!.take(undefined, 1_000)).rejects.toBeInstanceOf(LimiterBusyError);
    d!.refund(second);
    await refunded[1]!.written();
    await expect(c!.take(undefined, 1_000)).resolves.toEqual(expect.any(Number));
  });
});

describe('two dashboards on one Redis, each on a database of its own (a staging and a production one)', () => {
  const skip = pgProblem !== undefined && !inCI;
  let dashboards: [Process, Process];
  let drops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    if (skip) return;
    const scratches = [await scratchPostgres(), await scratchPostgres()];
    drops = scratches.map((scratch) => scratch.drop);
    dashboards = [await openProcess(scratches[0]!.url, true), await openProcess(scratches[1]!.url, true)];
  });
  afterAll(async () => {
    if (skip) return;
    for (const dashboard of dashboards) await dashboard.close();
    for (const drop of drops) await drop();
    await flushRedis();
  });

  it.skipIf(skip)("count their calls apart: one's full window or 429 pause never holds the other's calls to the same account", async () => {
    const [production, staging] = dashboards.map(({ store }) => installationOf(store));
    expect(await production).not.toBe(await staging);
    const rate = { limit: 2, windowMs: 60_000 };
    const windows = dashboards.map(({ coordination }) => awaited(coordination.window('revenuecat:acct', rate)!));
    const [a, b] = windows.map((window) => sharedWindowLimiter(window, systemClock));
    await a!.take();
    await a!.take();
    await expect(a!.take(undefined, 200)).rejects.toBeInstanceOf(LimiterBusyError);
    a!.pauseFor(30_000);
    await windows[0]!.written();
    await expect(b!.take(undefined, 1_000)).resolves.toEqual(expect.any(Number));
    await expect(b!.take(undefined, 1_000)).resolves.toEqual(expect.any(Number));
  });

  it.skipIf(skip)("fetch apart: one's fetch of a cache key does not make the other wait on it", async () => {
    const [first, second] = dashboards.map(({ coordination }) => coordination.flights!);
    expect(await first!.take('revenue?project=acme', 'production', 60_000, Date.now())).toBe(true);
    expect(await second!.take('revenue?project=acme', 'staging', 60_000, Date.now())).toBe(true);
    // Within one installation the key is still held.
    expect(await first!.take('revenue?project=acme', 'production-2', 60_000, Date.now())).toBe(false);
  });

  it.skipIf(skip)('keep their installation id across restarts, and every process of one database reads the same', async () => {
    const { store } = dashboards[0];
    const id = await installationOf(store);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(await installationOf(store)).toBe(id);
  });
});

/** A database of its own in a directory of its own, as scratchPostgres makes one on the server. */
function scratchSqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'dash-shared-'));
  return Promise.resolve({ url: `file:${join(dir, 'dashboard.db')}`, drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) });
}

/**
 * `start` in two processes at once, paced at their store's meta calls: both read before either writes, then the first
 * runs to its end before the second goes on (the order in which each process writing its own value split them).
 */
async function atOnce<T>(stores: [Store, Store], start: (store: Store) => Promise<T>): Promise<[T, T]> {
  let reads = 0;
  let bothRead!: () => void;
  const read = new Promise<void>((resolve) => (bothRead = resolve));
  const paced = (store: Store, after?: Promise<unknown>): Store => {
    let calls = 0;
    const methods = Object.entries(store.meta as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>);
    const meta = Object.fromEntries(
      methods.map(([name, method]) => [
        name,
        async (...args: unknown[]) => {
          calls += 1;
          if (calls > 1) {
            await after?.catch(() => undefined);
            return method.apply(store.meta, args);
          }
          const answer = await method.apply(store.meta, args);
          reads += 1;
          if (reads === 2) bothRead();
          await read;
          return answer;
        },
      ]),
    );
    return { ...store, meta } as Store;
  };
  const first = start(paced(stores[0]));
  const second = start(paced(stores[1], first));
  return [await first, await second];
}

describe.for([
  { name: 'Postgres', problem: pgProblem, scratch: scratchPostgres },
  { name: 'MySQL', problem: myProblem, scratch: scratchMysql },
  { name: 'a SQLite file', problem: undefined, scratch: scratchSqlite },
])('two processes starting at once on a new $name database', ({ problem, scratch }) => {
  it.skipIf(problem !== undefined && !inCI)('keep one installation id, the one the database stored first', async () => {
    const database = await scratch();
    onTestFinished(() => database.drop());
    const stores: [Store, Store] = [await openStore({ url: database.url, migrationsDir }), await openStore({ url: database.url, migrationsDir })];
    for (const store of stores) onTestFinished(() => store.close());
    const [first, second] = await atOnce(stores, installationOf);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(second).toBe(first);
    expect(await installationOf(stores[1])).toBe(first);
  });
});

describe('one process on SQLite', () => {
  it('replaces a stored installation id that is no id (edited by hand) with one', async () => {
    const database = await scratchSqlite();
    onTestFinished(() => database.drop());
    const store = await openStore({ url: database.url, migrationsDir });
    onTestFinished(() => store.close());
    await store.meta.put(INSTALLATION_META, 'edited');
    const id = await installationOf(store);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(await store.meta.get(INSTALLATION_META)).toBe(id);
  });

  it('keeps its windows and fetches in memory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dash-shared-'));
    const store = await openStore({ url: `file:${join(dir, 'dashboard.db')}`, migrationsDir });
    try {
      const coordination = coordinationFor(store);
      expect(coordination).toMatchObject({ where: 'memory', flights: undefined });
      expect(coordination.window('acct', { limit: 5, windowMs: 60_000 })).toBeUndefined();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('REDIS_URL that cannot be reached', () => {
  it('fails the start with where it looked, and no password', async () => {
    await expect(redisCoordination('redis://user:s3cret-pass@127.0.0.1:1')).rejects.toThrow(/^REDIS_URL: cannot reach Redis at 127\.0\.0\.1:1 \((?!.*s3cret).*\)$/);
  });
});
