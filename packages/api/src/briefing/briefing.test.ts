import { describe, expect, it } from 'vitest';
import { briefingSchema, defaultBriefingThresholds, type Briefing, type BriefingProject } from '@dash/contracts';
import { testClock } from '@dash/connectors/testing';
import { demoSetup, demoUpstreamsOf } from '@dash/sandbox';
import { handleRest } from '../rest/index.ts';
import { openApiDocument } from '../rest/openapi.ts';
import { startDemo } from '../router/demo.ts';
import { createTestApi, restClient } from '../testing.ts';
import { deliveryTests } from '../testing/delivery.ts';

// The briefing over the demo's sandbox with an injected clock: its numbers are the widgets' own (the same routes,
// the same window), a source that fails is named while the rest is shown, reading it moves the next window, and the
// REST routes refuse bad input with the field named.

type Api = Awaited<ReturnType<typeof createTestApi>>;
const DAY = 86_400_000;

// The sandbox and each test's clock read real time as if the file had begun at noon UTC: what counts "today" (the
// briefing's unread) cannot see the day turn between two steps of a test.
const offset = Math.floor(Date.now() / DAY) * DAY + DAY / 2 - Date.now();
const atNoon = () => Date.now() + offset;

const { sandbox, cleanup } = deliveryTests({ now: atNoon });

async function withDemo() {
  const clock = testClock(atNoon());
  // SPEC's delays between two calls on a lane and RevenueCat's limit (5 a minute), shortened in proportion (1/50) as in
  // the backup's tests: on the injected clock a backup then lasts seconds, well inside every answer's time to live.
  const api = await createTestApi({
    clock,
    demo: { setup: () => Promise.resolve(demoSetup(demoUpstreamsOf(sandbox))) },
    backup: { delays: { revenue: 300, storefront: 40, other: 10 } },
    rateLimits: { revenuecat: { limit: 5, windowMs: 1_200 } },
  });
  cleanup(() => api.dispose());
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

describe('against last week, from the metric history', () => {
  const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  /** A dashboard at noon UTC with two projects and no upstreams: everything the trend says comes from the history. */
  async function withHistory() {
    const clock = testClock(Math.floor(Date.now() / DAY) * DAY + DAY / 2);
    const api = await createTestApi({ scheduler: false, clock });
    cleanup(() => api.dispose());
    await api.caller.projects.create({ slug: 'shop', name: 'Shop' });
    await api.caller.projects.create({ slug: 'side', name: 'Side' });
    return { api, clock, call: restClient(() => api.caller), yesterday: isoDay(clock.now() - DAY), today: isoDay(clock.now()) };
  }

  /** Imports rows as a founder's CSV: `values[i]` is the value `values.length - 1 - i` days before `last` (null: no row). */
  async function importDays(api: Api, project: string, metric: string, unit: string, last: string, values: readonly (number | null)[]) {
    const end = Date.parse(`${last}T00:00:00Z`);
    const rows = values.flatMap((value, i) => (value === null ? [] : [`${isoDay(end - (values.length - 1 - i) * DAY)},${project},${metric},${value},${unit}`]));
    const res = await handleRest(new Request('http://dash.test/api/history/import', { method: 'POST', body: ['date,project,metric,value,unit', ...rows].join('\n'), headers: { 'content-type': 'text/csv' } }), api.caller);
    expect(res.status, await res.clone().text()).toBe(200);
  }

  /** A fortnight up to yesterday: visitors rising 10 a day; MRR kept on a few days; errors only this week; a day of search missing; uptime. */
  async function importFortnight(api: Api, yesterday: string) {
    await importDays(api, 'shop', 'analytics.visitors', 'count', yesterday, Array.from({ length: 14 }, (_, i) => 100 + i * 10));
    await importDays(api, 'shop', 'revenue.mrr', 'USD', yesterday, [9_000, null, null, null, 9_500, null, 9_800, null, 10_000, null, null, null, null, 10_400]);
    await importDays(api, 'shop', 'errors.events', 'count', yesterday, [...Array.from({ length: 7 }, () => null), 5, 5, 5, 5, 5, 5, 5]);
    await importDays(api, 'shop', 'search.clicks', 'count', yesterday, [40, 40, 40, 40, 40, 40, 40, 50, 50, 50, 50, null, 50, 50]);
    await importDays(api, 'shop', 'uptime.up_ratio', 'fraction', yesterday, [...Array.from({ length: 7 }, () => 0.98), 1, 1, 1, 0.993, 1, 1, 1]);
  }

  it('a weekly briefing sums a flow over the last 7 days against the 7 before, takes a stock’s last value, and draws each complete week', async () => {
    const { api, call, yesterday } = await withHistory();
    await importFortnight(api, yesterday);
    const res = await call('GET', '/api/briefing?period=week&project=shop');
    expect(res.status).toBe(200);
    const briefing = briefingSchema.parse(res.json);
    expect(briefing.period).toBe('week');
    // The window is the 7 whole days up to yesterday.
    expect(briefing.days.current).toHaveLength(7);
    expect(briefing.days.current.at(-1)).toBe(yesterday);
    expect(projectOf(briefing, 'shop').trend).toEqual([
      // A stock: its last value in each week (Thursday's snapshot missed; a week with a missing day draws no sparkline).
      { metric: 'revenue.mrr', label: 'MRR', value: 10_400, previous: 9_800, change: 600 / 9_800, unit: 'money', currency: 'USD' },
      // A flow: the 7 days summed, and the 7 days drawn.
      { metric: 'analytics.visitors', label: 'Visitors', value: 1_400, previous: 910, change: 490 / 910, unit: 'count', spark: [170, 180, 190, 200, 210, 220, 230] },
      // A week with a day missing is not a smaller week: unknown, and nothing to compare.
      { metric: 'search.clicks', label: 'Search clicks', value: null, previous: 280, change: null, unit: 'count' },
      // No history the week before: nothing to compare with, never 0 %.
      { metric: 'errors.events', label: 'Error events', value: 35, previous: null, change: null, unit: 'count', spark: [5, 5, 5, 5, 5, 5, 5] },
      // A share is averaged over the days, in percent.
      { metric: 'uptime.up_ratio', label: 'Uptime', value: 99.9, previous: 98, change: (99.9 - 98) / 98, unit: 'percent', spark: [100, 100, 100, 99.3, 100, 100, 100] },
    ]);
  });

  it('a daily briefing compares the last complete day with the same weekday a week before, and a project without history has no lines', async () => {
    const { api, call, yesterday } = await withHistory();
    await importFortnight(api, yesterday);
    const briefing = briefingSchema.parse((await call('GET', '/api/briefing')).json);
    expect(briefing.period).toBe('day');
    expect(projectOf(briefing, 'shop').trend).toEqual([
      { metric: 'revenue.mrr', label: 'MRR', value: 10_400, previous: 9_800, change: 600 / 9_800, unit: 'money', currency: 'USD' },
      { metric: 'analytics.visitors', label: 'Visitors', value: 230, previous: 160, change: 70 / 160, unit: 'count' },
      { metric: 'search.clicks', label: 'Search clicks', value: 50, previous: 40, change: 0.25, unit: 'count' },
      { metric: 'errors.events', label: 'Error events', value: 5, previous: null, change: null, unit: 'count' },
      { metric: 'uptime.up_ratio', label: 'Uptime', value: 100, previous: 98, change: 2 / 98, unit: 'percent' },
    ]);
    expect(projectOf(briefing, 'side').trend).toEqual([]);
  });

  it('lists the open metric alerts of the inbox, newest first, and no longer once they resolve', async () => {
    const { api, call, today } = await withHistory();
    for (const project of ['shop', 'side']) {
      await api.caller.metricAlerts.create({ project, metric: 'bugs.open', params: { kind: 'threshold', direction: 'above', value: 20 }, severity: 'warning', enabled: true });
    }
    await importDays(api, 'shop', 'bugs.open', 'count', today, [10, 25]);
    await importDays(api, 'side', 'bugs.open', 'count', today, [10, 31]);
    const threads = (await api.caller.notifications.list({ integration: 'metrics' })).notifications;
    const idOf = (project: string) => threads.find((thread) => thread.project === project)?.id ?? '';
    const briefing = briefingSchema.parse((await call('GET', '/api/briefing')).json);
    expect(briefing.metricAlerts).toEqual([
      { project: 'side', title: 'Open bugs above 20: 31', since: expect.any(String), link: `/?notification=${idOf('side')}` },
      { project: 'shop', title: 'Open bugs above 20: 25', since: expect.any(String), link: `/?notification=${idOf('shop')}` },
    ]);
    expect(briefing.metricAlerts?.[0]?.since.slice(0, 10)).toBe(today);
    // One project's briefing has its own alerts only; an alert that resolved is not listed.
    expect(briefingSchema.parse((await call('GET', '/api/briefing?project=shop')).json).metricAlerts?.map((alert) => alert.project)).toEqual(['shop']);
    await importDays(api, 'side', 'bugs.open', 'count', today, [12]);
    expect(briefingSchema.parse((await call('GET', '/api/briefing')).json).metricAlerts?.map((alert) => alert.title)).toEqual(['Open bugs above 20: 25']);
  });

  it('refuses a period that is not day or week with a 400 naming it', async () => {
    const { call } = await withHistory();
    const res = await call('GET', '/api/briefing?period=month');
    expect(res.status).toBe(400);
    const error = res.json.error as { message: string; issues: { path: string[]; message: string }[] };
    expect(error.issues[0]).toMatchObject({ path: ['period'], message: 'period is day or week' });
    // The REST API's description offers it.
    const parameters = ((openApiDocument().paths as Record<string, { get: { parameters: { name: string; schema: { enum?: string[] } }[] } }>)['/api/briefing']?.get.parameters ?? []);
    expect(parameters.find((parameter) => parameter.name === 'period')?.schema.enum).toEqual(['day', 'week']);
  });
});
