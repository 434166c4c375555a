import { afterEach, describe, expect, it } from 'vitest';
import { githubDelivery, pollHeaders, relay } from '../testing.ts';
import { redisStore } from './redis.ts';
import { freePort, hasRedisServer as redisServerInstalled, startRedis } from './redis-server.ts';
import type { RelayStore } from './types.ts';

const hasRedisServer = await redisServerInstalled();

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe.skipIf(!hasRedisServer)('the Redis store', () => {
  it('shares one rate limit and one replay memory between two relay processes', async () => {
    const port = await freePort();
    const server = await startRedis(port);
    cleanup.push(() => server.kill('SIGKILL'));
    const stores: RelayStore[] = [await redisStore(`redis://127.0.0.1:${port}`, () => {}), await redisStore(`redis://127.0.0.1:${port}`, () => {})];
    cleanup.push(() => Promise.all(stores.map((s) => s.close())));
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
    const port = await freePort();
    let server = await startRedis(port);
    const store = await redisStore(`redis://127.0.0.1:${port}`, () => {});
    cleanup.push(() => store.close());
    const { app } = relay(store);
    const send = (n: number) => {
      const d = githubDelivery({ number: n });
      return app.request('/api/webhooks/code_host', { method: 'POST', body: d.body, headers: d.headers });
    };
    expect((await send(1)).status).toBe(200);

    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    const down = await send(2);
    expect([down.status, down.headers.get('retry-after')]).toEqual([503, '5']);

    server = await startRedis(port);
    cleanup.push(() => server.kill('SIGKILL'));
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await send(3)).status;
    }
    expect(status).toBe(200);
  });

  it('hands out every event exactly once while events keep arriving during the polls', async () => {
    const port = await freePort();
    const server = await startRedis(port);
    cleanup.push(() => server.kill('SIGKILL'));
    const store = await redisStore(`redis://127.0.0.1:${port}`, () => {});
    cleanup.push(() => store.close());
    const { app } = relay(store);

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
