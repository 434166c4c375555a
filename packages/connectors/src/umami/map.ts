import type { Analytics, Range } from '@dash/contracts';
import type { DailyValue } from '../connector.ts';
import { dailySeries } from '../dates.ts';
import { countedFromFirst, daysBetween } from '../series.ts';
import type { UmamiActive, UmamiExpandedRow, UmamiMetricRow, UmamiPageviewSeries, UmamiStats } from './schemas.ts';

const whole = (value: number | undefined): number => Math.max(0, Math.round(value ?? 0));

/** Both stats shapes as plain numbers: `{ value, prev }` keeps only the value. */
export function flatStats(s: UmamiStats): { pageviews: number; visitors: number; visits: number; bounces: number; totaltime: number } {
  const v = (x: number | { value: number }) => (typeof x === 'number' ? x : x.value);
  return { pageviews: v(s.pageviews), visitors: v(s.visitors), visits: v(s.visits), bounces: v(s.bounces), totaltime: v(s.totaltime) };
}

/** Bounces are a count and totaltime total seconds: the rate and the average are per visit. */
export function toTotals(s: UmamiStats): Pick<Analytics, 'visitors' | 'sessions' | 'pageViews' | 'bounceRate' | 'avgDuration'> {
  const { pageviews, visitors, visits, bounces, totaltime } = flatStats(s);
  return {
    visitors: whole(visitors),
    sessions: whole(visits),
    pageViews: whole(pageviews),
    bounceRate: visits > 0 ? Math.min(100, Math.round((bounces / visits) * 1000) / 10) : 0,
    avgDuration: visits > 0 ? Math.round(totaltime / visits) : 0,
  };
}

export function liveOf(a: UmamiActive): number {
  if (Array.isArray(a)) return whole(a[0]?.x);
  const visitors: unknown = a.visitors;
  if (typeof visitors === 'number') return whole(visitors);
  const x: unknown = a.x;
  return whole(typeof x === 'number' ? x : 0);
}

/** v3's expanded path metric: views and distinct visitors per page. */
export function pagesFromExpanded(rows: readonly UmamiExpandedRow[]): Analytics['topPages'] {
  return rows.filter((r) => r.name).map((r) => ({ path: r.name ?? '', views: whole(r.pageviews), uniqueVisitors: whole(r.visitors) }));
}

/**
 * Older servers' `url` metric counts views only; with no per-page visitor figure there, unique
 * visitors are shown as the views (an upper bound).
 */
export function pagesFromUrlMetric(rows: readonly UmamiMetricRow[]): Analytics['topPages'] {
  return rows.filter((r) => r.x).map((r) => ({ path: r.x ?? '', views: whole(r.y), uniqueVisitors: whole(r.y) }));
}

/** The referrer metric: referring domains by visitors (direct traffic is not a row in Umami). */
export function toReferrers(rows: readonly UmamiMetricRow[]): Analytics['referrers'] {
  return rows.filter((r) => r.x).map((r) => ({ source: r.x ?? '', visitors: whole(r.y) }));
}

/**
 * Visitors (Umami's sessions series) per day, one point per day of the range, 0 where Umami has no
 * bucket; for `all`, from the first day with visitors.
 */
export function visitorChart(range: Range, now: number, sessions: readonly { x: string; y: number }[]): NonNullable<Analytics['chart']> {
  return dailySeries(range, now, perDay(sessions), whole).map(({ date, value }) => ({ date, visitors: value }));
}

/** A series' buckets by their day (`x` is the bucket's start; a day's buckets add up). */
function perDay(points: readonly { x: string; y: number }[], into = new Map<string, number>()): Map<string, number> {
  for (const point of points) {
    const day = point.x.slice(0, 10);
    into.set(day, (into.get(day) ?? 0) + point.y);
  }
  return into;
}

/** The page views series' parts (asked `unit=day`) as visitors (its `sessions`) and page views per day within the span. */
export function dailyValues(parts: readonly UmamiPageviewSeries[], { from, to }: { from: string; to: string }): DailyValue[] {
  const visitors = new Map<string, number>();
  const pageviews = new Map<string, number>();
  for (const part of parts) {
    perDay(part.sessions, visitors);
    perDay(part.pageviews, pageviews);
  }
  const days = daysBetween(from, to);
  return [...countedFromFirst('analytics.visitors', days, visitors), ...countedFromFirst('analytics.pageviews', days, pageviews)];
}
