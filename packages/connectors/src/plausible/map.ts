import type { Analytics, Range } from '@dash/contracts';
import type { DailyValue } from '../connector.ts';
import { dailySeries } from '../dates.ts';
import { countedFromFirst, daysBetween } from '../series.ts';
import type { PlausibleRow } from './schemas.ts';

/** The aggregate query's metrics, in this order: the response's `metrics` array follows it. */
export const AGGREGATE_METRICS = ['visitors', 'visits', 'pageviews', 'bounce_rate', 'visit_duration'] as const;

const count = (value: number | null | undefined): number => Math.max(0, Math.round(value ?? 0));

/** Totals from the aggregate row: bounce_rate is already a percentage, visit_duration already seconds. */
export function toTotals(row: PlausibleRow | undefined): Pick<Analytics, 'visitors' | 'sessions' | 'pageViews' | 'bounceRate' | 'avgDuration'> {
  const [visitors, visits, pageviews, bounceRate, visitDuration] = row?.metrics ?? [];
  return {
    visitors: count(visitors),
    sessions: count(visits),
    pageViews: count(pageviews),
    bounceRate: Math.min(100, Math.max(0, Math.round((bounceRate ?? 0) * 10) / 10)),
    avgDuration: Math.max(0, Math.round(visitDuration ?? 0)),
  };
}

/** `event:page` rows asked for with metrics [visitors, pageviews]. */
export function toTopPages(rows: readonly PlausibleRow[]): Analytics['topPages'] {
  return rows.map((row) => ({ path: row.dimensions[0] ?? '', uniqueVisitors: count(row.metrics[0]), views: count(row.metrics[1]) }));
}

/** `visit:source` rows asked for with metrics [visitors]; Plausible names no-referrer traffic "Direct / None". */
export function toReferrers(rows: readonly PlausibleRow[]): Analytics['referrers'] {
  return rows.map((row) => ({ source: row.dimensions[0] ?? '', visitors: count(row.metrics[0]) }));
}

/**
 * Visitors per day, one point for each day of the range (0 where Plausible left the bucket out). For
 * `all`, the chart starts at the first day with visitors rather than five years of zeros.
 */
export function visitorChart(range: Range, now: number, perDay: ReadonlyMap<string, number>): NonNullable<Analytics['chart']> {
  return dailySeries(range, now, perDay, count).map(({ date, value }) => ({ date, visitors: value }));
}

/** `time:day` rows asked for with metrics [visitors], as a day-to-visitors map. */
export function visitorsPerDay(rows: readonly PlausibleRow[]): Map<string, number> {
  return new Map(rows.map((row) => [(row.dimensions[0] ?? '').slice(0, 10), count(row.metrics[0])]));
}

/**
 * `time:day` rows asked for with metrics [visitors, pageviews], as both metrics' daily values within `from`..`to`.
 * `labels` (the answer's `meta.time_labels`) are the days Plausible counted; without them only the rows' days are
 * known. A day's visitors are that day's uniques, never to be summed into a period's.
 */
export function dailyValues(rows: readonly PlausibleRow[], labels: readonly string[], { from, to }: { from: string; to: string }): DailyValue[] {
  const visitors = new Map<string, number | null>();
  const pageviews = new Map<string, number | null>();
  for (const row of rows) {
    const date = (row.dimensions[0] ?? '').slice(0, 10);
    visitors.set(date, row.metrics[0] ?? null);
    pageviews.set(date, row.metrics[1] ?? null);
  }
  const counted = new Set(labels.map((label) => label.slice(0, 10)));
  const days = daysBetween(from, to).filter((day) => counted.has(day) || visitors.has(day));
  return [...countedFromFirst('analytics.visitors', days, visitors), ...countedFromFirst('analytics.pageviews', days, pageviews)];
}
