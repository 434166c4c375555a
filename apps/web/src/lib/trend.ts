import { metricCatalogue, type MetricDefinition, type MetricKey, type MetricUnit, type TrendRange } from '@dash/contracts/names';
import type { History, HistoryPoint, WidgetName } from '@dash/contracts';

/**
 * The trend charts' pure parts: which metrics a widget trends, the days of a range, the scales, the line with its gaps,
 * the words of a value and of a whole chart, and the All-projects sum. TrendChart.svelte draws what these return.
 */

const DAY = 86_400_000;

/** A `YYYY-MM-DD` day as a whole number of days since 1970-01-01 (UTC), so days subtract. */
export const dayNumber = (date: string): number => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY);
export const dateOfDay = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10);
/** The day `days` before or after `date`. */
export const addDays = (date: string, days: number): string => dateOfDay(dayNumber(date) + days);

/** The metric catalogue's `widget` is the integration's; the dashboard names the error tracker's widget `errortracker`. */
const widgetOfMetric = (metric: MetricDefinition): WidgetName => (metric.widget === 'errors' ? 'errortracker' : metric.widget);

/** A widget's metrics in the catalogue's order; its headline (the chart it opens on) first. */
export const widgetMetrics = (widget: WidgetName): MetricDefinition[] => metricCatalogue.filter((metric) => widgetOfMetric(metric) === widget);

/** The metrics the widgets on screen trend, for the one history read of a page; on All projects, those that add up. */
export const metricsOfWidgets = (widgets: readonly WidgetName[], { allProjects = false } = {}): MetricKey[] =>
  metricCatalogue.filter((metric) => widgets.includes(widgetOfMetric(metric)) && (!allProjects || summable(metric.unit))).map((metric) => metric.key);

/** Whether a metric's days add up across projects: counts and money do; a share, a rank or stars do not. */
export const summable = (unit: MetricUnit): boolean => unit === 'count' || unit === 'money';

/** The range a trend shows: its first and last day (inclusive), `days` days ending `to`. */
export const rangeOf = (days: TrendRange, to: string): { from: string; to: string } => ({ from: addDays(to, 1 - days), to });

/** The points on or between `from` and `to` (points are oldest first, so this is a slice, not a search). */
export const pointsIn = (points: readonly HistoryPoint[], range: { from: string; to: string }): HistoryPoint[] =>
  points.filter((point) => point.date >= range.from && point.date <= range.to);

export interface Box {
  width: number;
  height: number;
  /** Room kept above and below the line, so its stroke and the marker are not cut off. */
  pad: number;
}

export interface Scales {
  x: (date: string) => number;
  y: (value: number) => number;
  /** The values at the chart's bottom and top. */
  low: number;
  high: number;
}

/**
 * The values the chart spans. A flow of counts or money starts at 0 (a day's total has a floor the eye should see);
 * a level, a share, a rank or stars spans what it reached, with a tenth of that added each side so a flat line sits
 * in the middle, not on an edge. A position is drawn upside down: 1, the top of the ranking, at the top.
 */
export function valueDomain(values: readonly number[], unit: MetricUnit, kind: 'flow' | 'stock'): { low: number; high: number } {
  if (values.length === 0) return { low: 0, high: 1 };
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (summable(unit) && kind === 'flow' && min >= 0) return { low: 0, high: max > 0 ? max : 1 };
  const pad = max > min ? (max - min) / 10 : Math.abs(max) / 10 || (unit === 'fraction' ? 0.01 : 1);
  let low = min - pad;
  let high = max + pad;
  if (unit === 'fraction') [low, high] = [Math.max(0, low), Math.min(1, high)];
  if (unit === 'stars') [low, high] = [Math.max(0, low), Math.min(5, high)];
  if (min >= 0 && low < 0) low = 0;
  return { low, high };
}

/** Scales of a range's days across the width and of the values up the height (SVG's y grows downwards). */
export function scalesOf(range: { from: string; to: string }, domain: { low: number; high: number }, box: Box, inverted = false): Scales {
  const first = dayNumber(range.from);
  const span = Math.max(1, dayNumber(range.to) - first);
  const spread = domain.high - domain.low || 1;
  const inner = box.height - 2 * box.pad;
  return {
    x: (date) => ((dayNumber(date) - first) / span) * box.width,
    y: (value) => {
      const share = (value - domain.low) / spread;
      return box.pad + (inverted ? share : 1 - share) * inner;
    },
    low: domain.low,
    high: domain.high,
  };
}

/** Runs of consecutive days: a missing day ends a run, so the line breaks there (a gap, never a zero). */
export function runsOf(points: readonly HistoryPoint[]): HistoryPoint[][] {
  const runs: HistoryPoint[][] = [];
  let previous: number | undefined;
  for (const point of points) {
    const day = dayNumber(point.date);
    const run = runs.at(-1);
    if (run && previous === day - 1) run.push(point);
    else runs.push([point]);
    previous = day;
  }
  return runs;
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * The line's path data: one subpath per run of days. A run of one day is a zero-length subpath, which a round line
 * cap draws as a dot, so a day between two gaps is still seen.
 */
export function linePath(points: readonly HistoryPoint[], scales: Pick<Scales, 'x' | 'y'>): string {
  return runsOf(points)
    .map((run) => run.map((point, i) => `${i === 0 ? 'M' : 'L'}${round(scales.x(point.date))} ${round(scales.y(point.value))}`).join('') + (run.length === 1 ? 'l0 0' : ''))
    .join('');
}

/** The point nearest a position across the chart (0 = the range's first day, 1 = its last), or undefined when none is near. */
export function nearestPoint(points: readonly HistoryPoint[], range: { from: string; to: string }, share: number, within = 1): HistoryPoint | undefined {
  const first = dayNumber(range.from);
  const day = first + share * (dayNumber(range.to) - first);
  let best: HistoryPoint | undefined;
  let distance = Infinity;
  for (const point of points) {
    const away = Math.abs(dayNumber(point.date) - day);
    if (away < distance) [best, distance] = [point, away];
  }
  return distance <= within ? best : undefined;
}

const dayFormat = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const shortDateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const asDate = (date: string) => new Date(`${date}T00:00:00Z`);

/** "Tue 3 Nov". */
export const dayLabel = (date: string): string => dayFormat.format(asDate(date));
/** "3 Nov 2026". */
export const dateLabel = (date: string): string => dateFormat.format(asDate(date));
/** "3 Nov". */
export const shortDateLabel = (date: string): string => shortDateFormat.format(asDate(date));

/** A value in its unit's words: "$1,204.50", "1,204", "99.95 %", "4.2", "4.6 ★". */
export function formatValue(value: number, unit: MetricUnit, currency?: string): string {
  switch (unit) {
    case 'money': {
      const large = Math.abs(value) >= 10_000;
      const digits = large ? 0 : 2;
      return currency
        ? new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value)
        : new Intl.NumberFormat('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value);
    }
    case 'count':
      return new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(value);
    case 'fraction':
      return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: value >= 0.99 || value < 0.01 ? 2 : 1 }).format(value * 100)} %`;
    case 'position':
      return new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(value);
    case 'stars':
      return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(value)} ★`;
  }
}

/** A label inside a sentence: "Visitors" → "visitors", but "MRR" and "CTR" keep their capitals. */
export const labelInSentence = (label: string) => (/^[A-Z][a-z]/.test(label) ? label[0]?.toLowerCase() + label.slice(1) : label);

/** A day's value as the hover and tap say it: "Tue 3 Nov: 1,204 visitors", "Tue 3 Nov: average position 4.2". */
export function readout(point: HistoryPoint, metric: Pick<MetricDefinition, 'label' | 'unit'>, currency?: string): string {
  const value = formatValue(point.value, metric.unit, currency);
  const said = metric.unit === 'position' ? `${labelInSentence(metric.label)} ${value}` : `${value} ${labelInSentence(metric.label)}`;
  return `${dayLabel(point.date)}: ${said}${point.late ? ' (taken late)' : ''}`;
}

/** The words of a range's length: "7 days", "a year". */
export const rangeWords = (days: TrendRange): string => (days === 365 ? 'a year' : `${days} days`);
/** A range in a sentence: "the last 7 days", "the last year". */
export const rangePhrase = (days: TrendRange): string => (days === 365 ? 'the last year' : `the last ${days} days`);
/** The range switch's short labels. */
export const rangeShort = (days: TrendRange): string => (days === 365 ? '1y' : `${days}d`);

/**
 * The chart in one sentence, for its aria-label: what, over which days, the first and last values, the change, and
 * how many days have a value. "Visitors, the last 30 days (8 Nov – 7 Dec 2026): 1,020 on 8 Nov to 1,204 on 7 Dec, up 18 %;
 * 28 of 30 days recorded."
 */
export function describeTrend(
  points: readonly HistoryPoint[],
  metric: Pick<MetricDefinition, 'label' | 'unit'>,
  range: { from: string; to: string },
  days: TrendRange,
  currency?: string,
): string {
  const head = `${metric.label}, ${rangePhrase(days)} (${shortDateLabel(range.from)} – ${dateLabel(range.to)})`;
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return `${head}: no days recorded.`;
  const value = (v: number) => formatValue(v, metric.unit, currency);
  if (first === last) return `${head}: ${value(first.value)} on ${shortDateLabel(first.date)}, the only day recorded.`;
  return `${head}: ${value(first.value)} on ${shortDateLabel(first.date)} to ${value(last.value)} on ${shortDateLabel(last.date)}, ${changeWords(first.value, last.value, metric.unit, currency)}; ${points.length} of ${days} days recorded.`;
}

/** "up 18 %", "down $120.00", "unchanged"; a position going down the numbers is going up the ranking, and says so. */
export function changeWords(first: number, last: number, unit: MetricUnit, currency?: string): string {
  if (first === last) return 'unchanged';
  if (unit === 'position') return `${last < first ? 'up' : 'down'} ${formatValue(Math.abs(last - first), unit)} places`;
  const direction = last > first ? 'up' : 'down';
  if (unit === 'fraction') return `${direction} ${new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(Math.abs(last - first) * 100)} points`;
  if (first === 0 || unit === 'stars') return `${direction} ${formatValue(Math.abs(last - first), unit, currency)}`;
  return `${direction} ${new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(Math.abs((last - first) / first) * 100)} %`;
}

/** The All-projects trend of a metric: the projects' days summed, or why there is none. */
export type Combined = { points: HistoryPoint[]; currency?: string } | { reason: 'not summable' } | { reason: 'currencies'; currencies: string[] };

/**
 * Every project's days of one metric summed per day, for the All-projects view. A project counts from its first day to
 * its last (before its history starts it adds nothing); a day one of those projects is missing is a gap in the sum,
 * never a total that silently left a project out. Only counts and money add up, and money only in one currency.
 */
export function combineProjects(series: readonly Pick<History, 'unit' | 'currency' | 'points'>[], unit: MetricUnit): Combined {
  if (!summable(unit)) return { reason: 'not summable' };
  const kept = series.filter((one) => one.points.length > 0);
  const currencies = [...new Set(kept.map((one) => one.currency).filter((currency) => currency !== undefined))];
  if (unit === 'money' && currencies.length > 1) return { reason: 'currencies', currencies: currencies.sort() };
  const spans = kept.map((one) => ({ first: one.points[0]?.date ?? '', last: one.points.at(-1)?.date ?? '', byDate: new Map(one.points.map((point) => [point.date, point])) }));
  const dates = [...new Set(kept.flatMap((one) => one.points.map((point) => point.date)))].sort();
  const points: HistoryPoint[] = [];
  for (const date of dates) {
    const present = spans.filter((span) => span.first <= date && date <= span.last);
    const values = present.map((span) => span.byDate.get(date));
    if (values.some((point) => point === undefined)) continue;
    const total = values.reduce((sum, point) => sum + (point?.value ?? 0), 0);
    points.push({ date, value: Math.round(total * 100) / 100, ...(values.some((point) => point?.late) ? { late: true as const } : {}) });
  }
  return { points, ...(currencies[0] !== undefined ? { currency: currencies[0] } : {}) };
}

/** What a trend shows of one metric: its days (one project's, or all projects' summed), or a sentence why not. */
export type TrendData = { points: HistoryPoint[]; currency?: string } | { unavailable: string };

/**
 * The trends of `metrics` from a year of series, by metric: one project's series as they are; without a project, the
 * projects' days summed, or the reason there is no sum. A metric no series holds (nothing kept yet) has no points.
 */
export function trendsOf(series: readonly History[], metrics: readonly MetricDefinition[], project: string | undefined): Record<string, TrendData> {
  const entries = metrics.map((metric): [string, TrendData] => {
    const own = series.filter((one) => one.metric === metric.key && (project === undefined || one.project === project));
    if (project !== undefined) {
      const [one] = own;
      return [metric.key, { points: one?.points ?? [], ...(one?.currency ? { currency: one.currency } : {}) }];
    }
    const combined = combineProjects(own, metric.unit);
    if ('points' in combined) return [metric.key, combined];
    const unavailable =
      combined.reason === 'currencies'
        ? `No total: the projects’ ${labelInSentence(metric.label)} is in ${combined.currencies.join(' and ')}. Each project’s own trend is on its history page.`
        : `A ${metric.unit === 'fraction' ? 'share' : metric.unit === 'position' ? 'ranking' : 'rating'} does not add up across projects: each project’s is on its history page.`;
    return [metric.key, { unavailable }];
  });
  return Object.fromEntries(entries);
}

/**
 * A trend's days as a page's data carries them: the first day, then every day's value in order (null for a gap), and
 * which were taken late. A year of `{ date, value }` objects is some 12 KB a metric in the HTML; this is about 2.
 */
export interface PackedDays {
  first: string;
  values: (number | null)[];
  late?: number[];
}
export type PackedTrend = { days: PackedDays | null; currency?: string } | { unavailable: string };

/** Days (oldest first) packed for the page; null for none. */
export function packDays(points: readonly HistoryPoint[]): PackedDays | null {
  const first = points[0];
  if (!first) return null;
  const start = dayNumber(first.date);
  const values: (number | null)[] = new Array<number | null>(dayNumber(points.at(-1)?.date ?? first.date) - start + 1).fill(null);
  const late: number[] = [];
  for (const point of points) {
    const at = dayNumber(point.date) - start;
    values[at] = point.value;
    if (point.late) late.push(at);
  }
  return { first: first.date, values, ...(late.length > 0 ? { late } : {}) };
}

/** The days a page's data carries, back as points (a null is a gap: no point). */
export function unpackDays(packed: PackedDays | null): HistoryPoint[] {
  if (!packed) return [];
  const start = dayNumber(packed.first);
  const late = new Set(packed.late);
  return packed.values.flatMap((value, at) => (value === null ? [] : [{ date: dateOfDay(start + at), value, ...(late.has(at) ? { late: true as const } : {}) }]));
}

export const packTrend = (trend: TrendData): PackedTrend =>
  'unavailable' in trend ? trend : { days: packDays(trend.points), ...(trend.currency ? { currency: trend.currency } : {}) };
export const unpackTrend = (trend: PackedTrend | undefined): TrendData =>
  trend === undefined ? { points: [] } : 'unavailable' in trend ? trend : { points: unpackDays(trend.days), ...(trend.currency ? { currency: trend.currency } : {}) };
