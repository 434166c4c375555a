import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createClient } from 'redis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRelayApp, LIMITS } from './app.ts';
import { keysOf, SINGLE_TENANT } from './keys.ts';
import { memoryStore } from './store/memory.ts';
import { redisStore, upstashStore } from './store/redis.ts';
import { freePort, hasRedisServer, startRedis } from './store/redis-server.ts';
import { storedChannel } from './store/scripts.ts';
import type { RelayStore } from './store/types.ts';
import { startUpstashRestServer } from './store/upstash-rest-server.ts';
import { ADMIN_SECRET, githubDelivery, pollHeaders, quietLogger, relay, testConfig, until } from './testing.ts';

// Long polls over real sockets: a private redis-server (flushed before each test) and the memory store.

const EVENTS = keysOf(SINGLE_TENANT).events;
const CHANNEL = storedChannel(EVENTS);

const withRedis = await hasRedisServer();
const redisPort = await freePort();
const redisServer = withRedis ? await startRedis(redisPort) : undefined;
const redisUrl = `redis://127.0.0.1:${redisPort}`;
const admin = createClient({ url: redisUrl });
admin.on('error', () => {});
if (withRedis) await admin.connect();
afterAll(() => {
  if (withRedis) admin.destroy();
  redisServer?.kill('SIGKILL');
});

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  if (withRedis) await admin.flushAll();
});

/** The relay app over `store` on a real socket; closed (with its connections) after the test. */
async function listen(store: RelayStore, env: Record<string, string> = {}): Promise<string> {
  const app = createRelayApp({ config: testConfig(env), store, log: quietLogger(), socketAddress: (c) => getConnInfo(c).remote.address });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  cleanup.push(async () => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Answer {
  status: number;
  cursor: string | null;
  body: unknown;
  headers: Headers;
  /** performance.now() when the whole answer had arrived. */
  at: number;
}

async function get(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { headers: pollHeaders(), ...init });
  const body = (await res.json()) as unknown;
  return { status: res.status, cursor: res.headers.get('x-relay-timestamp'), body, headers: res.headers, at: performance.now() };
}

async function post(base: string, delivery = githubDelivery(), path = '/api/webhooks/code_host') {
  const res = await fetch(`${base}${path}`, { method: 'POST', body: delivery.body, headers: delivery.headers });
  await res.arrayBuffer();
  return res.status;
}

/**
 * How soon a poll held with wait=5 must be answered once its webhook is stored, here or through Redis by another
 * process: far sooner than the wait (about 100 ms on a quiet machine; a loaded one, running the suite's files side by
 * side, has taken seconds for the webhook's own answer), so the bound is half the wait, which tells a poll woken by
 * its webhook from one answered when its wait ran out, not a speed.
 */
const WOKEN_WITHIN_MS = 2_500;

/** until() as this file waits: `what` within `ms` (2 s unless it says otherwise), looking every 5 ms. */
const soon = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 2_000) => until(read, done, ms, what, 5);

/** How many polls `store` holds, of `key` or of every key: a read for soon(). */
const watchingOf = (store: RelayStore, key?: string) => () => Promise.resolve(store.notices!.watching(key));

const subscribers = async (channel = CHANNEL) => Number((await admin.pubSubNumSub(channel))[channel] ?? 0);

const event = (id: string) => {
  const at = new Date().toISOString();
  return { id, integration: 'code_host' as const, type: 'pr.opened', sourceEventId: id, title: id, severity: 'info' as const, occurredAt: at, receivedAt: at };
};

const stores = [
  { name: 'memory', open: () => Promise.resolve(memoryStore()), available: true },
  { name: 'redis', open: () => redisStore(redisUrl, () => {}), available: withRedis },
];

for (const { name, open, available } of stores) {
  describe.skipIf(!available)(`long poll (wait) on the ${name} store`, () => {
    let store: RelayStore;
    const opened = async () => {
      const s = await open();
      cleanup.push(() => s.close());
      return s;
    };
    it('answers a poll held with wait=5 as a webhook arrives, not when the wait ends, with that event and the usual headers', async () => {
      store = await opened();
      const base = await listen(store);
      // Warms the webhook path (the first request of a file is slow to compile) without storing anything.
      expect(await post(base, githubDelivery({ secret: 'wrong' }))).toBe(401);
      const held = get(`${base}/api/events?wait=5`);
      await soon(watchingOf(store, EVENTS), (n) => n === 1, 'holding the poll');

      const sent = performance.now();
      expect(await post(base, githubDelivery({ number: 7 }))).toBe(200);
      const answer = await held;
      expect(answer.at - sent).toBeLessThan(WOKEN_WITHIN_MS);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([expect.objectContaining({ type: 'pr.merged', sourceEventId: expect.stringContaining(':pr:7:') })]);

      // The same page, cursor and headers a poll without wait gets.
      const plain = await get(`${base}/api/events`, { headers: pollHeaders('198.51.100.2') });
      expect(answer.body).toEqual(plain.body);
      expect(answer.cursor).toBe(plain.cursor);
      expect(Number(answer.cursor)).toBeGreaterThan(0);
      expect([...answer.headers.keys()].sort()).toEqual([...plain.headers.keys()].sort());
      expect(answer.headers.get('content-type')).toBe(plain.headers.get('content-type'));
      expect(store.notices!.watching()).toBe(0);
    });

    it('answers an empty page with the cursor after wait=1 when nothing arrives', async () => {
      store = await opened();
      const base = await listen(store);
      await post(base);
      const { cursor } = await get(`${base}/api/events`);
      expect(Number(cursor)).toBeGreaterThan(0);

      const started = performance.now();
      const answer = await get(`${base}/api/events?since=${cursor}&wait=1`);
      const held = answer.at - started;
      expect([answer.status, answer.body, answer.cursor]).toEqual([200, [], cursor]);
      expect(held).toBeGreaterThanOrEqual(990);
      expect(held).toBeLessThan(1_500);
      expect(store.notices!.watching()).toBe(0);
    });

    // The first read comes back empty, and only then is an event stored: its notice goes out before
    // the poll watches, so only a read after the watch began can find it. The second read is the one
    // after the watch began: an event stored after it comes with a notice while the poll is not yet
    // waiting for one, which must still count.
    for (const [storedAfter, when] of [
      [1, 'between its first, empty read and the start of its watch'],
      [2, 'while it reads again after its watch began'],
    ] as const) {
      it(`finds an event stored ${when}`, async () => {
        store = await opened();
        let reads = 0;
        const racy: RelayStore = {
          ...store,
          poll: async (options) => {
            const page = await store.poll(options);
            if (++reads === storedAfter) {
              const ingest = { rateKey: 'relay:{default}:hits:race', limit: 100, windowMs: 60_000, deliveryKey: 'relay:{default}:delivery:race', dedupeMs: 300_000 };
              expect(await store.ingest({ ...ingest, eventsKey: EVENTS, events: [event('racing')] })).toEqual({ outcome: 'stored' });
            }
            return page;
          },
        };
        const { app } = relay(racy);
        const started = performance.now();
        const res = await app.request('/api/events?wait=5', { headers: pollHeaders() });
        expect(await res.json()).toEqual([expect.objectContaining({ id: 'racing' })]);
        expect(performance.now() - started).toBeLessThan(1_000);
        expect(reads).toBe(storedAfter + 1);
      });
    }

    it('counts a held poll once against the 20-a-minute limit, however often it is woken', async () => {
      store = await opened();
      let reads = 0;
      const counted: RelayStore = {
        ...store,
        poll: (options) => {
          reads++;
          return store.poll(options);
        },
      };
      const base = await listen(counted);
      // A cursor an hour ahead: every webhook wakes the poll, and every read after it is still empty.
      const since = Date.now() + 3_600_000;
      const started = performance.now();
      const held = get(`${base}/api/events?since=${since}&wait=2`);
      await soon(watchingOf(store, EVENTS), (n) => n === 1, 'holding the poll');
      for (let i = 0; i < 3; i++) {
        expect(await post(base, githubDelivery({ number: i }))).toBe(200);
        await soon(() => Promise.resolve(reads), (n) => n >= 3 + i, `woken to read again by webhook ${i + 1}`);
      }
      const answer = await held;
      expect([answer.status, answer.body, answer.cursor]).toEqual([200, [], String(since)]);
      expect(answer.at - started).toBeGreaterThanOrEqual(1_990);
      // The first read, the one after the watch began, and one per webhook.
      expect(reads).toBe(5);

      const rest = [];
      for (let i = 1; i < LIMITS.pollsPerMinute; i++) rest.push((await get(`${base}/api/events`)).status);
      expect(rest).toEqual(Array.from({ length: LIMITS.pollsPerMinute - 1 }, () => 200));
      expect((await get(`${base}/api/events`)).status).toBe(429);
    });

    it('gives back a held poll that an event woke (X-Relay-Poll-Counted: 0), so a client following webhooks keeps its budget', async () => {
      store = await opened();
      const base = await listen(store);
      const plain = [];
      for (let i = 1; i < LIMITS.pollsPerMinute; i++) {
        const answer = await get(`${base}/api/events`);
        plain.push([answer.status, answer.headers.get('x-relay-poll-counted')]);
      }
      expect(plain).toEqual(Array.from({ length: LIMITS.pollsPerMinute - 1 }, () => [200, '1']));
      const { cursor } = await get(`${base}/api/events?limit=1`, { headers: pollHeaders('198.51.100.2') });

      // The 20th: held, then woken by a webhook, and given back.
      const held = get(`${base}/api/events?since=${cursor}&wait=5`);
      await soon(watchingOf(store, EVENTS), (n) => n === 1, 'holding the poll');
      expect(await post(base, githubDelivery({ number: 20 }))).toBe(200);
      const woken = await held;
      expect([woken.status, woken.headers.get('x-relay-poll-counted')]).toEqual([200, '0']);
      expect(woken.body).toEqual([expect.objectContaining({ sourceEventId: expect.stringContaining(':pr:20:') })]);

      // So there is room for one more; an empty held poll that runs out is counted.
      const timedOut = await get(`${base}/api/events?since=${woken.cursor}&wait=1`);
      expect([timedOut.status, timedOut.body, timedOut.headers.get('x-relay-poll-counted')]).toEqual([200, [], '1']);
      expect((await get(`${base}/api/events`)).status).toBe(429);
    });

    it('leaves no watch behind when a client hangs up, and shares one subscription among the polls of a key', async () => {
      store = await opened();
      const base = await listen(store);
      const hangUps = [new AbortController(), new AbortController()];
      const hold = (i: number) => get(`${base}/api/events?wait=20`, { headers: pollHeaders(`198.51.100.${10 + i}`), signal: hangUps[i]!.signal }).catch((e: Error) => e.name);
      // The second joins the first's subscription once it is live.
      const held = [hold(0)];
      await soon(watchingOf(store, EVENTS), (n) => n === 1, 'holding the first poll');
      if (name === 'redis') await soon(subscribers, (n) => n === 1, 'subscribed to the events channel');
      held.push(hold(1));
      await soon(watchingOf(store, EVENTS), (n) => n === 2, 'holding both polls');
      if (name === 'redis') expect(await subscribers()).toBe(1);

      hangUps[0]!.abort();
      await soon(watchingOf(store, EVENTS), (n) => n === 1, 'down to one poll after the first client hung up');
      if (name === 'redis') expect(await subscribers()).toBe(1);

      hangUps[1]!.abort();
      await soon(watchingOf(store), (n) => n === 0, 'rid of every poll after both clients hung up', 1_000);
      if (name === 'redis') await soon(subscribers, (n) => n === 0, 'unsubscribed from the events channel', 1_000);
      expect(await Promise.all(held)).toEqual(['AbortError', 'AbortError']);

      // And a later poll subscribes afresh and is woken.
      const again = get(`${base}/api/events?wait=5`, { headers: pollHeaders('198.51.100.12') });
      await soon(watchingOf(store, EVENTS), (n) => n === 1, 'holding the later poll');
      await post(base);
      expect(((await again).body as unknown[]).length).toBe(1);
    });

    it('ends its held polls at once with the empty page when the store closes', async () => {
      store = await opened();
      const base = await listen(store);
      await post(base);
      const { cursor } = await get(`${base}/api/events`);
      const held = get(`${base}/api/events?since=${cursor}&wait=20`, { headers: pollHeaders('198.51.100.20') });
      await soon(watchingOf(store, EVENTS), (n) => n === 1, 'holding the poll');
      if (name === 'redis') expect(await subscribers()).toBe(1);

      const closing = performance.now();
      await store.close();
      const answer = await held;
      expect(answer.at - closing).toBeLessThan(200);
      expect([answer.status, answer.body, answer.cursor]).toEqual([200, [], cursor]);
      expect(store.notices!.watching()).toBe(0);
      if (name === 'redis') {
        // The subscriber connection is gone, and its subscription with it.
        await soon(subscribers, (n) => n === 0, 'unsubscribed from the events channel', 1_000);
        const pubsubClients = async () => (await admin.sendCommand<string>(['CLIENT', 'LIST', 'TYPE', 'pubsub'])).trim();
        await soon(pubsubClients, (list) => list === '', 'rid of the subscriber connection', 1_000);
      }
    });

    // Redis only: the memory store's reads cannot be held back.
    if (name === 'redis') it('ends a held poll with its empty page when the store closes under the read a notice began', async () => {
      store = await opened();
      const base = await listen(store);
      await post(base);
      const { cursor } = await get(`${base}/api/events`);
      const held = get(`${base}/api/events?since=${cursor}&wait=20`, { headers: pollHeaders('198.51.100.21') });
      await soon(subscribers, (n) => n === 1, 'subscribed to the events channel');

      // A notice without a new event wakes the poll to read again; Redis holds that read back (a paused
      // server holds every script) until the store has closed under it, as a shutdown can.
      await admin.multi().publish(CHANNEL, 'no event').addCommand(['CLIENT', 'PAUSE', '10000', 'WRITE']).exec();
      try {
        await soon(() => admin.info('clients'), (info) => /^blocked_clients:1\r?$/m.test(info), "holding back the woken poll's read (blocked_clients:1)");
        await store.close();
        const answer = await held;
        expect([answer.status, answer.body, answer.cursor]).toEqual([200, [], cursor]);
        expect(store.notices!.watching()).toBe(0);
      } finally {
        await admin.sendCommand(['CLIENT', 'UNPAUSE']);
      }
    });

    it("wakes a tenant's held poll with that tenant's events only", async () => {
      store = await opened();
      const base = await listen(store, { RELAY_ADMIN_SECRET: ADMIN_SECRET });
      const adminHeaders = { authorization: `Bearer ${ADMIN_SECRET}`, 'content-type': 'application/json' };
      const created = await fetch(`${base}/api/tenants`, { method: 'POST', headers: adminHeaders, body: JSON.stringify({ id: 'acme' }) });
      const { pollSecret } = (await created.json()) as { pollSecret: string };
      await fetch(`${base}/api/tenants/acme/secrets`, { method: 'PUT', headers: adminHeaders, body: JSON.stringify({ webhookSecrets: { github: 'acme-secret' } }) });

      const held = get(`${base}/api/t/acme/events?wait=5`, { headers: pollHeaders('198.51.100.30', pollSecret) });
      await soon(watchingOf(store, keysOf('acme').events), (n) => n === 1, "holding acme's poll");
      // Another scope's event leaves it waiting.
      expect(await post(base, githubDelivery({ number: 1 }))).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      expect(store.notices!.watching(keysOf('acme').events)).toBe(1);

      const sent = performance.now();
      expect(await post(base, githubDelivery({ number: 2, secret: 'acme-secret' }), '/api/t/acme/webhooks/code_host')).toBe(200);
      const answer = await held;
      expect(answer.at - sent).toBeLessThan(WOKEN_WITHIN_MS);
      expect(answer.body).toEqual([expect.objectContaining({ sourceEventId: expect.stringContaining(':pr:2:') })]);
    });
  });
}

describe.skipIf(!withRedis)('long poll across relay processes on one Redis', () => {
  it('wakes a poll held by one relay process with a webhook sent to another', async () => {
    const [a, b] = [await redisStore(redisUrl, () => {}), await redisStore(redisUrl, () => {})];
    cleanup.push(() => Promise.all([a.close(), b.close()]));
    const [baseA, baseB] = [await listen(a), await listen(b)];

    const held = get(`${baseB}/api/events?wait=5`);
    await soon(watchingOf(b, EVENTS), (n) => n === 1, 'holding the poll on relay process B');
    expect(a.notices!.watching()).toBe(0);

    const sent = performance.now();
    expect(await post(baseA, githubDelivery({ number: 9 }))).toBe(200);
    const answer = await held;
    expect(answer.at - sent).toBeLessThan(WOKEN_WITHIN_MS);
    expect(answer.body).toEqual([expect.objectContaining({ sourceEventId: expect.stringContaining(':pr:9:') })]);
  });

  it('announces stored events once per group-committed batch, and nothing for a refused webhook', async () => {
    const store = await redisStore(redisUrl, () => {});
    cleanup.push(() => store.close());
    const { app } = relay(store);
    const listener = admin.duplicate();
    await listener.connect();
    cleanup.push(() => listener.destroy());
    const messages: string[] = [];
    await listener.subscribe(CHANNEL, (message) => void messages.push(message));

    const send = async (delivery: ReturnType<typeof githubDelivery>) => app.request('/api/webhooks/code_host', { method: 'POST', body: delivery.body, headers: delivery.headers });
    const together = await Promise.all(Array.from({ length: 8 }, (_, i) => send(githubDelivery({ number: i, ip: `192.0.2.${i}` }))));
    expect(together.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200));
    expect((await send(githubDelivery({ secret: 'wrong' }))).status).toBe(401);

    const page = await store.poll({ eventsKey: EVENTS, since: 0, limit: 100, retentionMs: LIMITS.retentionMs });
    expect(page.events).toHaveLength(8);
    // One script call for the eight, one notice carrying the last position; none for the forgery.
    await soon(() => Promise.resolve(messages), (heard) => heard.length > 0, 'hearing a notice of the stored events');
    await new Promise((r) => setTimeout(r, 50));
    expect(messages).toEqual([String(page.cursor)]);
  });

  it('reads again once its subscriber reconnects, so an event stored while it was cut off still answers the poll', async () => {
    const store = await redisStore(redisUrl, () => {});
    cleanup.push(() => store.close());
    const base = await listen(store);
    const held = get(`${base}/api/events?wait=10`);
    await soon(watchingOf(store, EVENTS), (n) => n === 1, 'holding the poll');

    // Keep the subscriber out once it is cut off: no new connection is let in until maxclients is restored.
    const info = await admin.sendCommand<string>(['INFO', 'clients']);
    const connected = Number(/connected_clients:(\d+)/.exec(info)?.[1]);
    await admin.sendCommand(['CONFIG', 'SET', 'maxclients', String(connected - 1)]);
    cleanup.push(() => admin.sendCommand(['CONFIG', 'SET', 'maxclients', '10000']));
    await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    expect(await post(base)).toBe(200);
    expect(await subscribers()).toBe(0);
    // Nobody heard that event's notice: the poll is still held.
    const early = await Promise.race([held, new Promise((r) => setTimeout(r, 300, 'held'))]);
    expect(early).toBe('held');

    const restored = performance.now();
    await admin.sendCommand(['CONFIG', 'SET', 'maxclients', '10000']);
    const answer = await held;
    expect((answer.body as unknown[]).length).toBe(1);
    // Within its reconnect backoff, far from the 10 s the poll would otherwise be held.
    expect(answer.at - restored).toBeLessThan(3_000);
  });
});

describe.skipIf(!withRedis)('long poll on the Upstash REST store', () => {
  it('answers a poll with wait=5 at once with the empty page, as REST cannot carry notices', async () => {
    const rest = await startUpstashRestServer(redisUrl, 'token');
    cleanup.push(() => rest.close());
    const store = upstashStore(rest.url, 'token');
    cleanup.push(() => store.close());
    expect(store.notices).toBeUndefined();
    const base = await listen(store);
    await post(base);
    const { cursor } = await get(`${base}/api/events`);

    const started = performance.now();
    const answer = await get(`${base}/api/events?since=${cursor}&wait=5`);
    expect([answer.status, answer.body, answer.cursor]).toEqual([200, [], cursor]);
    expect(answer.at - started).toBeLessThan(500);
  });
});
