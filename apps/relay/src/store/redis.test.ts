import type { ChildProcess } from 'node:child_process';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keysOf } from '../keys.ts';
import { keptRefusalKeys } from '../refusals.ts';
import {
  ADMIN_SECRET,
  countedOnceEach,
  githubDelivery,
  pollHeaders,
  REFUSED_ONCE_EACH,
  refuseOnceEach,
  relay,
  serveRelay,
  until,
} from '../testing.ts';
import { startRedisCluster, type RedisCluster } from './redis-cluster.ts';
import { redisClusterStore, redisStore, upstashStore } from './redis.ts';
import { freePort, hasRedisServer as redisServerInstalled, startRedis } from './redis-server.ts';
import { startUpstashRestServer } from './upstash-rest-server.ts';
import type { RelayStore } from './types.ts';

// The Redis store's own cases, on a private redis-server and on a private three-master Redis Cluster
// (see redis-cluster.test.ts for what only a cluster has: slots, shards and failover), and the refusal counts
// (issue 53) there and through Upstash's REST API.

const hasRedisServer = await redisServerInstalled();
if (!hasRedisServer) console.warn('*** redis-server is not installed: the Redis store tests (single node and cluster) are SKIPPED ***');

/** Where a test's stores live: opened, taken away and brought back, emptied after each test. */
interface Backend {
  open(): Promise<RelayStore>;
  /** Kills the server (every node of a cluster). */
  down(): Promise<void>;
  /** Brings it back on the same address(es), empty. */
  up(): Promise<void>;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

async function singleNode(): Promise<Backend & { url: string }> {
  const port = await freePort();
  let server: ChildProcess | undefined = await startRedis(port);
  const url = `redis://127.0.0.1:${port}`;
  const kill = async () => {
    const running = server;
    server = undefined;
    if (running && running.exitCode === null) await new Promise((r) => running.once('exit', r).kill('SIGKILL'));
  };
  return {
    url,
    open: () => redisStore(url, () => {}),
    down: kill,
    up: async () => void (server = await startRedis(port)),
    async flush() {
      const admin = createClient({ url });
      await admin.connect();
      await admin.flushAll();
      admin.destroy();
    },
    stop: kill,
  };
}

async function cluster(): Promise<Backend> {
  const started: RedisCluster = await startRedisCluster();
  return {
    open: () => redisClusterStore(started.urls, () => {}),
    down: () => started.kill(),
    up: () => started.revive(),
    flush: () => started.flush(),
    stop: () => started.stop(),
  };
}

/** 10:20 UTC on a day, each relay's clock in the refusal tests; HOUR is its hour's start. */
const T = Date.UTC(2026, 10, 22, 10, 20);
const HOUR = Date.UTC(2026, 10, 22, 10);
const SIGNING = 'tenant-signing-secret';
type App = ReturnType<typeof relay>['app'];
const count = (reason: string, n: number) => ({ hour: HOUR, integration: 'code_host', reason, count: n });

const send = async (app: App, delivery: { body: string; headers: Record<string, string> }, path = '/api/webhooks/code_host') =>
  (await app.request(path, { method: 'POST', body: delivery.body, headers: delivery.headers })).status;

let readIp = 0;
/** `GET <path>?since=<T>`'s counts, asserting a 200. */
async function readRefusals(app: App, secret?: string, path = '/api/refusals'): Promise<unknown[]> {
  const res = await app.request(`${path}?since=${T}`, { headers: pollHeaders(`198.51.100.${++readIp % 250}`, secret) });
  const body = (await res.json()) as { counts: unknown[] };
  expect([res.status, body]).toEqual([200, { counts: expect.any(Array), timestamp: T }]);
  return body.counts;
}

/** Tenants made through the admin API, each with SIGNING as its GitHub secret; their poll secrets by id. */
async function createTenants(app: App, ids: string[]): Promise<Map<string, string>> {
  const admin = { authorization: `Bearer ${ADMIN_SECRET}`, 'content-type': 'application/json' };
  const secrets = new Map<string, string>();
  for (const id of ids) {
    const created = await app.request('/api/tenants', { method: 'POST', headers: admin, body: JSON.stringify({ id }) });
    expect(created.status).toBe(201);
    secrets.set(id, ((await created.json()) as { pollSecret: string }).pollSecret);
    const put = await app.request(`/api/tenants/${id}/secrets`, { method: 'PUT', headers: admin, body: JSON.stringify({ webhookSecrets: { github: SIGNING } }) });
    expect(put.status).toBe(200);
  }
  return secrets;
}

for (const [name, start] of [
  ['single Redis', singleNode],
  ['Redis Cluster (3 masters, 3 replicas)', cluster],
] as const) {
  describe.skipIf(!hasRedisServer)(`the Redis store on a ${name}`, () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await start();
    }, 60_000);
    afterAll(() => backend?.stop());

    const cleanup: (() => unknown)[] = [];
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
      await backend.flush();
    });

    async function open() {
      const store = await backend.open();
      cleanup.push(() => store.close());
      return store;
    }

    it('shares one rate limit and one replay memory between two relay processes', async () => {
      const stores: RelayStore[] = [await open(), await open()];
      const [a, b] = stores.map((store) => relay(store).app);
      const send = (app: typeof a, delivery: ReturnType<typeof githubDelivery>) =>
        app!.request('/api/webhooks/code_host', { method: 'POST', body: delivery.body, headers: delivery.headers });

      const once = githubDelivery({ deliveryId: 'shared' });
      expect((await send(a, once)).status).toBe(200);
      expect((await send(b, once)).status).toBe(409);

      for (let i = 0; i < 99; i++) await send(i % 2 ? a : b, githubDelivery({ number: i, ip: '203.0.113.50' }));
      expect((await send(a, githubDelivery({ number: 500, ip: '203.0.113.50' }))).status).toBe(200);
      expect((await send(b, githubDelivery({ number: 501, ip: '203.0.113.50' }))).status).toBe(429);
    });

    it('answers 503 while Redis is away, stays up, and recovers by itself when it returns', async () => {
      const { app } = relay(await open());
      const send = (n: number) => {
        const d = githubDelivery({ number: n });
        return app.request('/api/webhooks/code_host', { method: 'POST', body: d.body, headers: d.headers });
      };
      expect((await send(1)).status).toBe(200);

      await backend.down();
      const down = await send(2);
      expect([down.status, down.headers.get('retry-after')]).toEqual([503, '5']);

      await backend.up();
      const status = await until(async () => (await send(3)).status, (s) => s === 200, 10_000, 'accepting webhooks again', 100);
      expect(status).toBe(200);
    }, 60_000);

    it('counts each refused webhook once, per reason, and answers the counts on GET /api/refusals', async () => {
      const served = await serveRelay({ store: await open(), env: { RELAY_DISABLE_DEPLOY_HOST: 'true' }, now: () => T });
      cleanup.push(() => served.close());
      expect(await refuseOnceEach(served.postTo)).toEqual(REFUSED_ONCE_EACH);
      const res = await fetch(`${served.origin()}/api/refusals?since=${T}`, { headers: pollHeaders() });
      expect([res.status, await res.json()]).toEqual([200, { counts: countedOnceEach(HOUR), timestamp: T }]);
    });

    it("adds up two relay processes' counts on one store", async () => {
      const [a, b] = [relay(await open(), {}, () => T), relay(await open(), {}, () => T)];
      const forged = (n: number) => githubDelivery({ secret: 'wrong', ip: `203.0.113.${n}` });
      for (const n of [1, 2]) expect(await send(a.app, forged(n))).toBe(401);
      for (const n of [3, 4, 5]) expect(await send(b.app, forged(n))).toBe(401);
      expect(await send(b.app, { ...forged(6), headers: { ...forged(6).headers, 'content-type': 'text/plain' } })).toBe(415);
      // b's process stops: what it held goes to the store as it closes.
      await b.refusals.close();
      expect(await readRefusals(a.app)).toEqual([count('bad_signature', 5), count('not_json', 1)]);
    });

    it("keeps each tenant's counts its own and counts nothing for a tenant that does not exist", async () => {
      const store = await open();
      const { app } = relay(store, { RELAY_ADMIN_SECRET: ADMIN_SECRET }, () => T);
      const secrets = await createTenants(app, ['acme-co', 'umbrella']);
      const forged = githubDelivery({ secret: 'wrong' });
      const form = { ...githubDelivery({ secret: SIGNING }), headers: { ...githubDelivery({ secret: SIGNING }).headers, 'content-type': 'text/plain' } };
      expect([await send(app, forged, '/api/t/acme-co/webhooks/github'), await send(app, forged, '/api/t/acme-co/webhooks/github')]).toEqual([401, 401]);
      expect(await send(app, form, '/api/t/umbrella/webhooks/github')).toBe(415);
      expect([await send(app, forged, '/api/t/ghost-co/webhooks/github'), await send(app, form, '/api/t/ghost-co/webhooks/github')]).toEqual([401, 415]);

      expect(await readRefusals(app, secrets.get('acme-co'), '/api/t/acme-co/refusals')).toEqual([count('bad_signature', 2)]);
      expect(await readRefusals(app, secrets.get('umbrella'), '/api/t/umbrella/refusals')).toEqual([count('not_json', 1)]);
      expect(await readRefusals(app)).toEqual([]);
      // Another tenant's secret does not open a tenant's counts; an unknown tenant is answered as a wrong secret.
      const wrong = await app.request('/api/t/umbrella/refusals', { headers: pollHeaders('198.51.100.90', secrets.get('acme-co')) });
      const unknown = await app.request('/api/t/ghost-co/refusals', { headers: pollHeaders('198.51.100.90', secrets.get('acme-co')) });
      expect([unknown.status, await unknown.text()]).toEqual([wrong.status, await wrong.text()]);
      expect(wrong.status).toBe(401);
      expect((await store.counts(keptRefusalKeys(keysOf('ghost-co').refusals, T))).filter((hash) => Object.keys(hash).length > 0)).toEqual([]);

      // Removing a tenant removes its counts: one made again under its id starts from none.
      const admin = { authorization: `Bearer ${ADMIN_SECRET}` };
      expect((await app.request('/api/tenants/acme-co', { method: 'DELETE', headers: admin })).status).toBe(200);
      const again = await createTenants(app, ['acme-co']);
      expect(await readRefusals(app, again.get('acme-co'), '/api/t/acme-co/refusals')).toEqual([]);
    });

    it('hands out every event exactly once while events keep arriving during the polls', async () => {
      const { app } = relay(await open());

      const total = 2_000;
      const ingest = (async () => {
        for (let i = 0; i < total; i += 50) {
          await Promise.all(
            Array.from({ length: 50 }, async (_, j) => {
              const d = githubDelivery({ number: i + j, ip: `10.0.${Math.floor((i + j) / 90)}.1` });
              return app.request('/api/webhooks/code_host', { method: 'POST', body: d.body, headers: d.headers });
            }),
          );
        }
      })();

      const seen: string[] = [];
      let since = 0;
      let round = 0;
      let ingesting = true;
      void ingest.then(() => (ingesting = false));
      for (;;) {
        // Read before the poll: an empty page only ends the loop if ingestion had finished before it began.
        const finished = !ingesting;
        const res = await app.request(`/api/events?since=${since}&limit=13`, { headers: pollHeaders(`198.18.${Math.floor(round / 15)}.${round % 15}`) });
        round++;
        const events = (await res.json()) as { sourceEventId: string }[];
        seen.push(...events.map((e) => e.sourceEventId));
        since = Number(res.headers.get('x-relay-timestamp'));
        if (events.length === 0 && finished) break;
      }
      await ingest;
      expect(seen.length).toBe(total);
      expect(new Set(seen).size).toBe(total);
    });
  });
}

describe.skipIf(!hasRedisServer)("the Redis store on a single Redis, started over an earlier relay's data", () => {
  it('moves the keys of an earlier relay (relay:<tenant>:…) to hash-tagged names: events, cursors and replay records carry over', async () => {
    const backend = await singleNode();
    const admin = createClient({ url: backend.url });
    await admin.connect();
    try {
      const earlier = await backend.open();
      const { app } = relay(earlier);
      const send = (delivery: ReturnType<typeof githubDelivery>) => app.request('/api/webhooks/code_host', { method: 'POST', body: delivery.body, headers: delivery.headers });
      const [d1, d2, d3] = [1, 2, 3].map((number) => githubDelivery({ number, deliveryId: `before-${number}` }));
      expect([(await send(d1!)).status, (await send(d2!)).status]).toEqual([200, 200]);
      const first = await app.request('/api/events?since=0&limit=1', { headers: pollHeaders() });
      const cursor = first.headers.get('x-relay-timestamp');
      // What a relay before hash tags left behind: the same keys, named relay:default:….
      for await (const keys of admin.scanIterator({ MATCH: 'relay:{default}:*' })) {
        for (const key of keys) await admin.rename(key, key.replace('relay:{default}:', 'relay:default:'));
      }
      // And a newer process has already stored one under the new names beside them.
      expect((await send(d3!)).status).toBe(200);
      await earlier.close();

      const { app: restarted } = relay(await backend.open());
      const poll = async (since: string | null) =>
        ((await (await restarted.request(`/api/events?since=${since}`, { headers: pollHeaders('198.51.100.9') })).json()) as { title: string }[]).map((e) => e.title);
      expect(await poll('0')).toEqual(['PR #1 merged: Change 1', 'PR #2 merged: Change 2', 'PR #3 merged: Change 3']);
      expect(await poll(cursor)).toEqual(['PR #2 merged: Change 2', 'PR #3 merged: Change 3']);
      // Replay memory carried over too.
      expect((await restarted.request('/api/webhooks/code_host', { method: 'POST', body: d1!.body, headers: d1!.headers })).status).toBe(409);
      const untagged: string[] = [];
      for await (const keys of admin.scanIterator({ MATCH: 'relay:[^{]*' })) untagged.push(...keys);
      expect(untagged).toEqual([]);
    } finally {
      admin.destroy();
      await backend.stop();
    }
  });
});

describe.skipIf(!hasRedisServer)("the refusal counts through Upstash's REST API (over a single Redis)", () => {
  it('counts each refused webhook once, per reason, and adds up two relay processes', async () => {
    const backend = await singleNode();
    const rest = await startUpstashRestServer(backend.url, 'upstash-test-token');
    try {
      const served = await serveRelay({ store: upstashStore(rest.url, 'upstash-test-token'), env: { RELAY_DISABLE_DEPLOY_HOST: 'true' }, now: () => T });
      const other = relay(upstashStore(rest.url, 'upstash-test-token'), {}, () => T);
      try {
        expect(await refuseOnceEach(served.postTo)).toEqual(REFUSED_ONCE_EACH);
        expect(await send(other.app, githubDelivery({ secret: 'wrong', ip: '203.0.113.60' }))).toBe(401);
        await other.refusals.close();
        const res = await fetch(`${served.origin()}/api/refusals?since=${T}`, { headers: pollHeaders() });
        const twice = countedOnceEach(HOUR).map((c) => (c.reason === 'bad_signature' ? { ...c, count: 2 } : c));
        expect([res.status, await res.json()]).toEqual([200, { counts: twice, timestamp: T }]);
      } finally {
        await served.close();
      }
    } finally {
      await rest.close();
      await backend.stop();
    }
  });
});
