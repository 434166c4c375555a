import { analyticsSchema } from '@dash/contracts';
import { startSandbox, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DailyValue } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { plausible } from './index.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
// A fixed afternoon (a Thursday), so the story and the day boundaries are the same on every run.
const NOW = Date.UTC(2026, 4, 14, 15, 30);
const day = (ago: number) => new Date(NOW - ago * DAY).toISOString().slice(0, 10);

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => NOW, observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
afterEach(() => sandbox.limit('plausible', { limit: 600, windowMs: HOUR }));

/** A context whose fetch also keeps every JSON body the connector sent, to check the queries themselves. */
function recording(ctx: ConnectorContext): { ctx: ConnectorContext; sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
    return globalThis.fetch(input, init);
  };
  return { ctx: { ...ctx, fetch }, sent };
}

describe('Plausible connector', () => {
  it('maps Formfox’s last 30 days: totals, top pages, sources, the Hacker News spike and live visitors', async () => {
    const out = await plausible.analytics(sandboxContext(sandbox, 'plausible'), { siteId: 'formfox.io', range: '30d', now: NOW });
    expect(analyticsSchema.parse(out)).toEqual(out);
    expect(out.visitors).toBeGreaterThan(10_000);
    expect(out.sessions).toBeGreaterThan(out.visitors);
    expect(out.pageViews).toBeGreaterThan(2 * out.sessions);
    // A percentage, not Plausible's fraction mistaken for one; an average in seconds.
    expect(out.bounceRate).toBeGreaterThan(20);
    expect(out.bounceRate).toBeLessThan(70);
    expect(out.avgDuration).toBeGreaterThan(60);
    expect(out.avgDuration).toBeLessThan(300);
    expect(out.topPages).toHaveLength(10);
    expect(out.topPages.slice(0, 2).map((p) => p.path)).toEqual(['/', '/pricing']);
    for (const page of out.topPages) expect(page.uniqueVisitors).toBeLessThan(page.views);
    expect(out.referrers).toHaveLength(10);
    expect(out.referrers.map((r) => r.source)).toEqual(expect.arrayContaining(['Google', 'Direct / None', 'Hacker News', 'Reddit']));
    expect(out.chart).toHaveLength(30);
    expect(out.chart?.[0]?.date).toBe(day(29));
    expect(out.chart?.at(-1)?.date).toBe(day(0));
    const peak = out.chart?.reduce((a, b) => (b.visitors > a.visitors ? b : a));
    expect(peak?.date).toBe(day(9));
    expect(Number.isInteger(out.liveVisitors)).toBe(true);
    expect(out.liveVisitors).toBeGreaterThan(0);
  });

  it('asks Stats API v2 with explicit dates ending today and the realtime endpoint for the site', async () => {
    const { ctx, sent } = recording(sandboxContext(sandbox, 'plausible'));
    await plausible.analytics(ctx, { siteId: 'formfox.io', range: '7d', now: NOW });
    const range = [day(6), day(0)];
    expect(sent).toEqual(
      expect.arrayContaining([
        { site_id: 'formfox.io', date_range: range, metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration'] },
        expect.objectContaining({ site_id: 'formfox.io', date_range: range, metrics: ['visitors', 'pageviews'], dimensions: ['event:page'], pagination: { limit: 10, offset: 0 } }),
        expect.objectContaining({ site_id: 'formfox.io', date_range: range, metrics: ['visitors'], dimensions: ['visit:source'] }),
        expect.objectContaining({ site_id: 'formfox.io', date_range: range, metrics: ['visitors'], dimensions: ['time:day'] }),
      ]),
    );
    expect(sent).toHaveLength(4);
    expect(sandbox.requestsTo('plausible').map((r) => `${r.method} ${r.path} ${r.status}`).sort()).toEqual([
      'GET /api/v1/stats/realtime/visitors?site_id=formfox.io 200',
      'POST /api/v2/query 200',
      'POST /api/v2/query 200',
      'POST /api/v2/query 200',
      'POST /api/v2/query 200',
    ]);
  });

  it('gives every day of the range a chart point, 0 for the day Plausible has no bucket for', async () => {
    const out = await plausible.analytics(sandboxContext(sandbox, 'plausible'), { siteId: 'pocketledger.app', range: '15d', now: NOW });
    expect(out.chart).toHaveLength(15);
    expect(out.chart?.find((p) => p.date === day(12))).toEqual({ date: day(12), visitors: 0 });
    expect(out.chart?.filter((p) => p.visitors === 0)).toHaveLength(1);
  });

  it('pages through the daily chart for `all` and starts it at the first day with visitors', async () => {
    const { ctx, sent } = recording(sandboxContext(sandbox, 'plausible'));
    const out = await plausible.analytics(ctx, { siteId: 'tideline.app', range: 'all', now: NOW });
    const chartQueries = sent.filter((q) => JSON.stringify(q.dimensions) === '["time:day"]');
    expect(chartQueries.map((q) => q.pagination)).toEqual([
      { limit: 500, offset: 0 },
      { limit: 500, offset: 500 },
      { limit: 500, offset: 1000 },
    ]);
    for (const q of chartQueries) expect(q.date_range).toEqual([day(5 * 365 - 1), day(0)]);
    expect(sandbox.requestsTo('plausible', '/api/v2/query')).toHaveLength(6);
    // Tideline's site launched 1400 days ago: 1401 days of chart, none of the years before.
    expect(out.chart).toHaveLength(1401);
    expect(out.chart?.[0]?.date).toBe(day(1400));
    expect(analyticsSchema.parse(out)).toEqual(out);
  });

  it('says the key was rejected, with Plausible’s reason and without the key', async () => {
    const ctx = sandboxContext(sandbox, 'plausible', { credentials: { apiKey: 'wrong-key-8842' } });
    const error = await plausible.analytics(ctx, { siteId: 'formfox.io', range: '7d', now: NOW }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({
      kind: 'auth',
      retryable: false,
      message: "Plausible rejected the credentials (401): Invalid API key or site ID. Please make sure you're using a valid API key with access to the site you've requested.",
    });
    expect((error as Error).message).not.toContain('wrong-key-8842');
  });

  it('treats a site the key cannot see as an auth error too, as Plausible does', async () => {
    await expect(plausible.analytics(sandboxContext(sandbox, 'plausible'), { siteId: 'not-mine.example', range: '7d', now: NOW })).rejects.toMatchObject({
      kind: 'auth',
      message: expect.stringContaining('Invalid API key or site ID') as string,
    });
  });

  it('checks credentials with the key alone: ok for the demo key, 401 for another', async () => {
    await expect(plausible.test(sandboxContext(sandbox, 'plausible'))).resolves.toBeUndefined();
    expect(sandbox.requestsTo('plausible').map((r) => [r.path, r.status])).toEqual([['/api/v1/stats/realtime/visitors', 400]]);
    const error = await plausible.test(sandboxContext(sandbox, 'plausible', { credentials: { apiKey: 'nope-123' } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', message: expect.stringContaining('(401): Invalid API key') as string });
  });

  it('on a 429 near the top of the hour waits for the new hourly budget (no Retry-After), then succeeds', async () => {
    const clock = testClock(Date.UTC(2026, 4, 14, 15, 59, 57));
    sandbox.inject('plausible', {
      status: 429,
      body: { error: 'Too many API requests. Your API key is limited to 600 requests per hour. Please contact us to request more capacity.' },
      times: 1,
    });
    await plausible.test(sandboxContext(sandbox, 'plausible', { clock }));
    expect(clock.slept).toContain(3000);
    expect(sandbox.requestsTo('plausible').map((r) => r.status)).toEqual([429, 400]);
  });

  it('on a 429 mid-hour fails at once as rate limited until the top of the hour, with Plausible’s reason', async () => {
    const clock = testClock(Date.UTC(2026, 4, 14, 15, 20));
    sandbox.limit('plausible', { limit: 1, windowMs: HOUR });
    const ctx = sandboxContext(sandbox, 'plausible', { clock });
    await plausible.test(ctx);
    const error = await plausible.test(ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 40 * 60_000,
      message: 'Plausible is rate limiting us (429): Too many API requests. Your API key is limited to 600 requests per hour. Please contact us to request more capacity.',
    });
    expect(sandbox.requestsTo('plausible').map((r) => r.status)).toEqual([400, 429]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('plausible', { status: 502, body: { error: 'Bad gateway' } });
    const error = await plausible.test(sandboxContext(sandbox, 'plausible')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'Plausible failed (502): Bad gateway' });
    expect(sandbox.requestsTo('plausible')).toHaveLength(3);
  });

  it('turns a body that is not JSON, or not the v2 shape, into a clear bad_response error', async () => {
    sandbox.inject('plausible', { malformed: true, times: 1 });
    await expect(plausible.test(sandboxContext(sandbox, 'plausible'))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Plausible answered 200 with something that is not JSON',
    });
    sandbox.inject('plausible', { status: 200, body: { results: { visitors: { value: 3 } } } });
    await expect(plausible.analytics(sandboxContext(sandbox, 'plausible'), { siteId: 'formfox.io', range: '7d', now: NOW })).rejects.toMatchObject({
      kind: 'bad_response',
    });
  });
});

describe('Plausible live visitors', () => {
  it('asks the realtime endpoint alone, for the short-lived live count', async () => {
    const own = await startSandbox({ observe });
    try {
      const live = await plausible.live?.(sandboxContext(own, 'plausible'), { siteId: 'formfox.io' });
      expect(live).toBeGreaterThanOrEqual(0);
      expect(own.requestsTo('plausible').map((r) => r.path)).toEqual(['/api/v1/stats/realtime/visitors?site_id=formfox.io']);
    } finally {
      await own.close();
    }
  });
});

const history = plausible.history!;
const read = (siteId: string, from: string, to: string, ctx: ConnectorContext = sandboxContext(sandbox, 'plausible')) =>
  history.series(ctx, { siteId, from, to, now: NOW });
const of = (values: DailyValue[], metric: DailyValue['metric']) => values.filter((v) => v.metric === metric);
const byDate = (values: DailyValue[]) => new Map(values.map((v) => [v.date, v.value]));

describe('Plausible daily series', () => {
  it('backfills two years of visitors and page views in one paged time:day query, from the site’s first day', async () => {
    expect(history.seriesDays).toBe(730);
    const { ctx, sent } = recording(sandboxContext(sandbox, 'plausible'));
    const values = await read('formfox.io', day(729), day(0), ctx);
    expect(sent).toEqual([0, 500].map((offset) => ({
      site_id: 'formfox.io',
      metrics: ['visitors', 'pageviews'],
      date_range: [day(729), day(0)],
      dimensions: ['time:day'],
      order_by: [['time:day', 'asc']],
      include: { time_labels: true },
      pagination: { limit: 500, offset },
    })));
    const visitors = of(values, 'analytics.visitors');
    const pageviews = of(values, 'analytics.pageviews');
    // Formfox's site launched 600 days ago: Plausible labels the 129 days before too, but they are not zeros.
    expect(visitors).toHaveLength(601);
    expect(visitors[0]?.date).toBe(day(600));
    expect(visitors.at(-1)?.date).toBe(day(0));
    expect(pageviews.map((v) => v.date)).toEqual(visitors.map((v) => v.date));
    for (const value of values) expect(Number.isInteger(value.value) && value.value > 0).toBe(true);
    // The Hacker News launch day is the peak; a day's page views outnumber its visitors.
    expect(visitors.reduce((a, b) => (b.value > a.value ? b : a)).date).toBe(day(9));
    const views = byDate(pageviews);
    for (const v of visitors) expect(views.get(v.date)).toBeGreaterThan(v.value);
  });

  it('gives the same visitors per day as the widget’s chart', async () => {
    const chart = (await plausible.analytics(sandboxContext(sandbox, 'plausible'), { siteId: 'formfox.io', range: '30d', now: NOW })).chart ?? [];
    const visitors = of(await read('formfox.io', day(29), day(0)), 'analytics.visitors');
    expect(visitors.map((v) => ({ date: v.date, visitors: v.value }))).toEqual(chart);
  });

  it('reads a day Plausible counted but has no row for as 0, and keeps to the window', async () => {
    // Pocket Ledger's script was missing 12 days ago: no bucket, but the day is in Plausible's time labels.
    const values = await read('pocketledger.app', day(20), day(5));
    for (const metric of ['analytics.visitors', 'analytics.pageviews'] as const) {
      const series = of(values, metric);
      expect(series.map((v) => v.date)).toEqual(Array.from({ length: 16 }, (_, i) => day(20 - i)));
      expect(series.filter((v) => v.value === 0)).toEqual([{ metric, date: day(12), value: 0 }]);
    }
  });

  it('leaves a day without a row out when the answer has no time labels (a server that ignores `include`)', async () => {
    sandbox.inject('plausible', {
      status: 200,
      body: { results: [{ metrics: [40, 90], dimensions: [day(3)] }, { metrics: [35, 70], dimensions: [day(1)] }], meta: {} },
      times: 1,
    });
    expect(await read('pocketledger.app', day(3), day(1))).toEqual([
      { metric: 'analytics.visitors', date: day(3), value: 40 },
      { metric: 'analytics.visitors', date: day(1), value: 35 },
      { metric: 'analytics.pageviews', date: day(3), value: 90 },
      { metric: 'analytics.pageviews', date: day(1), value: 70 },
    ]);
  });

  it('asks nothing after today and nothing at all for a window in the future', async () => {
    const values = await read('tideline.app', day(2), day(-5));
    expect(of(values, 'analytics.visitors').map((v) => v.date)).toEqual([day(2), day(1), day(0)]);
    expect(await read('tideline.app', day(-1), day(-3))).toEqual([]);
    expect(sandbox.requestsTo('plausible')).toHaveLength(1);
  });

  it('classifies a rejected key as auth and the hourly limit as rate limited, as the other calls do', async () => {
    const rejected = sandboxContext(sandbox, 'plausible', { credentials: { apiKey: 'wrong-key-8842' } });
    await expect(read('formfox.io', day(6), day(0), rejected)).rejects.toMatchObject({ kind: 'auth', retryable: false });
    sandbox.limit('plausible', { limit: 0, windowMs: HOUR });
    const clock = testClock(Date.UTC(2026, 4, 14, 15, 20));
    await expect(read('formfox.io', day(6), day(0), sandboxContext(sandbox, 'plausible', { clock }))).rejects.toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 40 * 60_000,
    });
  });
});
