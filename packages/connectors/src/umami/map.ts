import type { Analytics, Range } from '@dash/contracts';
import { dailySeries } from '../dates.ts';
import type { UmamiActive, UmamiExpandedRow, UmamiMetricRow, UmamiStats } from './schemas.ts';

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
  const perDay = new Map<string, number>();
  for (const point of sessions) {
    const day = point.x.slice(0, 10);
    perDay.set(day, (perDay.get(day) ?? 0) + point.y);
  }
  return dailySeries(range, now, perDay, whole).map(({ date, value }) => ({ date, visitors: value }));
}
