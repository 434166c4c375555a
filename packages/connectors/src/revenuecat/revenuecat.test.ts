import { revenueSchema } from '@dash/contracts';
import { startSandbox, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectorError } from '../errors.ts';
import { slidingWindowLimiter } from '../limiter.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { revenuecat } from './index.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const pocketLedger = { provider: 'revenuecat', projectId: 'proj4f2a9c1e' } as const;
const tideline = { provider: 'revenuecat', projectId: 'proj7b3d0e58' } as const;
const rateLimited = {
  object: 'error',
  type: 'rate_limit_error',
  message: 'Rate limit exceeded',
  retryable: true,
  doc_url: 'https://errors.rev.cat/rate-limit-error',
};

describe('RevenueCat connector', () => {
  it('reports MRR and active subscriptions from the overview and a day-by-day revenue chart, in two requests', async () => {
    const now = Date.now();
    const out = await revenuecat.revenue(sandboxContext(sandbox, 'revenuecat'), { config: pocketLedger, range: '30d', currency: 'USD', now });
    const { currency, ...revenue } = out;
    expect(revenueSchema.parse(out)).toEqual(revenue);
    expect(currency).toBe('USD');
    expect(out.activeSubscribers).toBe(1840);
    // 1288 monthly plans at $4.99 and 552 yearly at $39.99 / 12, truncated by the overview.
    expect(out.mrr).toBe(8266);
    expect(out.chart).toHaveLength(30);
    expect(out.chart.at(-1)?.date).toBe(new Date(now).toISOString().slice(0, 10));
    expect(out.grossRevenue).toBeCloseTo(out.chart.reduce((sum, p) => sum + p.revenue, 0), 2);
    // A month of a business with that MRR: the chart is money, not the transaction count beside it.
    expect(out.grossRevenue).toBeGreaterThan(6500);
    expect(out.grossRevenue).toBeLessThan(9500);
    expect(out.netRevenue).toBe(out.grossRevenue);
    expect(out.lastPayment).toBeNull();
    const paths = sandbox.requestsTo('revenuecat').map((r) => r.path);
    expect(paths).toHaveLength(2);
    expect(paths).toContain('/v2/projects/proj4f2a9c1e/metrics/overview?currency=USD');
    expect(paths.find((p) => p.includes('/charts/revenue?'))).toMatch(/resolution=0&start_date=\d{4}-\d{2}-\d{2}&end_date=\d{4}-\d{2}-\d{2}&currency=USD/);
  });

  it('asks RevenueCat for the currency it was asked for and reports in it', async () => {
    const now = Date.now();
    const usd = await revenuecat.revenue(sandboxContext(sandbox, 'revenuecat'), { config: tideline, range: '7d', currency: 'USD', now });
    const cad = await revenuecat.revenue(sandboxContext(sandbox, 'revenuecat'), { config: tideline, range: '7d', currency: 'CAD', now });
    expect(cad.currency).toBe('CAD');
    expect(cad.activeSubscribers).toBe(640);
    expect((cad.mrr ?? 0) / (usd.mrr ?? 1)).toBeCloseTo(1.37, 2);
    expect(cad.grossRevenue / usd.grossRevenue).toBeCloseTo(1.37, 2);
  });

  it('gets a whole year of days from one chart request', async () => {
    const out = await revenuecat.revenue(sandboxContext(sandbox, 'revenuecat'), { config: tideline, range: '1y', currency: 'USD', now: Date.now() });
    expect(out.chart).toHaveLength(365);
    expect(out.chart.filter((p) => p.revenue > 0).length).toBeGreaterThan(350);
    expect(sandbox.requestsTo('revenuecat', '/v2/projects/proj7b3d0e58/charts/revenue')).toHaveLength(1);
  });

  it('makes at most two requests per call, so with its 5-a-minute limiter the third call in a row waits', async () => {
    const clock = testClock();
    const ctx = { ...sandboxContext(sandbox, 'revenuecat', { clock }), limiter: slidingWindowLimiter(revenuecat.rateLimit ?? { limit: 1, windowMs: 1 }, clock) };
    const call = (config: typeof pocketLedger | typeof tideline) => revenuecat.revenue(ctx, { config, range: '7d', currency: 'USD', now: Date.now() });
    await call(pocketLedger);
    await call(tideline);
    expect(clock.slept).toEqual([]);
    // Fifty seconds later the fifth request still fits the minute; the sixth waits for the first to age out.
    clock.advance(50_000);
    await call(pocketLedger);
    expect(clock.slept).toEqual([10_000]);
    expect(sandbox.requestsTo('revenuecat').map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('fails fast as rate limited, rather than hold the caller a minute, when the next slot is that far away', async () => {
    const clock = testClock();
    const ctx = { ...sandboxContext(sandbox, 'revenuecat', { clock }), limiter: slidingWindowLimiter(revenuecat.rateLimit ?? { limit: 1, windowMs: 1 }, clock) };
    const call = () => revenuecat.revenue(ctx, { config: pocketLedger, range: '7d', currency: 'USD', now: Date.now() });
    await call();
    await call();
    const error = await call().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 60_000 });
    // The fifth request went out; the sixth never reached RevenueCat.
    await vi.waitFor(() => expect(sandbox.requestsTo('revenuecat')).toHaveLength(5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sandbox.requestsTo('revenuecat')).toHaveLength(5);
  });

  it('says the key was rejected, with RevenueCat’s reason and without the key', async () => {
    const key = 'sk_WrongRevenueCatKey0123456789';
    const error = await revenuecat.test(sandboxContext(sandbox, 'revenuecat', { credentials: { apiKey: key } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'RevenueCat rejected the credentials (401): Invalid API key.' });
    expect((error as Error).message).not.toContain(key);
  });

  it('passes the credential check with a working key, asking for one project', async () => {
    await revenuecat.test(sandboxContext(sandbox, 'revenuecat'));
    expect(sandbox.requestsTo('revenuecat').map((r) => [r.path, r.status])).toEqual([['/v2/projects?limit=1', 200]]);
  });

  it('says an unknown project is not found', async () => {
    const error = await revenuecat
      .revenue(sandboxContext(sandbox, 'revenuecat'), { config: { provider: 'revenuecat', projectId: 'proj00000000' }, range: '7d', currency: 'USD', now: Date.now() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not_found', message: 'RevenueCat found nothing there (404): Project not found.' });
  });

  it('backs off on 429 for backoff_ms, in milliseconds, then succeeds', async () => {
    const clock = testClock();
    sandbox.inject('revenuecat', { status: 429, headers: { 'retry-after': '1500' }, body: { ...rateLimited, backoff_ms: 1500 }, times: 1 });
    await revenuecat.test(sandboxContext(sandbox, 'revenuecat', { clock }));
    expect(clock.slept).toEqual([1500]);
    expect(sandbox.requestsTo('revenuecat').map((r) => r.status)).toEqual([429, 200]);
  });

  it('reads Retry-After as milliseconds when the body has no backoff_ms', async () => {
    const clock = testClock();
    sandbox.inject('revenuecat', { status: 429, headers: { 'retry-after': '2500' }, body: rateLimited, times: 1 });
    await revenuecat.test(sandboxContext(sandbox, 'revenuecat', { clock }));
    // As seconds it would be 42 minutes, longer than a request waits: the call would fail instead.
    expect(clock.slept).toEqual([2500]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('revenuecat', { status: 503, body: { object: 'error', type: 'server_error', message: 'Service unavailable', retryable: true } });
    const error = await revenuecat.test(sandboxContext(sandbox, 'revenuecat')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'RevenueCat failed (503): Service unavailable' });
    expect(sandbox.requestsTo('revenuecat')).toHaveLength(3);
  });

  it('turns a body that is not JSON into a clear bad_response error', async () => {
    sandbox.inject('revenuecat', { malformed: true });
    await expect(revenuecat.test(sandboxContext(sandbox, 'revenuecat'))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'RevenueCat answered 200 with something that is not JSON',
    });
  });

  it('turns a chart in an unexpected shape into bad_response, naming the field', async () => {
    sandbox.inject('revenuecat', { status: 200, body: { object: 'chart_data', resolution: 'day', values: [{ cohort: '2026-01-01', measure: 0, value: 1 }] }, times: 2 });
    const error = await revenuecat
      .revenue(sandboxContext(sandbox, 'revenuecat'), { config: pocketLedger, range: '7d', currency: 'USD', now: Date.now() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'bad_response' });
    expect((error as Error).message).toMatch(/^RevenueCat sent a response we do not understand \((object|values\.0\.cohort)/);
  });
});
