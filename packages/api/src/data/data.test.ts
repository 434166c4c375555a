import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { analyticsSchema, fundingSchema, healthSchema, notConfiguredSchema, seoSchema, storefrontSchema, type Revenue } from '@dash/contracts';
import { testClock } from '@dash/connectors/testing';
import { demoSetup, demoUpstreamsOf, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { handleRest } from '../rest/index.ts';
import { createTestApi } from '../testing.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;
let sandbox: Sandbox;
let api: Api;
let clock: ReturnType<typeof testClock>;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  sandbox.reset();
  clock = testClock();
  api = await createTestApi({ clock });
});
afterEach(() => api.dispose());

async function get(path: string) {
  const response = await handleRest(new Request(`http://dash.test${path}`), api.caller);
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

/** A project with Better Stack monitors (one down with an open incident), and its credentials. */
async function withUptime(options: { store?: boolean; token?: string } = {}) {
  if (options.store !== false) {
    await api.caller.credentials.save({
      key: 'betterstack',
      values: { apiToken: options.token ?? sandboxTokens.betterstack, baseUrl: sandbox.services.betterstack.baseUrl },
    });
  }
  await api.caller.projects.create({ slug: 'formfox', name: 'Formfox', integrations: { uptime_monitor: { monitorIds: ['2003', '2004'] } } });
}

const monitorListings = () => sandbox.requestsTo('betterstack', '/api/v2/monitors?').length;

describe('data routes through the cache', () => {
  it('answers { configured: false } when no project has the integration, and 404 for an unknown project', async () => {
    const none = await get('/api/health');
    expect(none.status).toBe(200);
    expect(notConfiguredSchema.parse(none.json)).toMatchObject({ configured: false, integration: 'uptime_monitor' });
    expect(none.headers.get('x-cache')).toBeNull();

    await api.caller.projects.create({ slug: 'bare', name: 'Bare' });
    expect((await get('/api/health?project=bare')).json).toMatchObject({ configured: false, message: 'Bare has no uptime monitor set up yet. Add one in settings.' });
    const unknown = await get('/api/health?project=nope');
    expect([unknown.status, unknown.json]).toEqual([404, { error: { code: 'NOT_FOUND', message: 'No project with the slug "nope"' } }]);
  });

  it('says which service to connect when the integration is set up but its credentials are not stored', async () => {
    await withUptime({ store: false });
    const res = await get('/api/health');
    expect(res.json).toEqual({
      configured: false,
      integration: 'uptime_monitor',
      message: 'Connect Better Stack Uptime in settings: no credentials are stored under "betterstack"',
    });
    expect(sandbox.requests).toHaveLength(0);
  });

  it('serves a MISS from upstream, then HITs until the TTL passes, then asks upstream again', async () => {
    await withUptime();
    const first = await get('/api/health');
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(healthSchema.parse(first.json).monitors.map((m) => [m.name, m.status, m.project])).toEqual([
      ['App', 'up', 'formfox'],
      ['Submission worker', 'down', 'formfox'],
    ]);
    expect(monitorListings()).toBe(1);

    clock.advance(59_000);
    const hit = await get('/api/health');
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.json).toEqual(first.json);
    expect(monitorListings()).toBe(1);

    clock.advance(2_000);
    expect((await get('/api/health')).headers.get('x-cache')).toBe('MISS');
    expect(monitorListings()).toBe(2);
  });

  it('fetches again on refresh=1 even while the cached value is fresh', async () => {
    await withUptime();
    await get('/api/health');
    expect((await get('/api/health?refresh=1')).headers.get('x-cache')).toBe('MISS');
    expect(monitorListings()).toBe(2);
  });

  it('serves the cached value as STALE with the reason when the upstream fails, and 502 JSON when nothing is cached', async () => {
    await withUptime();
    sandbox.inject('betterstack', { status: 500, body: { errors: 'Internal Server Error' } });
    const cold = await get('/api/health');
    expect(cold.status).toBe(502);
    expect(cold.json).toEqual({ error: { code: 'BAD_GATEWAY', message: 'Formfox: Better Stack failed (500): Internal Server Error' } });
    expect(api.log.lines).toContain('error data.health failed (BAD_GATEWAY) Formfox: Better Stack failed (500): Internal Server Error: ConnectorError: Better Stack failed (500): Internal Server Error');
    expect(api.log.lines.join('\n')).not.toContain(sandboxTokens.betterstack);

    sandbox.reset();
    const fresh = await get('/api/health');
    clock.advance(120_000);
    sandbox.inject('betterstack', { status: 503, body: { errors: 'Service Unavailable' } });
    const stale = await get('/api/health');
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(stale.headers.get('x-cache-stale-reason')).toBe('Formfox: Better Stack failed (503): Service Unavailable');
    expect(stale.json).toEqual(fresh.json);
  });

  it('makes one upstream call for 100 concurrent identical cold requests', async () => {
    await withUptime();
    const answers = await Promise.all(Array.from({ length: 100 }, () => get('/api/health')));
    expect(new Set(answers.map((a) => JSON.stringify(a.json))).size).toBe(1);
    expect(monitorListings()).toBe(1);
    // Only the request whose fetch asked the upstream is a MISS: the other 99 waited for it.
    expect(answers.map((a) => a.headers.get('x-cache')).filter((cache) => cache === 'MISS')).toHaveLength(1);
    // One listing, then one response-times and one incidents call per monitor: five in all.
    expect(sandbox.requestsTo('betterstack')).toHaveLength(5);
  });

  it('rejects bad query values with 400 and the field named', async () => {
    const res = await get('/api/revenue?range=2w');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'BAD_REQUEST', issues: [{ path: ['range'] }] } });
    expect((await get('/api/ideas?limit=0')).json).toMatchObject({ error: { issues: [{ path: ['limit'], message: 'limit is at least 1' }] } });
  });
});

describe('revenue under RevenueCat’s five requests a minute', () => {
  it('answers every range from one fetch per project, and leaves a project out, named, rather than exceed the limit', async () => {
    const upstreams = demoUpstreamsOf(sandbox);
    await api.dispose();
    api = await createTestApi({ clock, demo: { setup: () => Promise.resolve(demoSetup(upstreams)) } });
    await api.caller.demo.start();
    const revenueCat = () => sandbox.requestsTo('revenuecat').length;

    // Two RevenueCat projects (two calls each) and one Stripe project, across three ranges.
    const week = await get('/api/revenue?range=7d');
    const month = await get('/api/revenue?range=30d');
    const year = await get('/api/revenue?range=1y');
    expect(revenueCat()).toBe(4);
    expect([week.status, month.status, year.status]).toEqual([200, 200, 200]);
    expect([(week.json as Revenue).chart.length, (month.json as Revenue).chart.length, (year.json as Revenue).chart.length]).toEqual([7, 30, 365]);
    expect((week.json as Revenue).grossRevenue).toBeLessThan((month.json as Revenue).grossRevenue);

    // CAD asks RevenueCat again: one call is left this minute, so one project waits its turn out.
    const cad = await get('/api/revenue?range=7d&currency=CAD');
    expect(revenueCat()).toBeLessThanOrEqual(5);
    expect(cad.status).toBe(200);
    expect(cad.headers.get('x-upstream-failures')).toMatch(/^(Pocket Ledger|Tideline): RevenueCat allows only so many requests a minute; the next free slot is in \d+ s/);

    // A minute later the same question is answered whole.
    clock.advance(61_000);
    const later = await get('/api/revenue?range=7d&currency=CAD&refresh=1');
    expect(later.headers.get('x-upstream-failures')).toBeNull();
    expect(later.headers.get('x-currency-conversion')).toBe('USD->CAD at 1.38 (exchangeRates in settings)');
  });
});

describe('the demo’s routes', () => {
  beforeEach(async () => {
    const upstreams = demoUpstreamsOf(sandbox);
    await api.dispose();
    api = await createTestApi({ clock, demo: { setup: () => Promise.resolve(demoSetup(upstreams)) } });
    await api.caller.demo.start();
  });

  it('answers each route in the spec’s shape, per project and for all', async () => {
    const store = storefrontSchema.parse((await get('/api/storefront?project=tideline')).json);
    expect(store.app).toEqual({ name: 'Tideline – Tides & Moon', bundleId: 'app.tideline.ios' });
    expect(store.versions.some((v) => v.state === 'READY_FOR_DISTRIBUTION')).toBe(true);
    expect((await get('/api/storefront?project=formfox')).json).toMatchObject({ configured: false, integration: 'storefront' });
    expect(storefrontSchema.parse((await get('/api/storefront')).json).app.bundleId).toBe('app.pocketledger.ios, app.tideline.ios');

    const all = analyticsSchema.parse((await get('/api/analytics?project=pocket-ledger')).json);
    const web = analyticsSchema.parse((await get('/api/analytics?project=pocket-ledger&platform=web')).json);
    const ios = analyticsSchema.parse((await get('/api/analytics?project=pocket-ledger&platform=ios')).json);
    expect(all.visitors).toBe(web.visitors + ios.visitors);
    expect(all.chart).toHaveLength(30);
    expect((await get('/api/analytics?platform=windows')).json).toMatchObject({ configured: false, message: 'No project has a "windows" platform in its analytics' });

    const seo = seoSchema.parse((await get('/api/seo?siteUrl=sc-domain:formfox.io')).json);
    expect(seo.totals.ctr).toBeLessThan(1);
    expect((await get('/api/seo?siteUrl=https://nobody.example/')).json).toMatchObject({ configured: false });

    const funding = fundingSchema.parse((await get('/api/funding')).json);
    expect(funding.stats.backerCount).toBeGreaterThan(funding.members.length - 1);
    expect(funding.currency).toBe('USD');
    // A slug Open Collective does not know is the caller's mistake (404 naming it), not the upstream's failure.
    const unknown = await get('/api/funding?slug=no-such-collective');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.stringContaining('"no-such-collective"') } });
    // A malformed one is a 400 before any upstream is asked.
    const asked = sandbox.requestsTo('opencollective').length;
    for (const slug of ['has%09tab', 'Upper', 'a/b', 'x y']) {
      const bad = await get(`/api/funding?slug=${slug}`);
      expect({ slug, status: bad.status }).toEqual({ slug, status: 400 });
    }
    expect(sandbox.requestsTo('opencollective')).toHaveLength(asked);
  });

  it('looks Sentry project ids up once per 10 minutes while issues refresh every 2', async () => {
    const lookups = () => sandbox.requestsTo('sentry', '/api/0/projects/').length;
    const searches = () => sandbox.requestsTo('sentry', '/api/0/organizations/demo-founder/issues/').length;
    await get('/api/errortracker?project=formfox');
    expect([lookups(), searches()]).toEqual([1, 1]);
    clock.advance(2 * 60_000 + 1);
    expect((await get('/api/errortracker?project=formfox')).headers.get('x-cache')).toBe('MISS');
    expect([lookups(), searches()]).toEqual([1, 2]);
    clock.advance(8 * 60_000);
    await get('/api/errortracker?project=formfox');
    expect([lookups(), searches()]).toEqual([2, 3]);
  });

  it('keeps live visitors fresh for 15 s while the rest is cached for a minute', async () => {
    await get('/api/analytics?project=formfox');
    const plausibleCalls = () => sandbox.requestsTo('plausible').length;
    const live = () => sandbox.requestsTo('plausible', '/api/v1/stats/realtime').length;
    const [calls, lives] = [plausibleCalls(), live()];
    clock.advance(16_000);
    expect((await get('/api/analytics?project=formfox')).headers.get('x-cache')).toBe('HIT');
    expect(live()).toBe(lives + 1);
    expect(plausibleCalls()).toBe(calls + 1);
  });
});

describe('POST /api/credentials/test', () => {
  it('answers ok for working credentials and the upstream’s reason, without the secret, for a rejected one', async () => {
    const baseUrl = sandbox.services.betterstack.baseUrl;
    await expect(api.caller.credentials.test({ key: 'betterstack', values: { apiToken: sandboxTokens.betterstack, baseUrl } })).resolves.toEqual({ ok: true });
    const rejected = await api.caller.credentials.test({ key: 'betterstack', values: { apiToken: 'not-the-token-42', baseUrl } });
    expect(rejected).toEqual({ ok: false, error: 'Better Stack rejected the credentials (401): Invalid Team API Token' });
  });
});
