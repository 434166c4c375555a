import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from './app.ts';
import { memoryStore } from './store/memory.ts';
import { redisStore } from './store/redis.ts';
import { freePort, hasRedisServer, startRedis } from './store/redis-server.ts';
import type { RelayStore } from './store/types.ts';
import { ADMIN_SECRET, githubDelivery, pollHeaders, serveRelay } from './testing.ts';

// Who may use the relay's admin API and tenant routes, over a real socket as curl would ask.

const withRedis = await hasRedisServer();
const redisPort = await freePort();
const redisServer = withRedis ? await startRedis(redisPort) : undefined;
afterAll(() => {
  redisServer?.kill('SIGKILL');
});
if (!withRedis) {
  if (process.env.CI === 'true') throw new Error('CI=true needs redis-server for the relay access tests');
  console.warn('*** redis-server is not installed: the relay access tests run on the memory store only ***');
}

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const stores: { name: string; open: () => Promise<RelayStore>; available: boolean }[] = [
  { name: 'memory', open: () => Promise.resolve(memoryStore()), available: true },
  {
    name: 'redis',
    open: async () => {
      const store = await redisStore(`redis://127.0.0.1:${redisPort}`, () => {});
      cleanup.push(async () => {
        await store.close();
        const { createClient } = await import('redis');
        const admin = createClient({ url: `redis://127.0.0.1:${redisPort}` });
        await admin.connect();
        await admin.flushAll();
        admin.destroy();
      });
      return store;
    },
    available: withRedis,
  },
];

async function served(store: RelayStore, env: Record<string, string>) {
  const relay = await serveRelay({ store, env });
  cleanup.push(() => relay.close());
  return relay;
}

/** An answer as a client sees it: status, body, and every header but Date (which only tells the time). */
async function answer(res: Response) {
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));
  return { status: res.status, body: await res.text(), headers };
}

const adminCall = (origin: string, ip: string, secret?: string) =>
  fetch(`${origin}/api/tenants`, { headers: { 'x-forwarded-for': ip, ...(secret === undefined ? {} : { authorization: `Bearer ${secret}` }) } });

for (const { name, open, available } of stores) {
  describe.skipIf(!available)(`the relay's admin API and tenants (${name} store)`, () => {
    it(`answers 429 with Retry-After after ${LIMITS.adminFailuresPerMinute} failed admin sign-ins from one address, and never to a correct secret from another`, async () => {
      const relay = await served(await open(), { RELAY_ADMIN_SECRET: ADMIN_SECRET });
      const attacker = '203.0.113.66';
      for (let i = 0; i < LIMITS.adminFailuresPerMinute; i++) {
        const res = await adminCall(relay.origin(), attacker, i % 2 ? `guess-${i}` : undefined);
        expect([i, res.status]).toEqual([i, 401]);
        await res.arrayBuffer();
      }
      const limited = await adminCall(relay.origin(), attacker, 'one-more-guess');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(await limited.json()).toEqual({ error: { code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/failed admin sign-ins/) } });
      // Over the limit, the answer says nothing about the guess: the right secret from there waits too.
      expect((await adminCall(relay.origin(), attacker, ADMIN_SECRET)).status).toBe(429);

      // The owner, elsewhere, is not held up by it.
      const owner = await adminCall(relay.origin(), '198.51.100.77', ADMIN_SECRET);
      expect([owner.status, await owner.json()]).toEqual([200, { tenants: [] }]);
    });

    it('counts only failures: an address using the right secret many times is never limited', async () => {
      const relay = await served(await open(), { RELAY_ADMIN_SECRET: ADMIN_SECRET });
      for (let i = 0; i < LIMITS.adminFailuresPerMinute * 3; i++) {
        const res = await adminCall(relay.origin(), '198.51.100.78', ADMIN_SECRET);
        expect([i, res.status]).toEqual([i, 200]);
        await res.arrayBuffer();
      }
      // A few failures from that address still leave it room.
      for (let i = 0; i < LIMITS.adminFailuresPerMinute - 1; i++) expect((await adminCall(relay.origin(), '198.51.100.78', 'typo')).status).toBe(401);
      expect((await adminCall(relay.origin(), '198.51.100.78', ADMIN_SECRET)).status).toBe(200);
    });

    it('without TRUST_PROXY, counts failures against the socket address whatever X-Forwarded-For says', async () => {
      const relay = await served(await open(), { RELAY_ADMIN_SECRET: ADMIN_SECRET, TRUST_PROXY: 'false' });
      for (let i = 0; i < LIMITS.adminFailuresPerMinute; i++) expect((await adminCall(relay.origin(), `192.0.2.${i}`, 'guess')).status).toBe(401);
      expect((await adminCall(relay.origin(), '192.0.2.200', 'guess')).status).toBe(429);
    });

    it('answers an unknown tenant exactly as a wrong secret, on its polls and its webhooks', async () => {
      const relay = await served(await open(), { RELAY_ADMIN_SECRET: ADMIN_SECRET });
      const admin = { authorization: `Bearer ${ADMIN_SECRET}`, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.1' };
      const created = await fetch(`${relay.origin()}/api/tenants`, { method: 'POST', headers: admin, body: JSON.stringify({ id: 'acme' }) });
      const { pollSecret } = (await created.json()) as { pollSecret: string };
      expect(pollSecret.length).toBeGreaterThanOrEqual(32);
      await fetch(`${relay.origin()}/api/tenants/acme/secrets`, { method: 'PUT', headers: admin, body: JSON.stringify({ webhookSecrets: { github: 'acme-signing-secret' } }) });

      const poll = async (tenant: string, ip: string, secret?: string) =>
        answer(await fetch(`${relay.origin()}/api/t/${tenant}/events`, { headers: secret === undefined ? { 'x-forwarded-for': ip } : pollHeaders(ip, secret) }));
      const wrongSecret = await poll('acme', '203.0.113.10', 'guessed-poll-secret');
      expect(wrongSecret.status).toBe(401);
      // An unknown id (well-formed or not, and even with a real tenant's secret) gets those same bytes.
      expect(await poll('nobody', '203.0.113.11', 'guessed-poll-secret')).toEqual(wrongSecret);
      expect(await poll('nobody', '203.0.113.12', pollSecret)).toEqual(wrongSecret);
      expect(await poll('Not_A_Tenant!', '203.0.113.13', 'guessed-poll-secret')).toEqual(wrongSecret);
      expect(await poll('nobody', '203.0.113.14')).toEqual(await poll('acme', '203.0.113.15'));
      // They take the same steps too: the poll rate limit applies to an unknown id as to a tenant.
      for (let i = 0; i < LIMITS.pollsPerMinute; i++) await poll('nobody', '203.0.113.20', 'guess');
      for (let i = 0; i < LIMITS.pollsPerMinute; i++) await poll('acme', '203.0.113.21', 'guess');
      const [unknownLimited, knownLimited] = [await poll('nobody', '203.0.113.20', 'guess'), await poll('acme', '203.0.113.21', 'guess')];
      expect([unknownLimited.status, unknownLimited.body]).toEqual([knownLimited.status, knownLimited.body]);
      expect(unknownLimited.status).toBe(429);

      const deliver = async (tenant: string, secret: string, ip: string) => {
        const delivery = githubDelivery({ secret, ip, deliveryId: `d-${ip}` });
        return answer(await fetch(`${relay.origin()}/api/t/${tenant}/webhooks/github`, { method: 'POST', body: delivery.body, headers: delivery.headers }));
      };
      const forged = await deliver('acme', 'guessed-signing-secret', '203.0.113.30');
      expect(forged.status).toBe(401);
      expect(await deliver('nobody', 'guessed-signing-secret', '203.0.113.31')).toEqual(forged);
      expect(await deliver('nobody', 'acme-signing-secret', '203.0.113.32')).toEqual(forged);
      expect(await deliver('Not_A_Tenant!', 'guessed-signing-secret', '203.0.113.33')).toEqual(forged);

      // The tenant itself still works.
      expect((await deliver('acme', 'acme-signing-secret', '203.0.113.40')).status).toBe(200);
      const events = await fetch(`${relay.origin()}/api/t/acme/events`, { headers: pollHeaders('203.0.113.41', pollSecret) });
      expect([events.status, ((await events.json()) as unknown[]).length]).toEqual([200, 1]);
      // Nothing reached the single-tenant relay's events.
      expect(await (await fetch(`${relay.origin()}/api/events`, { headers: pollHeaders('203.0.113.42') })).json()).toEqual([]);
    });
  });
}
