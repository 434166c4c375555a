import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { briefingSchema, defaultBriefingThresholds, type Briefing, type BriefingProject } from '@dash/contracts';
import { testClock } from '@dash/connectors/testing';
import { demoSetup, startSandbox, type DemoUpstreams, type Sandbox } from '@dash/sandbox';
import { startDemo } from '../router/demo.ts';
import { createTestApi, restClient } from '../testing.ts';

// The briefing over the demo's sandbox with an injected clock: its numbers are the widgets' own (the same routes,
// the same window), a source that fails is named while the rest is shown, reading it moves the next window, and the
// REST routes refuse bad input with the field named.

type Api = Awaited<ReturnType<typeof createTestApi>>;
const DAY = 86_400_000;

let sandbox: Sandbox;
let upstreams: DemoUpstreams;
const apis: Api[] = [];

// The sandbox and each test's clock read real time as if the file had begun at noon UTC: what counts "today" (the
// briefing's unread) cannot see the day turn between two steps of a test.
const offset = Math.floor(Date.now() / DAY) * DAY + DAY / 2 - Date.now();
const atNoon = () => Date.now() + offset;

beforeAll(async () => {
  sandbox = await startSandbox({ now: atNoon });
  upstreams = Object.fromEntries(Object.entries(sandbox.services).map(([name, service]) => [name, service.baseUrl])) as DemoUpstreams;
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
afterEach(async () => {
  for (const api of apis.splice(0)) await api.dispose();
});

async function withDemo() {
  const clock = testClock(atNoon());
  // SPEC's delays between two calls on a lane and RevenueCat's limit (5 a minute), shortened in proportion (1/50) as in
  // the backup's tests: on the injected clock a backup then lasts seconds, well inside every answer's time to live.
  const api = await createTestApi({
    clock,
    demo: { setup: () => Promise.resolve(demoSetup(upstreams)) },
    backup: { delays: { revenue: 300, storefront: 40, other: 10 } },
    rateLimits: { revenuecat: { limit: 5, windowMs: 1_200 } },
  });
  apis.push(api);
  await startDemo(api.ctx);
  return { api, clock, call: restClient(() => api.caller) };
}

const within = (iso: string, briefing: Briefing) => iso >= briefing.window.since && iso < briefing.window.until;
const projectOf = (briefing: Briefing, slug: string) => briefing.projects.find((project) => project.slug === slug) as BriefingProject;
const sumDays = (chart: { date: string }[], days: string[], value: (point: never) => number) =>
  chart.filter((point) => days.includes(point.date)).reduce((sum, point) => sum + value(point as never), 0);

describe('the briefing over the demo', () => {
  it('says what the widgets say for the same window: revenue, shipped work, reviews, visitors, errors, funding', async () => {
    const { api, call } = await withDemo();
    const res = await call('GET', '/api/briefing');
    expect(res.status).toBe(200);
    const briefing = briefingSchema.parse(res.json);
    expect(briefing.failed).toEqual([]);
    expect(Date.parse(briefing.window.until) - Date.parse(briefing.window.since)).toBe(DAY);
    const projects = await api.store.projects.list();
    expect(briefing.projects.map((project) => project.slug)).toEqual(projects.map((project) => project.slug));

    for (const project of projects) {
      const briefed = projectOf(briefing, project.slug);
      const slug = project.slug;
      if (project.integrations.revenue) {
        const fortnight = await api.caller.data.revenue({ project: slug, range: '15d', currency: 'USD' });
        const week = await api.caller.data.revenue({ project: slug, range: '7d', currency: 'USD' });
        if ('configured' in fortnight.data || 'configured' in week.data) throw new Error(`${slug}: revenue not configured`);
        expect(briefed.revenue?.revenue.value, slug).toBeCloseTo(sumDays(fortnight.data.chart, briefing.days.current, (p: { revenue: number }) => p.revenue));
        expect(briefed.revenue?.revenue.previous, slug).toBeCloseTo(sumDays(fortnight.data.chart, briefing.days.previous, (p: { revenue: number }) => p.revenue));
        expect(briefed.revenue?.netWeek.value, slug).toBe(week.data.netRevenue);
        expect(briefed.revenue?.mrr.value, slug).toBe(week.data.mrr);
      } else {
        expect(briefed.revenue).toBeNull();
      }
      if (project.integrations.code_host || project.integrations.deploy_host || project.integrations.issue_tracker) {
        const shipping = await api.caller.data.shipping({ project: slug });
        if ('configured' in shipping.data) throw new Error(`${slug}: shipping not configured`);
        expect(briefed.shipping?.items.map((item) => item.title), slug).toEqual(shipping.data.items.filter((item) => within(item.shippedAt, briefing)).map((item) => item.title));
      }
      if (project.integrations.storefront) {
        const storefront = await api.caller.data.storefront({ project: slug });
        if ('configured' in storefront.data) throw new Error(`${slug}: storefront not configured`);
        const reviews = storefront.data.reviews.filter((review) => within(review.createdAt, briefing));
        expect(briefed.reviews?.items.map((review) => review.rating), slug).toEqual(reviews.map((review) => review.rating).sort((a, b) => a - b));
      }
      if (project.integrations.analytics) {
        const analytics = await api.caller.data.analytics({ project: slug, range: '30d' });
        if ('configured' in analytics.data) throw new Error(`${slug}: analytics not configured`);
        expect(briefed.traffic?.visitors.value, slug).toBe(sumDays(analytics.data.chart ?? [], briefing.days.current, (p: { visitors: number }) => p.visitors));
        expect(briefed.traffic?.referrers.map((referrer) => referrer.source), slug).toEqual(analytics.data.referrers.slice(0, 5).map((referrer) => referrer.source));
      }
      if (project.integrations.error_tracker) {
        const errors = await api.caller.data.errortracker({ project: slug });
        if ('configured' in errors.data) throw new Error(`${slug}: errors not configured`);
        const fresh = errors.data.issues.filter((issue) => within(issue.firstSeen, briefing) && within(issue.lastSeen, briefing));
        expect(briefed.errors?.new.map((issue) => issue.title), slug).toEqual(fresh.map((issue) => issue.title));
      }
      if (project.integrations.funding) {
        const funding = await api.caller.data.funding({ slug: project.integrations.funding.slug });
        if ('configured' in funding.data) throw new Error(`${slug}: funding not configured`);
        const credits = funding.data.transactions.filter((t) => t.type.toUpperCase() === 'CREDIT' && within(t.createdAt, briefing));
        expect(briefed.funding?.received, slug).toBeCloseTo(credits.reduce((sum, t) => sum + t.amount, 0));
      }
    }
    // The demo's last day has something in every kind of section: these comparisons are not of empty lists.
    const total = (count: (project: BriefingProject) => number) => briefing.projects.reduce((sum, project) => sum + count(project), 0);
    expect(total((project) => project.shipping?.items.length ?? 0)).toBeGreaterThan(0);
    expect(total((project) => project.reviews?.items.length ?? 0)).toBeGreaterThan(0);
    expect(total((project) => project.errors?.new.length ?? 0)).toBeGreaterThan(0);
    expect(total((project) => project.funding?.contributions ?? 0)).toBeGreaterThan(0);
    expect(total((project) => project.uptime?.incidents.length ?? 0)).toBeGreaterThan(0);
    // Nothing crossed a default threshold, or each line that did names its number and links to its widget or thread.
    for (const line of briefing.needsYou) expect(line.link).toMatch(/^\/\?(project=[a-z0-9-]+#widget-[a-z]+|notification=.+)$/);
    expect(briefing.quiet === null).toBe(briefing.needsYou.length > 0);
  });

  it('reads only what a backup refreshed: right after one, the briefing asks no upstream anything', async () => {
    const { api, call } = await withDemo();
    await api.ctx.data.cache.clear();
    expect(await api.caller.backup.run()).toMatchObject({ failed: 0, errors: [] });
    sandbox.reset();
    const briefing = briefingSchema.parse((await call('GET', '/api/briefing')).json);
    expect(briefing.failed).toEqual([]);
    // The briefing email refreshes through the backup first: every answer it then reads is one the backup fetched.
    expect(sandbox.requests.map((request) => `${request.service} ${request.path}`)).toEqual([]);
  });

  it('names a source that could not be read and still shows the rest', async () => {
    const { api, call } = await withDemo();
    // Nothing cached for the error tracker, and Sentry answers 500 from now on.
    await api.ctx.data.cache.clear();
    sandbox.inject('sentry', { status: 500 });
    const briefing = briefingSchema.parse((await call('GET', '/api/briefing')).json);
    const withSentry = (await api.store.projects.list()).filter((project) => project.integrations.error_tracker).map((project) => project.slug);
    expect(withSentry.length).toBeGreaterThan(0);
    expect(briefing.failed.map((failure) => [failure.project, failure.section])).toEqual(withSentry.map((slug) => [slug, 'errors']));
    expect(briefing.failed[0]?.error).toMatch(/Sentry/);
    for (const slug of withSentry) {
      const briefed = projectOf(briefing, slug);
      expect(briefed.errors).toBeNull();
      expect(briefed.shipping ?? briefed.revenue ?? briefed.traffic).not.toBeNull();
    }
  });

  it('starts the next window where the last read one ended (at least 24 hours back), and stops counting it unread', async () => {
    const { call, clock } = await withDemo();
    const first = briefingSchema.parse((await call('GET', '/api/briefing')).json);
    expect(first.unread).toBe(true);
    expect((await call('POST', '/api/briefing/read', { until: first.window.until })).status).toBe(200);
    expect(briefingSchema.parse((await call('GET', '/api/briefing')).json).unread).toBe(false);

    // Three days later: the window reaches back to the briefing read, not just 24 hours.
    clock.advance(3 * DAY);
    const later = briefingSchema.parse((await call('GET', '/api/briefing')).json);
    expect(later.window.since).toBe(first.window.until);
    // Its daily figures cover the whole days in between (the read day's rest and today so far are partial).
    expect(later.days.current).toHaveLength(Math.floor(Date.parse(later.window.until) / DAY) - Math.ceil(Date.parse(later.window.since) / DAY));
    expect(later.days.current.length).toBeGreaterThanOrEqual(2);
    expect(later.unread).toBe(true);
    // MRR's change is now against the figure the read briefing kept.
    for (const project of later.projects) {
      if (!project.revenue) continue;
      expect(project.revenue.mrr.previous).not.toBeNull();
      expect(project.revenue.netWeek.previous).not.toBeNull();
    }
  });

  it('refuses a bad query or threshold with 4xx naming the field, and changes nothing', async () => {
    const { call, clock } = await withDemo();
    expect((await call('GET', '/api/briefing?project=nope')).json).toEqual({ error: { code: 'NOT_FOUND', message: 'No project with the slug "nope"' } });
    const future = await call('GET', `/api/briefing?since=${new Date(clock.now() + DAY).toISOString()}`);
    expect([future.status, (future.json.error as { message: string }).message]).toEqual([400, 'since: it is in the future']);
    const notADate = await call('GET', '/api/briefing?since=yesterday');
    expect(notADate.status).toBe(400);
    expect((notADate.json.error as { issues: { path: string[] }[] }).issues[0]?.path).toEqual(['since']);

    const bad = await call('PUT', '/api/briefing/thresholds', { thresholds: { ...defaultBriefingThresholds, revenueDropPercent: 0 } });
    expect(bad.status).toBe(400);
    expect((bad.json.error as { issues: { path: (string | number)[] }[] }).issues[0]?.path).toEqual(['thresholds', 'revenueDropPercent']);
    expect((await call('GET', '/api/briefing/thresholds')).json).toEqual({ thresholds: defaultBriefingThresholds });
    const saved = await call('PUT', '/api/briefing/thresholds', { thresholds: { ...defaultBriefingThresholds, revenueDropPercent: 10 } });
    expect(saved.json).toEqual({ thresholds: { ...defaultBriefingThresholds, revenueDropPercent: 10 } });
    expect((await call('GET', '/api/briefing/thresholds')).json).toEqual({ thresholds: { ...defaultBriefingThresholds, revenueDropPercent: 10 } });
  });
});
