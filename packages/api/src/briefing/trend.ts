import { metricOf, type BriefingPeriod, type BriefingTrend, type MetricKey } from '@dash/contracts';
import { addDays } from '@dash/connectors';
import type { MetricPointRow } from '@dash/db';

/**
 * "Against last week", pure: each project's key metrics from the metric history, a day against the same weekday a week
 * before or a week against the week before. Only the history is read (what the snapshot, the backfill and imports
 * kept), never an upstream, so the numbers are those the history view and the metric alerts see.
 */

/** The metrics a founder watches, in the order a briefing lists them; the rest of the catalogue stays in the history view. */
export const TREND_METRICS = [
  'revenue.mrr',
  'revenue.gross',
  'revenue.net',
  'revenue.subscribers',
  'analytics.visitors',
  'search.clicks',
  'errors.events',
  'uptime.up_ratio',
  'bugs.open',
  'funding.balance',
] as const satisfies readonly MetricKey[];

/** The days a trend reads: `last` is the last complete day; a week reads the 14 days up to it, a day `last` and a week before. */
export interface TrendDays {
  period: BriefingPeriod;
  last: string;
}

/** The history's days a trend needs, inclusive: a fortnight up to the last complete day. */
export const trendRange = ({ last }: TrendDays) => ({ from: addDays(last, -13), to: last });

/** The dates of the 7 days ending `last`, oldest first. */
const weekEnding = (last: string) => Array.from({ length: 7 }, (_, i) => addDays(last, i - 6));

const unitOf = (unit: string): BriefingTrend['unit'] => (unit === 'money' ? 'money' : unit === 'fraction' ? 'percent' : 'count');

/** A value as the trend says it: a fraction in percent, money to the cent, without floating-point dust. */
function shown(value: number, unit: BriefingTrend['unit']): number {
  if (unit === 'percent') return Math.round(value * 100 * 10_000) / 10_000;
  if (unit === 'money') return Math.round(value * 100) / 100;
  return Math.round(value * 10_000) / 10_000;
}

/** (value - previous) / previous, null when either is unknown or previous is 0 (a change from nothing has no percent). */
export const changeOf = (value: number | null, previous: number | null) => (value === null || previous === null || previous === 0 ? null : (value - previous) / previous);

/**
 * A week of one metric as one number: a flow of counts or money summed (every day needed: a missing day would make a
 * smaller week, not a slower one), a flow of fractions (uptime, a share) averaged over its days, a stock's latest value.
 */
export function weekValue(metric: MetricKey, byDate: ReadonlyMap<string, number>, days: readonly string[]): number | null {
  const definition = metricOf(metric);
  const values = days.map((day) => byDate.get(day));
  if (definition?.kind === 'stock') return values.findLast((value) => value !== undefined) ?? null;
  if (values.some((value) => value === undefined)) return null;
  const sum = (values as number[]).reduce((total, value) => total + value, 0);
  return definition?.unit === 'fraction' ? sum / values.length : sum;
}

/** One metric's trend from its rows (one project's, oldest first); undefined when the history has nothing in either span. */
export function trendOf(metric: MetricKey, rows: readonly MetricPointRow[], days: TrendDays): BriefingTrend | undefined {
  const definition = metricOf(metric);
  if (!definition || rows.length === 0) return undefined;
  const unit = unitOf(definition.unit);
  // A money metric is compared in its latest day's currency; a day kept in another is not this metric's.
  const currency = unit === 'money' ? (rows.at(-1)?.currency ?? undefined) : undefined;
  const byDate = new Map(rows.filter((row) => unit !== 'money' || (row.currency ?? undefined) === currency).map((row) => [row.date, row.value]));
  const current = days.period === 'week' ? weekEnding(days.last) : [days.last];
  const before = days.period === 'week' ? weekEnding(addDays(days.last, -7)) : [addDays(days.last, -7)];
  const raw = days.period === 'week' ? [weekValue(metric, byDate, current), weekValue(metric, byDate, before)] : [byDate.get(days.last) ?? null, byDate.get(before[0] ?? '') ?? null];
  const [value, previous] = raw.map((number) => (number === null || number === undefined ? null : shown(number, unit))) as [number | null, number | null];
  if (value === null && previous === null) return undefined;
  const spark = days.period === 'week' ? current.map((day) => byDate.get(day)) : [];
  return {
    metric,
    label: definition.label,
    value,
    previous,
    change: changeOf(value, previous),
    unit,
    ...(currency ? { currency } : {}),
    ...(days.period === 'week' && spark.every((point) => point !== undefined) ? { spark: spark.map((point) => shown(point, unit)) } : {}),
  };
}

/** Each project's trend (by slug) from the history's rows of the trend's fortnight, the metrics in TREND_METRICS' order. */
export function trendsOf(rows: readonly MetricPointRow[], days: TrendDays): Map<string, BriefingTrend[]> {
  const grouped = new Map<string, Map<string, MetricPointRow[]>>();
  for (const row of rows) {
    const project = grouped.get(row.project) ?? new Map<string, MetricPointRow[]>();
    grouped.set(row.project, project);
    const metric = project.get(row.metric) ?? [];
    project.set(row.metric, metric);
    metric.push(row);
  }
  const trends = new Map<string, BriefingTrend[]>();
  for (const [project, metrics] of grouped) {
    const ordered = (rows: MetricPointRow[]) => [...rows].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    trends.set(
      project,
      TREND_METRICS.flatMap((metric) => {
        const trend = trendOf(metric, ordered(metrics.get(metric) ?? []), days);
        return trend ? [trend] : [];
      }),
    );
  }
  return trends;
}

const number = (value: number, digits = 2) => new Intl.NumberFormat('en-US', { maximumFractionDigits: digits }).format(value);

/**
 * A trend's change in words: "+12 %", "−30 %", "±0 %"; a percent metric (uptime) moves in points ("−0.4 pts"), since a
 * relative change of a share near 100 % rounds to nothing. Empty when there is no change to say.
 */
export function changeText(trend: Pick<BriefingTrend, 'unit' | 'value' | 'previous' | 'change'>): string {
  if (trend.unit === 'percent') {
    if (trend.value === null || trend.previous === null) return '';
    const points = Math.round((trend.value - trend.previous) * 100) / 100;
    return points === 0 ? '±0 pts' : `${points > 0 ? '+' : '−'}${number(Math.abs(points))} pts`;
  }
  if (trend.change === null) return '';
  const percent = Math.round(trend.change * 100);
  return percent === 0 ? '±0 %' : `${percent > 0 ? '+' : '−'}${number(Math.abs(percent), 0)} %`;
}

/** Which way a trend went, for an arrow: up, down or flat (unknown: flat). */
export function directionOf(trend: Pick<BriefingTrend, 'unit' | 'value' | 'previous' | 'change'>): 'up' | 'down' | 'flat' {
  const text = changeText(trend);
  return text.startsWith('+') ? 'up' : text.startsWith('−') ? 'down' : 'flat';
}

/** A trend's value in words ("$12,340.50", "1,204", "99.82 %"). */
export function trendValueText(trend: Pick<BriefingTrend, 'unit' | 'currency'>, value: number): string {
  if (trend.unit === 'percent') return `${number(value)} %`;
  if (trend.unit === 'money') {
    try {
      const cents = Number.isInteger(value) ? 0 : 2;
      return new Intl.NumberFormat('en-US', { style: 'currency', currency: trend.currency ?? 'USD', minimumFractionDigits: cents, maximumFractionDigits: cents }).format(value);
    } catch {
      return `${value.toFixed(2)} ${trend.currency ?? ''}`.trim();
    }
  }
  return number(value);
}

/** Metrics where less is better: their rise is the bad news. */
const LOWER_IS_BETTER = new Set<string>(['errors.events', 'bugs.open']);

/** Whether a trend's change is good news (true), bad (false), or neither (flat or unknown: null). */
export function isGoodChange(trend: Pick<BriefingTrend, 'metric' | 'unit' | 'value' | 'previous' | 'change'>): boolean | null {
  const direction = directionOf(trend);
  return direction === 'flat' ? null : (direction === 'up') !== LOWER_IS_BETTER.has(trend.metric);
}

/**
 * Bar heights in pixels (at most `height`) for a sparkline's values: a flow of counts or money from zero (a negative
 * day, a refund's, by its size), a level (a stock, a share) across what it reached, so a steady MRR is not 7 equal bars.
 */
export function barHeights(trend: Pick<BriefingTrend, 'metric' | 'unit'>, values: readonly number[], height: number): number[] {
  const fromZero = metricOf(trend.metric)?.kind === 'flow' && trend.unit !== 'percent';
  if (fromZero) {
    const top = Math.max(...values.map(Math.abs));
    return values.map((value) => (top === 0 ? 1 : Math.max(1, Math.round((Math.abs(value) / top) * height))));
  }
  const low = Math.min(...values);
  const high = Math.max(...values);
  const floor = Math.max(2, Math.round(height / 8));
  return values.map((value) => (high === low ? Math.round(height / 2) : floor + Math.round(((value - low) / (high - low)) * (height - floor))));
}

/** What a trend is compared with, in words. */
export const againstText = (period: BriefingPeriod) => (period === 'week' ? 'the week before' : 'the same day last week');

/**
 * One trend as a line of text: "MRR $12,340 (+4 % against $11,865 the same day last week)"; without history for the
 * compared day, "Visitors 1,204 (no history yet for the same day last week)", never 0 %.
 */
export function trendLine(trend: BriefingTrend, period: BriefingPeriod): string {
  const against = againstText(period);
  const value = trend.value === null ? `nothing kept for ${period === 'week' ? 'the last 7 days' : 'the last day'}` : trendValueText(trend, trend.value);
  if (trend.previous === null) return `${trend.label} ${value} (no history yet for ${against})`;
  const before = trendValueText(trend, trend.previous);
  const change = changeText(trend);
  return `${trend.label} ${value} (${change ? `${change} against` : ''}${change ? ' ' : ''}${before} ${against})`;
}
