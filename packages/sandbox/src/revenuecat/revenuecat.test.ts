import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { holdToDescriptions } from '../contract/testing.ts';
import { sandboxTokens } from '../demo.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
// Real time, read as if the file had begun at noon UTC: the day a test reckons in cannot turn between its requests.
const DAY = 86_400_000;
const offset = Math.floor(Date.now() / DAY) * DAY + DAY / 2 - Date.now();
const now = () => Date.now() + offset;
beforeAll(async () => {
  sandbox = await startSandbox({ observe, now });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
  // The fake's own limit: the Charts & Metrics domain's 25 a minute.
  sandbox.limit('revenuecat', { limit: 25, windowMs: 60_000 });
});

const get = async (path: string, token: string = sandboxTokens.revenuecat) => {
  const response = await fetch(`${sandbox.services.revenuecat.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
};

interface ChartBody {
  values: { cohort: number; measure: number; value: number; incomplete: boolean }[];
  measures: { display_name: string }[];
  user_selectors: Record<string, string>;
}

describe('RevenueCat fake', () => {
  it('answers a wrong key with RevenueCat’s authentication_error', async () => {
    const { status, body } = await get('/projects', 'sk_nope');
    expect(status).toBe(401);
    expect(body).toEqual({
      object: 'error',
      type: 'authentication_error',
      message: 'Invalid API key.',
      retryable: false,
      doc_url: 'https://errors.rev.cat/authentication-error',
    });
  });

  it('refuses dates that are not YYYY-MM-DD with a parameter_error, and an unknown project with a 404', async () => {
    const bad = await observe.offDescription(() => get('/projects/proj4f2a9c1e/charts/revenue?resolution=0&start_date=1774224000&end_date=2026-04-22'));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ object: 'error', type: 'parameter_error', param: 'start_date', retryable: false });
    const missing = await get('/projects/proj00000000/metrics/overview');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ object: 'error', type: 'resource_missing' });
  });

  it('sends its rate-limit headers, and over the limit a 429 with Retry-After and backoff_ms in milliseconds', async () => {
    sandbox.limit('revenuecat', { limit: 2, windowMs: 60_000 });
    const first = await get('/projects');
    expect(first.headers.get('revenuecat-rate-limit-current-usage')).toBe('1');
    expect(first.headers.get('revenuecat-rate-limit-current-limit')).toBe('2');
    await get('/projects');
    const third = await get('/projects');
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ object: 'error', type: 'rate_limit_error', retryable: true });
    const retryAfter = Number(third.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(50_000);
    expect(retryAfter).toBeLessThanOrEqual(60_000);
    expect(third.body.backoff_ms).toBe(retryAfter);
  });

  it('tells one story: the overview’s 28-day revenue is the chart’s, and proceeds are less than revenue', async () => {
    const today = new Date(now()).toISOString().slice(0, 10);
    const start = new Date(now() - 28 * DAY).toISOString().slice(0, 10);
    const overview = await get('/projects/proj7b3d0e58/metrics/overview?currency=USD');
    const metrics = overview.body.metrics as { id: string; value: number }[];
    const revenue28 = metrics.find((m) => m.id === 'revenue')?.value ?? 0;
    const chart = (await get(`/projects/proj7b3d0e58/charts/revenue?resolution=0&start_date=${start}&end_date=${today}`)).body as unknown as ChartBody;
    expect(chart.measures.map((m) => m.display_name)).toEqual(['Revenue', 'Transactions']);
    const money = chart.values.filter((v) => v.measure === 0);
    expect(money).toHaveLength(29);
    expect(money.at(-1)?.incomplete).toBe(true);
    const complete = money.filter((v) => !v.incomplete).reduce((sum, v) => sum + v.value, 0);
    expect(Math.abs(complete - revenue28)).toBeLessThan(1.01);
    // Cohorts are the days' starts in Unix seconds.
    expect(new Date((money[0]?.cohort ?? 0) * 1000).toISOString().slice(0, 10)).toBe(start);

    const selectors = encodeURIComponent(JSON.stringify({ revenue_type: 'proceeds' }));
    const proceeds = (await get(`/projects/proj7b3d0e58/charts/revenue?resolution=0&start_date=${start}&end_date=${today}&selectors=${selectors}`)).body as unknown as ChartBody;
    expect(proceeds.user_selectors).toEqual({ revenue_type: 'proceeds' });
    const proceedsTotal = proceeds.values.filter((v) => v.measure === 0 && !v.incomplete).reduce((sum, v) => sum + v.value, 0);
    expect(proceedsTotal / complete).toBeCloseTo(0.85 / 1.08, 2);
  });

  it('lists projects with a next_page cursor', async () => {
    const first = await get('/projects?limit=2');
    expect(first.body).toMatchObject({ object: 'list', url: '/v2/projects' });
    expect((first.body.items as unknown[]).length).toBe(2);
    const next = first.body.next_page as string;
    expect(next).toMatch(/^\/v2\/projects\?starting_after=proj/);
    const second = await get(next.replace(/^\/v2/, ''));
    expect(second.body).toMatchObject({ next_page: null, items: [{ id: 'proj0c81d2aa' }] });
  });
});
