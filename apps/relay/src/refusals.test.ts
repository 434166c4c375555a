import { afterEach, describe, expect, it } from 'vitest';
import { createRelayApp } from './app.ts';
import { HOUR_MS, refusalCounter } from './refusals.ts';
import { memoryStore } from './store/memory.ts';
import { StoreUnavailableError, type RelayStore } from './store/types.ts';
import { keysOf, SINGLE_TENANT } from './keys.ts';
import {
  countedOnceEach,
  githubDelivery,
  pollHeaders,
  quietLogger,
  REFUSED_ONCE_EACH,
  refuseOnceEach,
  relay,
  serveRelay,
  testConfig,
  until,
} from './testing.ts';

// The relay's count of the webhooks it turned away (issue 53), on the memory store: each reason, the hours, the
// route's guard, and counts that never make a webhook wait. The Redis stores' side is refusals-stores.test.ts.

/** 10:20 UTC on a day: a clock a test moves by hand, so no count falls on either side of an hour by chance. */
const T = Date.UTC(2026, 10, 22, 10, 20);
const clock = (start = T) => {
  let now = start;
  return { now: () => now, set: (ms: number) => void (now = ms) };
};

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

type App = ReturnType<typeof relay>['app'];
const refusals = async (app: App, query = '?since=0', headers: Record<string, string> = pollHeaders('198.51.100.70'), path = '/api/refusals') => {
  const res = await app.request(`${path}${query}`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { counts?: unknown[]; timestamp?: number; error?: { code: string; message: string } } };
};
const send = async (app: App, delivery: { body: string; headers: Record<string, string> }, path = '/api/webhooks/code_host') =>
  (await app.request(path, { method: 'POST', body: delivery.body, headers: delivery.headers })).status;

describe('refused webhooks, counted per hour', () => {
  it('counts each reason once over real HTTP requests (a 404 not at all) and answers them on GET /api/refusals', async () => {
    const time = clock();
    const served = await serveRelay({ env: { RELAY_DISABLE_DEPLOY_HOST: 'true' }, now: time.now });
    servers.push(served);
    expect(await refuseOnceEach((path, delivery) => served.postTo(path, delivery))).toEqual(REFUSED_ONCE_EACH);

    const res = await fetch(`${served.origin()}/api/refusals?since=${T}`, { headers: pollHeaders() });
    expect([res.status, await res.json()]).toEqual([200, { counts: countedOnceEach(Date.UTC(2026, 10, 22, 10)), timestamp: T }]);
  });

  it('shows a refusal in the next read, before its timed send to the store', async () => {
    const store = memoryStore();
    const time = clock();
    // A counter that would send only after an hour: the read sends what it holds itself.
    const held = refusalCounter({ store, now: time.now, everyMs: HOUR_MS });
    const app = createRelayApp({ config: testConfig(), store, log: quietLogger(), refusals: held, now: time.now });
    expect(await send(app, githubDelivery({ secret: 'wrong' }))).toBe(401);
    const ten = Date.UTC(2026, 10, 22, 10);
    expect(await store.counts([keysOf(SINGLE_TENANT).refusals(ten)])).toEqual([{}]);
    expect((await refusals(app)).body.counts).toEqual([{ hour: ten, integration: 'code_host', reason: 'bad_signature', count: 1 }]);
  });

  it('sends the counts to the store every 2 s without a read, and what is left when it closes', async () => {
    const store = memoryStore();
    const { app, refusals: counter } = relay(store);
    const other = relay(store).app;
    const started = performance.now();
    expect(await send(app, githubDelivery({ secret: 'wrong' }))).toBe(401);
    // Seen through another app on the store, which holds nothing of it: only the timed send can have put it there.
    let reads = 0;
    const read = async () => (await refusals(other, '?since=0', pollHeaders(`198.51.100.${++reads}`))).body.counts ?? [];
    await until(read, (counts) => counts.length === 1, 10_000, 'sent by the timer', 250);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);

    expect(await send(app, githubDelivery({ secret: 'wrong' }))).toBe(401);
    await counter.close();
    expect(await read()).toEqual([expect.objectContaining({ reason: 'bad_signature', count: 2 })]);
  });

  it('keeps each UTC hour apart and answers the hours from the one holding since, newest first, for 48 hours', async () => {
    const time = clock();
    const { app } = relay(memoryStore(), {}, time.now);
    const forged = (n: number) => githubDelivery({ secret: 'wrong', ip: `203.0.113.${n}` });
    expect(await send(app, forged(1))).toBe(401);
    time.set(T + HOUR_MS);
    expect([await send(app, forged(2)), await send(app, forged(3))]).toEqual([401, 401]);
    const [ten, eleven] = [Date.UTC(2026, 10, 22, 10), Date.UTC(2026, 10, 22, 11)];
    const count = (hour: number, n: number) => ({ hour, integration: 'code_host', reason: 'bad_signature', count: n });

    expect((await refusals(app, `?since=${eleven}`)).body).toEqual({ counts: [count(eleven, 2)], timestamp: T + HOUR_MS });
    // Any instant of 10:00-10:59 takes in the whole of that hour.
    expect((await refusals(app, `?since=${ten + 59 * 60_000}`)).body.counts).toEqual([count(eleven, 2), count(ten, 1)]);
    expect((await refusals(app, '')).body.counts).toEqual([count(eleven, 2), count(ten, 1)]);
    expect((await refusals(app, `?since=${T + 2 * HOUR_MS}`)).body.counts).toEqual([]);

    // 48 hours after 10:00-10:59 ended, that hour is gone and 11:00's is the oldest left.
    time.set(ten + 49 * HOUR_MS);
    expect((await refusals(app)).body.counts).toEqual([count(eleven, 2)]);
  });

  it('guards GET /api/refusals like the events poll: the poll secret (401), since (400) and 20 a minute per address (429)', async () => {
    const { app } = relay(memoryStore());
    expect((await refusals(app, '', { 'x-forwarded-for': '198.51.100.80' })).body).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'A valid bearer poll secret is required' },
    });
    expect((await refusals(app, '', pollHeaders('198.51.100.80', 'wrong-secret'))).status).toBe(401);
    for (const since of ['abc', '-1', '1.5', String(2 ** 53)]) {
      expect([since, await refusals(app, `?since=${since}`, pollHeaders('198.51.100.81'))].map((r) => (typeof r === 'string' ? r : [r.status, r.body]))).toEqual([
        since,
        [400, { error: { code: 'BAD_REQUEST', message: 'since is a millisecond timestamp (a non-negative integer)' } }],
      ]);
    }
    // Its own window: the events poll from the same address is not spent by it.
    const ip = '198.51.100.82';
    for (let i = 0; i < 20; i++) expect((await refusals(app, '', pollHeaders(ip))).status).toBe(200);
    const limited = await refusals(app, '', pollHeaders(ip));
    expect([limited.status, limited.body.error?.code]).toEqual([429, 'TOO_MANY_REQUESTS']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await app.request('/api/events', { headers: pollHeaders(ip) })).status).toBe(200);
    expect((await refusals(app, '', pollHeaders('198.51.100.83'))).status).toBe(200);
  });

  it('answers CORS on the refusals route for ALLOWED_ORIGIN only', async () => {
    const { app } = relay(memoryStore(), { ALLOWED_ORIGIN: 'https://dash.example.com' });
    const preflight = await app.request('/api/refusals', {
      method: 'OPTIONS',
      headers: { origin: 'https://dash.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, 'https://dash.example.com']);
    const other = await refusals(app, '', { ...pollHeaders('198.51.100.84'), origin: 'https://evil.example' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const unset = await refusals(relay(memoryStore()).app, '', { ...pollHeaders('198.51.100.85'), origin: 'https://dash.example.com' });
    expect(unset.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps the counts the store did not take and sends them once it is back, counted once', async () => {
    const memory = memoryStore();
    let down = true;
    const store: RelayStore = {
      ...memory,
      addCounts: (increments, ttl) => (down ? Promise.reject(new StoreUnavailableError(new Error('connection refused'))) : memory.addCounts(increments, ttl)),
    };
    const { app } = relay(store);
    expect(await send(app, githubDelivery({ secret: 'wrong' }))).toBe(401);
    const failed = await refusals(app);
    expect([failed.status, failed.body.error?.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    // Webhooks are still answered meanwhile: the count waits, the webhook does not.
    expect(await send(app, githubDelivery({ secret: 'wrong' }))).toBe(401);
    down = false;
    expect((await refusals(app)).body.counts).toEqual([expect.objectContaining({ reason: 'bad_signature', count: 2 })]);
    expect((await refusals(app)).body.counts).toEqual([expect.objectContaining({ reason: 'bad_signature', count: 2 })]);
  });

  it('counts a stored webhook nowhere, and the events poll still answers its plain JSON array', async () => {
    const { app } = relay(memoryStore());
    expect(await send(app, githubDelivery())).toBe(200);
    expect((await refusals(app)).body.counts).toEqual([]);
    const poll = await app.request('/api/events', { headers: pollHeaders() });
    expect(await poll.json()).toEqual([expect.objectContaining({ integration: 'code_host', type: 'pr.merged' })]);
  });
});
