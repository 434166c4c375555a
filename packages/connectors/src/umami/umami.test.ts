import { analyticsSchema } from '@dash/contracts';
import { sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DailyValue } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { umami } from './index.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 4, 14, 15, 30);
const day = (ago: number) => new Date(NOW - ago * DAY).toISOString().slice(0, 10);
const POCKET_LEDGER_IOS = '3f1c2a9e-6d4b-4e1f-9a7c-2b5d8e0f1a34';
const TIDELINE_ANDROID = '8a0e4c71-2f9d-4b3a-8e6c-5d1f7a2b9c03';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => NOW });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
afterEach(() => sandbox.limit('umami', { limit: 50, windowMs: 15_000 }));

/** A context whose requests say "answer as Umami v2" to the fake (its test switch). */
function oldServer(ctx: ConnectorContext): ConnectorContext {
  const fetch: typeof globalThis.fetch = (input, init) =>
    globalThis.fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-sandbox-umami-shape': 'old' } });
  return { ...ctx, fetch };
}

/** What the fake itself answers at a path (and query), read without the connector. */
async function fakeAnswer<T>(path: string): Promise<T> {
  const response = await fetch(`${sandbox.services.umami.baseUrl}${path}`, { headers: { 'x-umami-api-key': sandboxTokens.umami } });
  return (await response.json()) as T;
}

/** What the fake itself answers for the stats, to check the arithmetic against. */
const rawStats = (startAt: number) =>
  fakeAnswer<{ visits: number; bounces: number; totaltime: number }>(`/websites/${POCKET_LEDGER_IOS}/stats?startAt=${startAt}&endAt=${NOW}`);

describe('Umami connector', () => {
  it('maps the current (flat) stats shape: bounce rate and average visit from counts, pages with their visitors', async () => {
    const out = await umami.analytics(sandboxContext(sandbox, 'umami'), { siteId: POCKET_LEDGER_IOS, range: '30d', now: NOW });
    expect(analyticsSchema.parse(out)).toEqual(out);
    const paths = sandbox.requestsTo('umami').map((r) => r.path);
    const raw = await rawStats(Date.parse(`${day(29)}T00:00:00Z`));
    expect(out.sessions).toBe(raw.visits);
    expect(out.bounceRate).toBeCloseTo((raw.bounces / raw.visits) * 100, 1);
    expect(out.avgDuration).toBe(Math.round(raw.totaltime / raw.visits));
    expect(out.visitors).toBeGreaterThan(10_000);
    expect(out.pageViews).toBeGreaterThan(3 * out.sessions);
    expect(out.topPages).toHaveLength(10);
    expect(out.topPages[0]?.path).toBe('/budgets');
    for (const page of out.topPages) expect(page.uniqueVisitors).toBeLessThan(page.views);
    expect(out.referrers[0]?.source).toBe('apps.apple.com');
    expect(out.referrers).toHaveLength(10);
    expect(out.chart).toHaveLength(30);
    expect(out.chart?.at(-1)?.date).toBe(day(0));
    // The App Store feature 20 days ago is the month's peak.
    expect(out.chart?.reduce((a, b) => (b.visitors > a.visitors ? b : a)).date).toBe(day(20));
    expect(out.liveVisitors).toBeGreaterThan(0);
    expect(paths).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/websites\/[^/]+\/stats\?startAt=\d+&endAt=\d+$/),
        expect.stringContaining('/metrics/expanded?type=path&limit=10&'),
        expect.stringContaining('/metrics?type=referrer&limit=10&'),
        expect.stringContaining('/pageviews?unit=day&timezone=UTC&'),
        expect.stringMatching(/\/active$/),
      ]),
    );
    expect(paths).toHaveLength(5);
  });

  it('reads an older server’s `{ value, prev }` stats and `{ x }` active count to the same numbers', async () => {
    const current = await umami.analytics(sandboxContext(sandbox, 'umami'), { siteId: TIDELINE_ANDROID, range: '7d', now: NOW });
    sandbox.reset();
    const old = await umami.analytics(oldServer(sandboxContext(sandbox, 'umami')), { siteId: TIDELINE_ANDROID, range: '7d', now: NOW });
    expect(analyticsSchema.parse(old)).toEqual(old);
    const { topPages: _a, ...currentRest } = current;
    const { topPages: _b, ...oldRest } = old;
    expect(oldRest).toEqual(currentRest);
    expect(old.liveVisitors).toBeGreaterThan(0);
    // No per-page visitors before v3: the url metric's views stand in for them.
    expect(old.topPages[0]).toMatchObject({ path: '/today' });
    for (const page of old.topPages) expect(page.uniqueVisitors).toBe(page.views);
    expect(sandbox.requestsTo('umami').map((r) => [r.path.replace(/\?.*/, ''), r.status])).toEqual(
      expect.arrayContaining([
        [`/v1/websites/${TIDELINE_ANDROID}/metrics/expanded`, 404],
        [`/v1/websites/${TIDELINE_ANDROID}/metrics`, 200],
      ]),
    );
    expect(sandbox.requestsTo('umami', `/v1/websites/${TIDELINE_ANDROID}/metrics?type=url&limit=10`)).toHaveLength(1);
  });

  it('asks every list for just the top 10 in one request (Umami does not page these)', async () => {
    const out = await umami.analytics(sandboxContext(sandbox, 'umami'), { siteId: TIDELINE_ANDROID, range: '1y', now: NOW });
    expect(out.chart).toHaveLength(365);
    expect(sandbox.requestsTo('umami', `/v1/websites/${TIDELINE_ANDROID}/metrics`)).toHaveLength(2);
    expect(sandbox.requestsTo('umami').every((r) => !r.path.includes('offset='))).toBe(true);
  });

  it('starts the `all` chart at the first day with visitors', async () => {
    const out = await umami.analytics(sandboxContext(sandbox, 'umami'), { siteId: POCKET_LEDGER_IOS, range: 'all', now: NOW });
    expect(out.chart?.[0]?.date).toBe(day(700));
    expect(out.chart).toHaveLength(701);
  });

  it('sends Umami Cloud’s x-umami-api-key to api.umami.is and a Bearer token to a self-hosted server', async () => {
    const seen: Record<string, string>[] = [];
    const via = (ctx: ConnectorContext, baseUrl: string): ConnectorContext => ({
      ...ctx,
      baseUrl,
      fetch: (input, init) => {
        seen.push({ ...(init?.headers as Record<string, string>) });
        const url = new URL(input instanceof Request ? input.url : input);
        return globalThis.fetch(`${sandbox.services.umami.url}${url.pathname}${url.search}`, init);
      },
    });
    await umami.test(via(sandboxContext(sandbox, 'umami'), 'https://api.umami.is/v1'));
    await umami.test(via(sandboxContext(sandbox, 'umami'), 'https://stats.example.com/v1'));
    expect(seen[0]).toMatchObject({ 'x-umami-api-key': sandboxTokens.umami });
    expect(seen[0]).not.toHaveProperty('authorization');
    expect(seen[1]).toMatchObject({ authorization: `Bearer ${sandboxTokens.umami}` });
    expect(seen[1]).not.toHaveProperty('x-umami-api-key');
    expect(sandbox.requestsTo('umami').map((r) => [r.path, r.status])).toEqual([
      ['/v1/websites?pageSize=1', 200],
      ['/v1/websites?pageSize=1', 200],
    ]);
  });

  it('says the key was rejected, with Umami’s reason and without the key, in both error shapes', async () => {
    const ctx = sandboxContext(sandbox, 'umami', { credentials: { apiKey: 'api_wrongUmamiKey77' } });
    for (const attempt of [ctx, oldServer(ctx)]) {
      const error = await umami.test(attempt).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectorError);
      expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'Umami rejected the credentials (401): Unauthorized' });
      expect((error as Error).message).not.toContain('api_wrongUmamiKey77');
    }
    await expect(umami.test(sandboxContext(sandbox, 'umami'))).resolves.toBeUndefined();
  });

  it('treats a website the key cannot see as an auth error, as Umami answers 401', async () => {
    await expect(
      umami.analytics(sandboxContext(sandbox, 'umami'), { siteId: '00000000-0000-4000-8000-000000000000', range: '7d', now: NOW }),
    ).rejects.toMatchObject({ kind: 'auth' });
  });

  it('backs off on 429 as Retry-After says, then succeeds', async () => {
    const clock = testClock();
    sandbox.inject('umami', { status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'Too many requests', code: 'too-many-requests', status: 429 } }, times: 1 });
    await umami.test(sandboxContext(sandbox, 'umami', { clock }));
    expect(clock.slept).toContain(2000);
    expect(sandbox.requestsTo('umami').map((r) => r.status)).toEqual([429, 200]);
  });

  it('gives up at once when Umami Cloud’s 15-second window is longer than a request may wait', async () => {
    sandbox.limit('umami', { limit: 1, windowMs: 15_000 });
    const ctx = sandboxContext(sandbox, 'umami');
    await umami.test(ctx);
    const error = await umami.test(ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 15_000, message: 'Umami is rate limiting us (429): Too many requests' });
    expect(sandbox.requestsTo('umami').map((r) => r.status)).toEqual([200, 429]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('umami', { status: 500, body: { error: { message: 'Server error', code: 'server-error', status: 500 } } });
    const error = await umami.test(sandboxContext(sandbox, 'umami')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'Umami failed (500): Server error' });
    expect(sandbox.requestsTo('umami')).toHaveLength(3);
  });

  it('turns a body that is not JSON, or stats in neither shape, into a clear bad_response error', async () => {
    sandbox.inject('umami', { malformed: true, times: 1 });
    await expect(umami.test(sandboxContext(sandbox, 'umami'))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Umami answered 200 with something that is not JSON',
    });
    sandbox.inject('umami', { status: 200, body: { pageviews: 'many', visitors: null } });
    await expect(umami.analytics(sandboxContext(sandbox, 'umami'), { siteId: POCKET_LEDGER_IOS, range: '7d', now: NOW })).rejects.toMatchObject({
      kind: 'bad_response',
    });
  });
});

const history = umami.history!;
const read = (siteId: string, from: string, to: string, ctx: ConnectorContext = sandboxContext(sandbox, 'umami')) => history.series(ctx, { siteId, from, to, now: NOW });
const of = (values: DailyValue[], metric: DailyValue['metric']) => values.filter((v) => v.metric === metric);

/** The fake's own page views series for a window. */
const rawSeries = (siteId: string, startAt: number, endAt: number) =>
  fakeAnswer<{ pageviews: { x: string; y: number }[]; sessions: { x: string; y: number }[] }>(`/websites/${siteId}/pageviews?unit=day&timezone=UTC&startAt=${startAt}&endAt=${endAt}`);

describe('Umami daily series', () => {
  it('backfills a year of visitors (sessions) and page views, asked by day in parts Umami answers by day', async () => {
    expect(history.seriesDays).toBe(365);
    const values = await read(POCKET_LEDGER_IOS, day(364), day(0));
    const asked = sandbox.requestsTo('umami').map((r) => new URL(r.path, 'http://umami').searchParams);
    expect(asked).toHaveLength(5);
    for (const query of asked) {
      expect([query.get('unit'), query.get('timezone')]).toEqual(['day', 'UTC']);
      // Umami answers by day only up to 90 days (six calendar months on current servers).
      expect(Number(query.get('endAt')) - Number(query.get('startAt'))).toBeLessThan(90 * DAY);
    }
    expect(Number(asked[0]?.get('startAt'))).toBe(Date.parse(`${day(364)}T00:00:00Z`));
    expect(Number(asked.at(-1)?.get('endAt'))).toBe(NOW);
    // Consecutive parts, none overlapping: each day is read once.
    for (let i = 1; i < asked.length; i++) expect(Number(asked[i]?.get('startAt'))).toBe(Number(asked[i - 1]?.get('endAt')) + 1);

    const raw = await rawSeries(POCKET_LEDGER_IOS, Date.parse(`${day(364)}T00:00:00Z`), NOW);
    const expected = (points: { x: string; y: number }[]) => points.map((p) => ({ date: p.x.slice(0, 10), value: p.y }));
    expect(of(values, 'analytics.visitors').map(({ date, value }) => ({ date, value }))).toEqual(expected(raw.sessions));
    expect(of(values, 'analytics.pageviews').map(({ date, value }) => ({ date, value }))).toEqual(expected(raw.pageviews));
    expect(of(values, 'analytics.visitors')).toHaveLength(365);
    // The App Store feature 20 days ago is the year's busiest day.
    expect(of(values, 'analytics.visitors').reduce((a, b) => (b.value > a.value ? b : a)).date).toBe(day(20));
  });

  it('reads a day without a bucket as 0 once the app has data, and leaves the days before its first out', async () => {
    // Tideline Android sent nothing 33 days ago (a release without the SDK); its first day was 800 days ago.
    const recent = await read(TIDELINE_ANDROID, day(35), day(31));
    for (const metric of ['analytics.visitors', 'analytics.pageviews'] as const) {
      expect(of(recent, metric).map((v) => [v.date, v.value === 0])).toEqual([
        [day(35), false],
        [day(34), false],
        [day(33), true],
        [day(32), false],
        [day(31), false],
      ]);
    }
    const launch = of(await read(TIDELINE_ANDROID, day(810), day(795)), 'analytics.visitors');
    expect(launch.map((v) => v.date)).toEqual(Array.from({ length: 6 }, (_, i) => day(800 - i)));
  });

  it('keeps to the window and asks nothing after today', async () => {
    const values = await read(POCKET_LEDGER_IOS, day(3), day(-4));
    expect(of(values, 'analytics.pageviews').map((v) => v.date)).toEqual([day(3), day(2), day(1), day(0)]);
    expect(await read(POCKET_LEDGER_IOS, day(-1), day(-2))).toEqual([]);
    expect(sandbox.requestsTo('umami')).toHaveLength(1);
  });

  it('classifies a rejected key as auth and Umami Cloud’s limit as rate limited, as the other calls do', async () => {
    const rejected = sandboxContext(sandbox, 'umami', { credentials: { apiKey: 'not-a-key' } });
    await expect(read(POCKET_LEDGER_IOS, day(6), day(0), rejected)).rejects.toMatchObject({ kind: 'auth', retryable: false });
    sandbox.limit('umami', { limit: 0, windowMs: 15_000 });
    const error = await read(POCKET_LEDGER_IOS, day(6), day(0), sandboxContext(sandbox, 'umami', { clock: testClock(NOW) })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limited' });
  });
});
