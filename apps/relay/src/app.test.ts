// Over 400 lines, on purpose: one contract (91 tests) the relay's app must keep on each of its four stores (memory,
// Redis, Upstash's REST protocol, a three-master Redis Cluster this file forms); split, each file would form its own
// cluster and Upstash server again, or a store would miss part of the contract.
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from './app.ts';
import { memoryStore } from './store/memory.ts';
import { startRedisCluster } from './store/redis-cluster.ts';
import { redisClusterStore, redisStore, upstashStore } from './store/redis.ts';
import { hasRedisServer } from './store/redis-server.ts';
import { startUpstashRestServer } from './store/upstash-rest-server.ts';
import { StoreUnavailableError, type RelayStore } from './store/types.ts';
import { ADMIN_SECRET, GITHUB_SECRET, githubDelivery, pollHeaders, relay } from './testing.ts';

const REDIS_URL = 'redis://127.0.0.1:6379/11';

async function redisReachable(): Promise<boolean> {
  const probe = createClient({ url: REDIS_URL, socket: { connectTimeout: 1_000, reconnectStrategy: false } });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.flushDb();
    probe.destroy();
    return true;
  } catch {
    return false;
  }
}

const hasRedis = await redisReachable();
if (!hasRedis) {
  if (process.env.CI === 'true') throw new Error(`CI=true needs Redis at ${REDIS_URL}, which is unreachable`);
  console.warn(`*** Redis at ${REDIS_URL} is unreachable: the relay's Redis tests are SKIPPED ***`);
}

const UPSTASH_TOKEN = 'upstash-test-token';
const upstash = hasRedis ? await startUpstashRestServer(REDIS_URL, UPSTASH_TOKEN) : undefined;

// A private three-master Redis Cluster (see store/redis-cluster.ts), from the redis-server on PATH.
const withRedisServer = await hasRedisServer();
if (!withRedisServer) console.warn("*** redis-server is not installed: the relay's tests on a Redis Cluster are SKIPPED ***");
const cluster = withRedisServer ? await startRedisCluster() : undefined;

/** What a test does to a store's Redis behind its back: empty it, put a key in the way, take it out. */
interface RedisAdmin {
  flush(): Promise<void>;
  set(key: string, value: string): Promise<void>;
  del(key: string): Promise<void>;
}

interface Commands {
  flushDb(): Promise<unknown>;
  set(key: string, value: string): Promise<unknown>;
  del(key: string): Promise<unknown>;
}

async function singleAdmin(use: (client: Commands) => Promise<unknown>): Promise<void> {
  const admin = createClient({ url: REDIS_URL });
  await admin.connect();
  try {
    await use(admin);
  } finally {
    admin.destroy();
  }
}
const onSingle: RedisAdmin = {
  flush: () => singleAdmin((admin) => admin.flushDb()),
  set: (key, value) => singleAdmin((admin) => admin.set(key, value)),
  del: (key) => singleAdmin((admin) => admin.del(key)),
};
async function clusterAdmin(use: (client: Omit<Commands, 'flushDb'>) => Promise<unknown>): Promise<void> {
  const admin = createCluster({ rootNodes: cluster!.urls.map((url) => ({ url })) });
  await admin.connect();
  try {
    await use(admin);
  } finally {
    admin.destroy();
  }
}
const onCluster: RedisAdmin = {
  flush: () => cluster!.flush(),
  set: (key, value) => clusterAdmin((admin) => admin.set(key, value)),
  del: (key) => clusterAdmin((admin) => admin.del(key)),
};

const stores: { name: string; open: () => Promise<RelayStore>; available: boolean; admin?: RedisAdmin }[] = [
  { name: 'memory', open: () => Promise.resolve(memoryStore()), available: true },
  { name: 'redis', open: () => redisStore(REDIS_URL, () => {}), available: hasRedis, admin: onSingle },
  // Upstash's REST protocol, served over the same real Redis.
  { name: 'upstash', open: () => Promise.resolve(upstashStore(upstash?.url ?? '', UPSTASH_TOKEN)), available: hasRedis, admin: onSingle },
  { name: 'Redis Cluster', open: () => redisClusterStore(cluster?.urls ?? [], () => {}), available: withRedisServer, admin: onCluster },
];

const opened: RelayStore[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await upstash?.close();
  await cluster?.stop();
});

for (const { name, open, available, admin: redis } of stores) {
  describe.skipIf(!available)(`relay on the ${name} store`, () => {
    let store: RelayStore;
    beforeEach(async () => {
      await redis?.flush();
      store = await open();
      opened.push(store);
    });

    const send = async (app: ReturnType<typeof relay>['app'], delivery: { body: BodyInit; headers: Record<string, string> }, path = '/api/webhooks/code_host') =>
      app.request(path, { method: 'POST', body: delivery.body, headers: delivery.headers });

    const poll = async (app: ReturnType<typeof relay>['app'], query = '', headers: Record<string, string> = pollHeaders(), path = '/api/events') => {
      const res = await app.request(`${path}${query}`, { headers });
      return { status: res.status, cursor: res.headers.get('x-relay-timestamp'), body: (await res.json()) as unknown };
    };

    it('answers health without auth', async () => {
      const { app } = relay(store, {}, () => 1_700_000_000_000);
      const res = await app.request('/api/health');
      expect(await res.json()).toEqual({ status: 'ok', timestamp: 1_700_000_000_000 });
    });

    it('stores a verified delivery and answers 200 with the event count', async () => {
      const { app } = relay(store);
      const res = await send(app, githubDelivery());
      expect([res.status, await res.json()]).toEqual([200, { received: true, eventCount: 1 }]);
      const { body, cursor } = await poll(app);
      expect(body).toEqual([
        expect.objectContaining({ integration: 'code_host', type: 'pr.merged', repo: 'acme/app', id: expect.any(String), receivedAt: expect.any(String) }),
      ]);
      expect(Number(cursor)).toBeGreaterThan(0);
    });

    it('accepts the provider name as an alias and answers 404 for an unknown integration', async () => {
      const { app } = relay(store);
      expect((await send(app, githubDelivery(), '/api/webhooks/github')).status).toBe(200);
      expect((await send(app, githubDelivery(), '/api/webhooks/gitlab')).status).toBe(404);
    });

    it('honours the kill switches with 503', async () => {
      expect((await send(relay(store, { RELAY_ENABLED: 'false' }).app, githubDelivery())).status).toBe(503);
      expect((await send(relay(store, { RELAY_DISABLE_CODE_HOST: 'true' }).app, githubDelivery())).status).toBe(503);
      expect((await send(relay(store, { RELAY_DISABLE_GITHUB: 'true' }).app, githubDelivery())).status).toBe(503);
    });

    it('refuses a body over 256 KB with 413, also when Content-Length lies or is missing', async () => {
      const { app } = relay(store);
      const big = githubDelivery();
      big.body = ' '.repeat(LIMITS.bodyBytes + 1);
      expect((await send(app, big)).status).toBe(413);

      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          sent += 16_384;
          if (sent > 8 * LIMITS.bodyBytes) controller.close();
          else controller.enqueue(new Uint8Array(16_384).fill(32));
        },
      });
      const res = await app.request('/api/webhooks/code_host', {
        method: 'POST',
        body: stream,
        headers: { ...githubDelivery().headers, 'content-length': '10' },
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(sent).toBeLessThan(2 * LIMITS.bodyBytes);
      expect((await poll(app)).body).toEqual([]);
    });

    it('refuses a body that is not application/json with 415, and accepts a charset parameter', async () => {
      const { app } = relay(store);
      const form = githubDelivery();
      form.headers['content-type'] = 'application/x-www-form-urlencoded';
      expect((await send(app, form)).status).toBe(415);
      const charset = githubDelivery();
      charset.headers['content-type'] = 'application/json; charset=utf-8';
      expect((await send(app, charset)).status).toBe(200);
    });

    it('rate-limits 100 requests a minute per IP and integration with 429 and Retry-After', async () => {
      const { app } = relay(store);
      const statuses = [];
      for (let i = 0; i < LIMITS.webhooksPerMinute; i++) statuses.push((await send(app, githubDelivery({ number: i }))).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      const limited = await send(app, githubDelivery({ number: 1000 }));
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await send(app, githubDelivery({ number: 1001, ip: '203.0.113.99 ' }))).status).toBe(200);
      // 102 deliveries one after another, each verified and stored: a loaded machine has taken over the default 20 s.
    }, 60_000);

    it('answers a repeated delivery id with 409, and a bad signature never consumes the id', async () => {
      const { app } = relay(store);
      const forged = githubDelivery({ deliveryId: 'd-1', secret: 'wrong' });
      expect((await send(app, forged)).status).toBe(401);
      const genuine = githubDelivery({ deliveryId: 'd-1' });
      expect((await send(app, genuine)).status).toBe(200);
      expect((await send(app, genuine)).status).toBe(409);
      expect(((await poll(app)).body as unknown[]).length).toBe(1);
    });

    // Deliveries that arrive together share one store call on Redis and Upstash; each is still judged
    // as if it had come alone.
    it('judges deliveries that arrive together one by one: one copy of a delivery stored, the rest 409 or 401', async () => {
      const { app } = relay(store);
      const genuine = githubDelivery({ deliveryId: 'together' });
      const forged = githubDelivery({ deliveryId: 'together', secret: 'wrong' });
      const statuses = (await Promise.all([genuine, forged, genuine, genuine].map((d) => send(app, d)))).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(statuses[1] === 401 ? 2 : 3);
      expect(((await poll(app)).body as unknown[]).length).toBe(1);
    });

    it('keeps the rate limit exact for a crowd of deliveries from one address arriving at once', async () => {
      const { app } = relay(store);
      const sent = await Promise.all(Array.from({ length: LIMITS.webhooksPerMinute + 30 }, (_, i) => send(app, githubDelivery({ number: i, ip: '203.0.113.80' }))));
      expect(sent.filter((r) => r.status === 200)).toHaveLength(LIMITS.webhooksPerMinute);
      const limited = sent.filter((r) => r.status === 429);
      expect(limited).toHaveLength(30);
      expect(limited.every((r) => Number(r.headers.get('retry-after')) >= 1)).toBe(true);
      const { body } = await poll(app, '?limit=1000');
      expect(new Set((body as { sourceEventId: string }[]).map((e) => e.sourceEventId)).size).toBe(LIMITS.webhooksPerMinute);
    });

    it('slides its rate window: a full window admits again once its oldest request has left it', async () => {
      const window = { rateKey: 'relay:{default}:hits:slide', limit: 3, windowMs: 1_000 };
      const first = await store.limit(window);
      await new Promise((r) => setTimeout(r, 300));
      const later = [await store.limit(window), await store.limit(window), await store.limit(window)];
      expect([first.allowed, ...later.map((c) => c.allowed)]).toEqual([true, true, true, false]);
      // The first request leaves the window ~300 ms before the other two, ~700 ms from now.
      expect(later[2]!.retryAfterMs).toBeGreaterThan(0);
      expect(later[2]!.retryAfterMs).toBeLessThanOrEqual(710);
      await new Promise((r) => setTimeout(r, later[2]!.retryAfterMs + 20));
      expect((await store.limit(window)).allowed).toBe(true);
      // Now the two later ones and this one fill it again.
      expect((await store.limit(window)).allowed).toBe(false);
    });

    it('stores a delivery of hundreds of events in order, each at its own position', async () => {
      const received = new Date().toISOString();
      const events = Array.from({ length: 450 }, (_, i) => ({
        id: `e${i}`,
        integration: 'code_host' as const,
        type: 'pr.opened',
        sourceEventId: `github:acme/app:pr:${i}:opened`,
        title: `PR #${i} opened`,
        severity: 'info' as const,
        occurredAt: received,
        receivedAt: received,
      }));
      const delivery = { limit: 100, windowMs: 60_000, dedupeMs: 300_000, eventsKey: 'relay:{default}:events' };
      const [many, one] = await Promise.all([
        store.ingest({ ...delivery, rateKey: 'relay:{default}:hits:a', deliveryKey: 'relay:{default}:delivery:a', events }),
        store.ingest({ ...delivery, rateKey: 'relay:{default}:hits:b', deliveryKey: 'relay:{default}:delivery:b', events: [{ ...events[0]!, id: 'last', sourceEventId: 'last' }] }),
      ]);
      expect([many, one]).toEqual([{ outcome: 'stored' }, { outcome: 'stored' }]);
      const page = await store.poll({ eventsKey: delivery.eventsKey, since: 0, limit: 1000, retentionMs: 86_400_000 });
      expect(page.events.map((e) => e.id)).toEqual([...events.map((e) => e.id), 'last']);
    });

    it('answers 401 when no secret is configured, and tries every secret of a rotation list', async () => {
      expect((await send(relay(store, { WEBHOOK_SECRET_GITHUB: '' }).app, githubDelivery())).status).toBe(401);
      const rotated = relay(store, { WEBHOOK_SECRET_GITHUB: 'new-secret, old-secret' }).app;
      expect((await send(rotated, githubDelivery({ secret: 'old-secret' }))).status).toBe(200);
      expect((await send(rotated, githubDelivery({ secret: 'new-secret' }))).status).toBe(200);
      expect((await send(rotated, githubDelivery({ secret: 'other' }))).status).toBe(401);
    });

    it('answers 503 with Retry-After when the store fails, and keeps serving', async () => {
      const broken: RelayStore = {
        ...store,
        ingest: () => Promise.reject(new StoreUnavailableError(new Error('connection refused'))),
      };
      const { app, log } = relay(broken);
      const res = await send(app, githubDelivery());
      expect([res.status, res.headers.get('retry-after')]).toEqual([503, '5']);
      expect(log.lines.join('\n')).toMatch(/store is unavailable/);
      expect((await app.request('/api/health')).status).toBe(200);
    });

    // Only Redis has types to get in the way of a write; the memory store has no such failure.
    if (redis) {
      it('leaves a delivery id unspent when its events could not be written, so the retry is stored', async () => {
        // A string where the events' sorted set belongs: every write of events to it fails.
        await redis.set('relay:{default}:events', 'in the way');
        const { app } = relay(store);
        const delivery = githubDelivery({ deliveryId: 'retried' });
        const together = await Promise.all([send(app, delivery), send(app, githubDelivery({ deliveryId: 'beside-it' }))]);
        expect(together.map((r) => r.status)).toEqual([503, 503]);
        await redis.del('relay:{default}:events');
        expect((await send(app, delivery)).status).toBe(200);
        expect((await poll(app)).body).toEqual([expect.objectContaining({ type: 'pr.merged' })]);
      });
    }

    it('survives a thousand hostile requests without a 5xx and stores nothing', async () => {
      const { app } = relay(store);
      const random = (n: number) => randomBytes(n);
      const sign = (body: Uint8Array | string) => `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`;
      const nested = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const cases: ((i: number) => { path?: string; body: BodyInit; headers: Record<string, string> })[] = [
        () => ({ ...githubDelivery(), headers: { ...githubDelivery().headers, 'x-hub-signature-256': `sha256=${random(32).toString('hex')}` } }),
        () => {
          const d = githubDelivery();
          return { ...d, headers: { ...d.headers, 'x-hub-signature-256': d.headers['x-hub-signature-256'].slice(0, 40) } };
        },
        () => {
          const body = random(512);
          return { body, headers: { ...githubDelivery().headers, 'x-hub-signature-256': sign(body) } };
        },
        () => ({ body: nested, headers: { ...githubDelivery().headers, 'x-hub-signature-256': sign(nested) } }),
        () => ({ ...githubDelivery(), headers: { ...githubDelivery().headers, 'x-github-delivery': 'd'.repeat(8_000), 'x-hub-signature-256': 'sha256=' } }),
        () => ({ ...githubDelivery(), headers: { ...githubDelivery().headers, 'content-type': ['text/plain', 'application/jsonx', '', 'multipart/form-data'][randomInt(4)]! } }),
        // A lying Content-Length: what counts is the bytes that arrive.
        () => ({ body: ' '.repeat(LIMITS.bodyBytes + 1), headers: { ...githubDelivery().headers, 'content-length': '3' } }),
        (i) => ({ ...githubDelivery(), path: `/api/webhooks/${['../etc', '%00', 'constructor', '__proto__', 'x'.repeat(300)][i % 5]}` }),
        () => ({ body: '{"action":"opened"}', headers: { ...githubDelivery().headers, 'x-github-event': 'pull_request', 'x-hub-signature-256': sign('{"action":"opened"}') } }),
        () => ({ ...githubDelivery(), path: `/api/webhooks/${['deploy_host', 'error_tracker', 'issue_tracker', 'uptime_monitor'][randomInt(4)]}` }),
      ];
      const statuses = new Map<number, number>();
      for (let i = 0; i < 1_200; i++) {
        const attack = cases[i % cases.length]!(i);
        attack.headers['x-forwarded-for'] = `100.64.${Math.floor(i / 50)}.${i % 50}`;
        const res = await app.request(attack.path ?? '/api/webhooks/code_host', { method: 'POST', body: attack.body, headers: attack.headers });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
      expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
      expect([...statuses.keys()].sort()).toEqual([400, 401, 404, 413, 415]);
      expect((await poll(app)).body).toEqual([]);
      // 1,200 requests one after another (several 100 KB bodies among them): a loaded machine has taken over 20 s.
    }, 60_000);

    it('answers CORS on the poll endpoint only for ALLOWED_ORIGIN, and none when unset', async () => {
      const preflight = { method: 'OPTIONS', headers: { origin: 'https://dash.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } };
      const allowed = await relay(store, { ALLOWED_ORIGIN: 'https://dash.example.com' }).app.request('/api/events', preflight);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
      const { app } = relay(store, { ALLOWED_ORIGIN: 'https://dash.example.com' });
      const get = await app.request('/api/events', { headers: { ...pollHeaders(), origin: 'https://dash.example.com' } });
      expect(get.headers.get('access-control-expose-headers')).toMatch(/X-Relay-Timestamp/i);
      const other = await app.request('/api/events', { headers: { ...pollHeaders('198.51.100.9'), origin: 'https://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const unset = await relay(store).app.request('/api/events', { headers: { ...pollHeaders('198.51.100.8'), origin: 'https://dash.example.com' } });
      expect(unset.headers.get('access-control-allow-origin')).toBeNull();
      const webhookPreflight = await relay(store, { ALLOWED_ORIGIN: 'https://dash.example.com' }).app.request('/api/webhooks/code_host', preflight);
      expect(webhookPreflight.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('manages tenants and keeps their events, replay records, secrets and poll secrets apart', async () => {
      const { app } = relay(store, { RELAY_ADMIN_SECRET: ADMIN_SECRET });
      const admin = { authorization: `Bearer ${ADMIN_SECRET}`, 'content-type': 'application/json' };
      const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = admin) => {
        const res = await app.request(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        const text = await res.text();
        return { status: res.status, text, json: JSON.parse(text) as Record<string, unknown> };
      };

      expect((await call('POST', '/api/tenants', { id: 'acme' }, { 'content-type': 'application/json' })).status).toBe(401);
      const created = await call('POST', '/api/tenants', { id: 'acme', label: 'Acme' });
      expect(created.status).toBe(201);
      const { pollSecret, relayUrl } = created.json as { pollSecret: string; relayUrl: string };
      expect(relayUrl).toMatch(/\/api\/t\/acme$/);
      expect((await call('POST', '/api/tenants', { id: 'acme' })).status).toBe(409);
      expect((await call('POST', '/api/tenants', { id: 'default' })).status).toBe(400);
      expect((await call('POST', '/api/tenants', { id: 'Bad Id' })).status).toBe(400);

      const secrets = await call('PUT', '/api/tenants/acme/secrets', { webhookSecrets: { github: 'tenant-secret' } });
      expect(secrets.json).toMatchObject({ tenant: { id: 'acme', integrationsWithSecrets: ['code_host'] } });
      expect(secrets.text).not.toContain('tenant-secret');
      expect((await call('GET', '/api/tenants')).text).not.toContain('tenant-secret');

      const tenantPath = `${new URL(relayUrl).pathname}/webhooks/github`;
      expect((await send(app, githubDelivery({ deliveryId: 'same', secret: 'tenant-secret' }), tenantPath)).status).toBe(200);
      expect((await send(app, githubDelivery({ deliveryId: 'other' }), tenantPath)).status).toBe(401);
      // The same delivery id is new to the single-tenant relay: replay memory is per tenant.
      expect((await send(app, githubDelivery({ deliveryId: 'same' }))).status).toBe(200);

      const tenantEvents = `${new URL(relayUrl).pathname}/events`;
      const tenantPoll = await poll(app, '', { authorization: `Bearer ${pollSecret}`, 'x-forwarded-for': '198.51.100.30' }, tenantEvents);
      expect((tenantPoll.body as unknown[]).length).toBe(1);
      expect((await poll(app, '', pollHeaders('198.51.100.31'), tenantEvents)).status).toBe(401);
      expect(((await poll(app, '', pollHeaders('198.51.100.32'))).body as unknown[]).length).toBe(1);

      const rotated = await call('PUT', '/api/tenants/acme/secrets', { rotatePollSecret: true });
      const fresh = (rotated.json as { pollSecret: string }).pollSecret;
      expect((await poll(app, '', { authorization: `Bearer ${pollSecret}`, 'x-forwarded-for': '198.51.100.33' }, tenantEvents)).status).toBe(401);
      expect((await poll(app, '', { authorization: `Bearer ${fresh}`, 'x-forwarded-for': '198.51.100.33' }, tenantEvents)).status).toBe(200);

      expect((await call('GET', '/api/tenants/acme')).json).toMatchObject({ tenant: { label: 'Acme' } });
      expect((await call('DELETE', '/api/tenants/acme')).json).toEqual({ ok: true });
      expect((await call('GET', '/api/tenants/acme')).status).toBe(404);
      // A deleted tenant is an unknown one: its old secret is answered as a wrong one would be.
      expect((await send(app, githubDelivery({ secret: 'tenant-secret' }), tenantPath)).status).toBe(401);

      const off = relay(store).app;
      expect((await off.request('/api/tenants', { headers: admin })).status).toBe(404);
    });

    describe('poll', () => {
      it('needs the bearer poll secret', async () => {
        const [fresh, old] = ['new-poll-secret-0123456789abcdef0123', 'old-poll-secret-0123456789abcdef0123'];
        const { app } = relay(store, { RELAY_POLL_SECRET: `${fresh},${old}` });
        expect((await poll(app, '', {})).status).toBe(401);
        expect((await poll(app, '', pollHeaders(undefined, 'wrong'))).status).toBe(401);
        expect((await poll(app, '', pollHeaders(undefined, old))).status).toBe(200);
        expect((await poll(app, '', pollHeaders(undefined, fresh))).status).toBe(200);
      });

      it('validates since and limit', async () => {
        const { app } = relay(store);
        expect((await poll(app, '?since=abc')).status).toBe(400);
        expect((await poll(app, '?limit=0')).status).toBe(400);
        expect((await poll(app, '?limit=1001')).status).toBe(400);
        expect((await poll(app, '?limit=1000')).status).toBe(200);
      });

      it('answers 400 for a wait that is not a whole number of seconds from 0 to 25', async () => {
        const { app } = relay(store);
        for (const wait of ['26', '-1', 'x', '1.5', '', '1e1', ' 5']) {
          const res = await poll(app, `?wait=${encodeURIComponent(wait)}`, pollHeaders(`198.51.100.${40 + wait.length}`));
          expect([wait, res.status, res.body]).toEqual([wait, 400, { error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^wait is .* an integer from 0 to 25$/) } }]);
        }
        // With events buffered, any wait answers at once.
        expect((await send(app, githubDelivery())).status).toBe(200);
        for (const wait of ['0', '25']) {
          const started = performance.now();
          const res = await poll(app, `?wait=${wait}`, pollHeaders('198.51.100.50'));
          expect([res.status, (res.body as unknown[]).length]).toEqual([200, 1]);
          expect(performance.now() - started).toBeLessThan(1_000);
        }
      });

      it('allows 20 polls a minute per IP', async () => {
        const { app } = relay(store);
        for (let i = 0; i < LIMITS.pollsPerMinute; i++) expect((await poll(app)).status).toBe(200);
        expect((await poll(app)).status).toBe(429);
        expect((await poll(app, '', pollHeaders('198.51.100.2'))).status).toBe(200);
      });

      it('returns every event exactly once to a client that passes the cursor back, across small pages and shared milliseconds', async () => {
        const { app } = relay(store);
        // 60 deliveries sent at once land within a few milliseconds of each other.
        const sent = await Promise.all(Array.from({ length: 60 }, (_, i) => send(app, githubDelivery({ number: i, ip: `192.0.2.${i}` }))));
        expect(sent.every((r) => r.status === 200)).toBe(true);
        const seen: string[] = [];
        let since = 0;
        for (let round = 0; round < 19; round++) {
          const page = await poll(app, `?since=${since}&limit=7`, pollHeaders(`198.51.100.${round}`));
          const events = page.body as { id: string; sourceEventId: string }[];
          seen.push(...events.map((e) => e.sourceEventId));
          since = Number(page.cursor);
          if (events.length === 0) break;
        }
        expect(seen.length).toBe(60);
        expect(new Set(seen).size).toBe(60);
      });
    });
  });
}
