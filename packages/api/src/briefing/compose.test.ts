import { defaultBriefingThresholds, type ErrorTracker, type Revenue } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { composeProject, dailyErrorAverage, daysOf, needsYou, type ProjectAnswers, type ProjectSnapshot } from './compose.ts';

// The briefing's arithmetic on crafted answers: which days a window covers, each "needs you" rule just over its
// threshold (it fires, with the number behind it) and just under (it stays quiet).

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T08:00:00Z');
const window = { since: NOW - DAY, until: NOW };
const days = daysOf(window);
const iso = (ms: number) => new Date(ms).toISOString();
const date = (daysAgo: number) => iso(Date.parse('2026-11-26T00:00:00Z') - daysAgo * DAY).slice(0, 10);

const base: ProjectAnswers = { slug: 'formfox', name: 'Formfox', color: '#336699' };

/** A revenue answer whose chart has `perDay(daysAgo)` on each of the last 15 days. */
function revenue(perDay: (daysAgo: number) => number): NonNullable<ProjectAnswers['revenue']> {
  const chart = Array.from({ length: 15 }, (_, i) => ({ date: date(15 - i), revenue: perDay(15 - i) }));
  const answer: Revenue = { grossRevenue: 0, netRevenue: 700, mrr: 1200, activeSubscribers: 40, chart, lastPayment: null };
  return { fortnight: answer, week: { ...answer, netRevenue: 612.5 }, currency: 'USD' };
}

const compose = (answers: Partial<ProjectAnswers>, last?: ProjectSnapshot, week: ProjectSnapshot[] = []) =>
  composeProject({ answers: { ...base, ...answers }, window, days, last, week });
const rules = (answers: Partial<ProjectAnswers>, options: { last?: ProjectSnapshot; week?: ProjectSnapshot[] } = {}) =>
  needsYou(compose(answers, options.last, options.week), defaultBriefingThresholds, { days, errorAverage: dailyErrorAverage(options.week ?? []) });

describe('the days a window covers', () => {
  it('is yesterday for the last 24 hours, compared with the day before and the same weekday a week earlier', () => {
    expect(days).toEqual({ current: ['2026-11-25'], previous: ['2026-11-24'], weekAgo: ['2026-11-18'] });
  });
  it('is every complete day since the last briefing after a weekend off, compared with as many days before', () => {
    expect(daysOf({ since: Date.parse('2026-11-21T07:30:00Z'), until: Date.parse('2026-11-24T08:00:00Z') })).toEqual({
      current: ['2026-11-22', '2026-11-23'],
      previous: ['2026-11-20', '2026-11-21'],
      weekAgo: ['2026-11-15', '2026-11-16'],
    });
  });
});

describe('a project briefing', () => {
  it('reads revenue from the widget’s chart: yesterday against the day before and a week earlier, the last 7 days against the 7 before', () => {
    const briefed = compose({ revenue: revenue((daysAgo) => (daysAgo === 1 ? 300 : daysAgo === 2 ? 200 : daysAgo === 8 ? 250 : 100)) });
    expect(briefed.revenue?.revenue).toEqual({ value: 300, previous: 200, weekAgo: 250, change: 0.5 });
    // Days 1–7: 300 + 200 + 5 × 100; days 8–14: 250 + 6 × 100.
    expect(briefed.revenue?.week).toEqual({ value: 1000, previous: 850, weekAgo: null, change: 150 / 850 });
    expect(briefed.revenue?.netWeek).toEqual({ value: 612.5, previous: null, weekAgo: null, change: null });
    expect(briefed.revenue?.mrr).toEqual({ value: 1200, previous: null, weekAgo: null, change: null });
    expect(briefed.revenue?.link).toBe('/?project=formfox#widget-revenue');
  });

  it('says MRR’s change since the last briefing, and which referrers and queries are new since', () => {
    const last: ProjectSnapshot = { at: NOW - DAY, mrr: 1000, netWeek: 500, activeSubscribers: 40, errorEvents: null, referrers: ['google.com'], queries: ['form builder'] };
    const briefed = compose(
      {
        revenue: revenue(() => 100),
        analytics: {
          visitors: 0, sessions: 0, pageViews: 0, bounceRate: 0, avgDuration: 0, liveVisitors: 0, topPages: [],
          referrers: [{ source: 'google.com', visitors: 90 }, { source: 'news.ycombinator.com', visitors: 400 }],
        },
        seo: { queries: [{ query: 'form builder', clicks: 4, impressions: 10, ctr: 0.4, position: 2 }, { query: 'free forms', clicks: 2, impressions: 5, ctr: 0.4, position: 3 }], totals: { clicks: 6, impressions: 15, ctr: 0.4, position: 2.3 } },
      },
      last,
    );
    expect(briefed.revenue?.mrr.change).toBeCloseTo(0.2);
    expect(briefed.revenue?.netWeek).toEqual({ value: 612.5, previous: 500, weekAgo: null, change: 0.225 });
    expect(briefed.traffic?.referrers.map((r) => [r.source, r.new])).toEqual([['google.com', false], ['news.ycombinator.com', true]]);
    expect(briefed.search?.queries.map((q) => [q.query, q.new])).toEqual([['form builder', false], ['free forms', true]]);
    // Without a chart the visitors are unknown, not zero.
    expect(briefed.traffic?.visitors).toEqual({ value: null, previous: null, weekAgo: null, change: null });
  });

  it('keeps only what happened in the window, low ratings first', () => {
    const review = (rating: number, hoursAgo: number) => ({ rating, title: `${rating} stars`, body: '', reviewerNickname: 'x', territory: 'USA', createdAt: iso(NOW - hoursAgo * 3_600_000) });
    const briefed = compose({ storefront: { app: { name: 'Formfox', bundleId: 'x' }, reviews: [review(5, 2), review(1, 3), review(4, 30)], versions: [] } });
    expect(briefed.reviews?.items.map((r) => r.rating)).toEqual([1, 5]);
  });
});

describe('what needs you', () => {
  it('says revenue is down against the previous 7 days from 25% on, and nothing at 24%', () => {
    // 7 days at 75 against 7 at 100: down 25%.
    expect(rules({ revenue: revenue((daysAgo) => (daysAgo <= 7 ? 75 : 100)) })).toEqual([
      expect.objectContaining({ rule: 'revenue_drop', text: 'Revenue down 25% against the previous 7 days', value: 25, threshold: 25, severity: 'warning', link: '/?project=formfox#widget-revenue' }),
    ]);
    expect(rules({ revenue: revenue((daysAgo) => (daysAgo <= 7 ? 76 : 100)) })).toEqual([]);
    expect(rules({ revenue: revenue((daysAgo) => (daysAgo <= 7 ? 40 : 100)) })[0]).toMatchObject({ severity: 'error', value: 60 });
  });

  it('counts low reviews in the window: "Two 1-star reviews"; a 3-star one needs nobody', () => {
    const review = (rating: number) => ({ rating, title: '', body: '', reviewerNickname: 'x', territory: 'USA', createdAt: iso(NOW - 3_600_000) });
    const storefront = (ratings: number[]) => ({ storefront: { app: { name: 'Formfox', bundleId: 'x' }, reviews: ratings.map(review), versions: [] } });
    expect(rules(storefront([1, 1, 5]))).toEqual([expect.objectContaining({ rule: 'low_ratings', text: 'Two 1-star reviews', value: 2, severity: 'error' })]);
    expect(rules(storefront([2, 1]))[0]).toMatchObject({ text: 'Two reviews at 2 stars or fewer' });
    expect(rules(storefront([3, 5]))).toEqual([]);
  });

  it('says errors spiked against the daily average of the last week’s briefings, from 3× on', () => {
    const issue = (count: number): ErrorTracker => ({
      issues: [{ id: '1', title: 'TypeError', culprit: 'x', count, userCount: 3, level: 'error', firstSeen: iso(NOW - 30 * DAY), lastSeen: iso(NOW - 3_600_000) }],
      errorCount: 1,
    });
    // A week of briefings: 10 events a day. Since yesterday's: 30 more (3×), then 29 (just under).
    const week = Array.from({ length: 8 }, (_, i): ProjectSnapshot => ({ at: NOW - (8 - i) * DAY, mrr: null, activeSubscribers: null, errorEvents: 100 + i * 10, referrers: [], queries: [] }));
    const last = week.at(-1) as ProjectSnapshot;
    expect(rules({ errors: issue(170 + 30) }, { last, week })).toEqual([
      expect.objectContaining({ rule: 'error_spike', text: 'Errors: 3× more events than the daily average of the last week', value: 3, threshold: 3 }),
    ]);
    expect(rules({ errors: issue(170 + 29) }, { last, week })).toEqual([]);
    // No history yet: nothing to compare with, so nothing is claimed.
    expect(rules({ errors: issue(1_000) })).toEqual([]);
  });

  it('names three new error issues with the users they affect; two need nobody', () => {
    const fresh = (n: number): ErrorTracker => ({
      issues: Array.from({ length: n }, (_, i) => ({ id: String(i), title: `E${i}`, culprit: 'x', count: 5, userCount: 2, level: 'error', firstSeen: iso(NOW - 3_600_000), lastSeen: iso(NOW - 60_000) })),
      errorCount: n,
    });
    expect(rules({ errors: fresh(3) })).toEqual([expect.objectContaining({ rule: 'new_errors', text: '3 new error issues, 6 users affected', value: 3 })]);
    expect(rules({ errors: fresh(2) })).toEqual([]);
  });

  it('says a monitor is down now however short so far (open), or was down 45 min; a 29-minute blip that ended needs nobody', () => {
    const outage = (minutes: number, open: boolean) => ({
      id: `n-${minutes}`,
      title: 'Monitor down: api',
      firstAt: iso(NOW - minutes * 60_000 - (open ? 0 : 60_000)),
      resolvedAt: open ? null : iso(NOW - 60_000),
      open,
    });
    expect(rules({ outages: [outage(180, true)] })).toEqual([
      expect.objectContaining({ rule: 'down_now', text: 'Monitor down: api: down for 3 h, still open', value: 180, severity: 'error', link: '/?notification=n-180' }),
    ]);
    // Open for 13 minutes, under the 30-minute threshold: it needs the founder now.
    expect(rules({ outages: [outage(13, true)] })).toEqual([expect.objectContaining({ rule: 'down_now', text: 'Monitor down: api: down for 13 min, still open', severity: 'error' })]);
    expect(rules({ outages: [outage(45, false)] })).toEqual([expect.objectContaining({ text: 'Monitor down: api: was down 45 min', severity: 'warning' })]);
    expect(rules({ outages: [outage(29, false)] })).toEqual([]);
  });

  it('says a monitor the uptime service reports not up is down now, once, also without an open outage in the inbox', () => {
    const monitor = (name: string, status: 'up' | 'down' | 'degraded') => ({ name, url: `https://${name}.example`, status, responseTime: 0, lastCheckedAt: null });
    const health = { monitors: [monitor('api', 'down'), monitor('web', 'up'), monitor('worker', 'degraded')], incidents: [] };
    expect(rules({ health })).toEqual([
      expect.objectContaining({ rule: 'down_now', text: 'api: not up now', severity: 'error', link: '/?project=formfox#widget-health' }),
      expect.objectContaining({ rule: 'down_now', text: 'worker: not up now' }),
    ]);
    // With its outage open in the inbox: the one line with how long.
    const open = { id: 'n-1', title: 'Monitor down: api', firstAt: iso(NOW - 13 * 60_000), resolvedAt: null, open: true };
    expect(rules({ health: { ...health, monitors: [monitor('api', 'down')] }, outages: [open] })).toEqual([
      expect.objectContaining({ rule: 'down_now', text: 'Monitor down: api: down for 13 min, still open' }),
    ]);
  });

  it('says visitors dropped 40% against the day before; 39% needs nobody', () => {
    const analytics = (yesterday: number) => ({
      analytics: {
        visitors: 0, sessions: 0, pageViews: 0, bounceRate: 0, avgDuration: 0, liveVisitors: 0, topPages: [], referrers: [],
        chart: Array.from({ length: 15 }, (_, i) => ({ date: date(15 - i), visitors: 15 - i === 1 ? yesterday : 100 })),
      },
    });
    expect(rules(analytics(60))).toEqual([expect.objectContaining({ rule: 'traffic_drop', text: 'Visitors down 40% against the day before', value: 40 })]);
    expect(rules(analytics(61))).toEqual([]);
  });
});
