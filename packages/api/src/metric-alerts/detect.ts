// The detection core of metric alerts: what a rule says about each day of a metric's history. Pure: no clock, no
// store, no I/O. The evaluator, the preview and the bench (bench/anomaly.mjs) all walk a series through `walk`.
//
// Each day is judged on the days before it only, as it would have been that day; a day without a value (a gap) or
// without a verdict (too little history, a reference of 0) changes nothing. A day out of range opens an incident; later
// out days on the same side extend it silently, with a reminder each REMIND_DAYS; in-range days close it (the first,
// or for `unusual` a few in a row: see UNUSUAL_BLIP_CALM_DAYS); a day out on the other side closes it and opens
// another. docs/metric-alerts.md ("How unusual is decided") says why the `unusual` band is what it is.
import type { MetricAlertFiring, MetricAlertParams, MetricDefinition } from '@dash/contracts';
import { LEVEL_DAYS, linearBandOf, logBandOf } from './baseline.ts';
import { comparisonPhrase, formatPercent, formatRange, formatValue, say, sayStill, weekdayOf, type Sentence } from './format.ts';

/** One day of a metric: series are ascending; a missing day is a gap (no verdict, nothing changes), never a zero. */
export interface DayValue {
  date: string;
  value: number;
}

export { LEVEL_DAYS, LEVEL_MIN_DAYS, MAD_TO_SIGMA, MEDIAN_SHARE_FLOOR, SCALE_EPSILON } from './baseline.ts';

/** `unusual`: the baseline is the median and MAD of the last K present same weekdays before the day (baseline.ts)… */
export const UNUSUAL_WEEKDAYS = 8;
/** …of which there must be at least this many (else the day has no verdict: 3 weeks of history)… */
export const UNUSUAL_MIN_WEEKDAYS = 3;
/** …looked for at most this many weeks back. */
export const UNUSUAL_LOOKBACK_WEEKS = 12;
/** A stock's day-to-day difference has a scale of at least this share of the level before it ($100 on $10,000 MRR). */
export const STOCK_LEVEL_FLOOR = 0.01;
/**
 * An incident (or run) of at most this many out days is a blip: its days are left out of later baselines (unless the
 * same weekday a week later is out on the same side too: then it was the start of a shift, and it counts again).
 */
export const BLIP_DAYS = 2;
/**
 * An `unusual` blip closes on the 3rd in-range day in a row, a longer `unusual` incident (a level shift?) once a whole
 * week is back in range; a `threshold` or `change` one on the first in-range day. Closing `unusual` on the first, a
 * shift about as large as the noise closed and opened again every few days (on bench/anomaly.mjs's series, 3.5 opens
 * in the 6 weeks after a x1.5 step at 50 a day or a x0.6 step at 200; 1.3-1.4 so).
 */
export const UNUSUAL_BLIP_CALM_DAYS = 3;
export const UNUSUAL_SHIFT_CALM_DAYS = 7;
/** An open incident reminds once this many days have passed since it opened or last reminded. */
export const REMIND_DAYS = 7;
/** `change` against `previous_7` / `previous_28` needs this many present days among those 7 / 28. */
export const CHANGE_MIN_DAYS = { previous_7: 4, previous_28: 14 } as const;

type Side = 'above' | 'below';
type Expected = NonNullable<MetricAlertFiring['expected']>;
interface Options {
  metric: MetricDefinition;
  currency?: string | undefined;
}
/** What a rule says of one day: out on a side (or in range, null), the range it was held to and its sentences. */
interface Judged {
  side: Side | null;
  expected: Expected;
  /** The sentence of a day out on `side`. */
  out: (side: Side) => Sentence;
  /** The sentence of a resolve on this day, of an incident that was out on `side`. */
  back: (side: Side) => string;
  /** A stock back to its level before the run (its difference is out, its value is not). */
  returned?: boolean;
}
/** No verdict: `lack` for too little history (said in the note), `none` for a reference of 0. */
type Verdict = Judged | 'lack' | 'none';

const DAY_MS = 86_400_000;
const dayOf = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The walk's state: the series by day, the days left out of baselines, the run of out days and the open incident. */
interface Engine {
  params: MetricAlertParams;
  options: Options;
  values: Map<number, number>;
  days: number[];
  prev: Map<number, number>;
  /** Blip days, with the side they were out on. */
  excluded: Map<number, Side>;
  /** Each judged day's side (null: in range), whatever the rule's direction. */
  sides: Map<number, Side | null>;
  /** Each judged flow day's same-weekday median (before the level correction), for the level of the days after it. */
  medians: Map<number, number>;
  /** The current run of out days on one side, whatever the rule's direction (for the baselines). */
  run: { side: Side; days: number[]; returns: number[]; calm: number; levelBefore: number | undefined } | null;
  /** `calm`: the in-range days in a row since its last out day. */
  incident: { since: number; side: Side; notified: number; calm: number; out: number } | null;
}

function engineOf(series: readonly DayValue[], params: MetricAlertParams, options: Options): Engine {
  const values = new Map<number, number>();
  for (const point of series) if (Number.isFinite(point.value)) values.set(dayOf(point.date), point.value);
  const days = [...values.keys()].sort((a, b) => a - b);
  const prev = new Map<number, number>();
  days.forEach((day, i) => i > 0 && prev.set(day, days[i - 1]!));
  return { params, options, values, days, prev, excluded: new Map(), sides: new Map(), medians: new Map(), run: null, incident: null };
}

const isExcluded = (e: Engine, day: number) => {
  const side = e.excluded.get(day) ?? (e.run !== null && e.run.days.length <= BLIP_DAYS && (e.run.days.includes(day) || e.run.returns.includes(day)) ? e.run.side : undefined);
  return side !== undefined && e.sides.get(day + 7) !== side;
};
/** A stock's difference on `day`: its value less the previous present day's. */
const differenceOf = (e: Engine, day: number) => {
  const before = e.prev.get(day);
  const value = e.values.get(day);
  return before === undefined || value === undefined ? undefined : value - e.values.get(before)!;
};
const fmt = (e: Engine, value: number) => formatValue(value, e.options.metric.unit, e.options.currency);
const range = (e: Engine, expected: Expected) => formatRange(expected.low, expected.high, e.options.metric.unit, e.options.currency);
const sideOf = (value: number, expected: Expected): Side | null =>
  expected.high !== null && value > expected.high ? 'above' : expected.low !== null && value < expected.low ? 'below' : null;

function judgeThreshold(e: Engine, params: Extract<MetricAlertParams, { kind: 'threshold' }>, value: number, partial: boolean): Judged {
  const label = e.options.metric.label;
  const expected = params.direction === 'above' ? { low: null, high: params.value } : { low: params.value, high: null };
  const back = value === params.value ? 'at' : params.direction === 'above' ? 'below' : 'above';
  return {
    side: sideOf(value, expected),
    expected,
    out: (side) => ({ head: `${label} ${side} ${fmt(e, params.value)}`, tail: `${fmt(e, value)}${partial ? ' so far' : ''}` }),
    back: () => `${label} back ${back} ${fmt(e, params.value)}: ${fmt(e, value)}`,
  };
}

function judgeChange(e: Engine, params: Extract<MetricAlertParams, { kind: 'change' }>, day: number, value: number, partial: boolean): Verdict {
  let reference: number | undefined;
  if (params.compareTo === 'same_weekday') reference = e.values.get(day - 7);
  else {
    const span = params.compareTo === 'previous_7' ? 7 : 28;
    const before = [];
    for (let d = day - span; d < day; d++) if (e.values.has(d)) before.push(e.values.get(d)!);
    if (before.length >= CHANGE_MIN_DAYS[params.compareTo]) reference = before.reduce((sum, v) => sum + v, 0) / before.length;
  }
  if (reference === undefined) return 'lack';
  if (reference === 0) return 'none';
  const ref = reference;
  const margin = (Math.abs(ref) * params.percent) / 100;
  const band = { low: ref - margin, high: ref + margin };
  const side = sideOf(value, band);
  const label = e.options.metric.label;
  const phrase = comparisonPhrase[params.compareTo];
  const change = ((value - ref) / Math.abs(ref)) * 100;
  const tail = () => `${fmt(e, value)}${partial ? ' so far' : ''} against ${fmt(e, ref)}`;
  return {
    side,
    expected: { low: params.direction === 'above' ? null : band.low, high: params.direction === 'below' ? null : band.high },
    out: (out) => ({ head: `${label} ${out === 'above' ? 'up' : 'down'} ${formatPercent(change, params.percent)} against ${phrase}`, tail: tail() }),
    back: (was) =>
      side === null
        ? `${label} back within ${params.percent} % of ${phrase}: ${tail()}`
        : `${label} no longer ${was === 'above' ? 'up' : 'down'} more than ${params.percent} % against ${phrase}: ${tail()}`,
  };
}

/** A band in value terms, held to what the unit can be (a fraction 0-1; a count, money or stars not below 0). */
function clamp(e: Engine, low: number, high: number, center: number): Expected {
  const unit = e.options.metric.unit;
  if (unit === 'fraction') return { low: Math.min(Math.max(low, 0), 1), high: Math.min(Math.max(high, 0), 1) };
  if ((unit === 'count' || unit === 'money' || unit === 'stars') && center >= 0) return { low: Math.max(low, 0), high };
  return { low, high };
}

/** The baseline of `day`: the last UNUSUAL_WEEKDAYS present same weekdays before it (a stock's differences), blips left out. */
function sampleOf(e: Engine, day: number): number[] {
  const stock = e.options.metric.kind === 'stock';
  const sample: number[] = [];
  for (let k = 1; k <= UNUSUAL_LOOKBACK_WEEKS && sample.length < UNUSUAL_WEEKDAYS; k++) {
    const d = day - 7 * k;
    const v = isExcluded(e, d) ? undefined : stock ? differenceOf(e, d) : e.values.get(d);
    if (v !== undefined) sample.push(v);
  }
  return sample;
}

/** A flow's recent level (baseline.ts): the last LEVEL_DAYS days' values to their own medians, days out of range or left out skipped. */
function ratiosOf(e: Engine, day: number): number[] {
  const ratios: number[] = [];
  for (let d = day - 1; d >= day - LEVEL_DAYS; d--) {
    const middle = e.medians.get(d);
    const value = e.values.get(d);
    if (middle !== undefined && middle > 0 && value !== undefined && e.sides.get(d) === null && !isExcluded(e, d)) ratios.push(value / middle);
  }
  return ratios;
}

function judgeUnusual(e: Engine, params: Extract<MetricAlertParams, { kind: 'unusual' }>, day: number, value: number, partial: boolean): Verdict {
  const stock = e.options.metric.kind === 'stock';
  const sample = sampleOf(e, day);
  const before = stock ? e.prev.get(day) : undefined;
  const level = before === undefined ? undefined : e.values.get(before);
  if (sample.length < UNUSUAL_MIN_WEEKDAYS || (stock && level === undefined)) return 'lack';
  const count = e.options.metric.unit === 'count';
  const base = level ?? 0;
  const relative = !stock && (count || e.options.metric.unit === 'money') && sample.every((v) => v > 0);
  const band = stock
    ? linearBandOf(sample, params.z, count, STOCK_LEVEL_FLOOR * Math.abs(base))
    : relative
      ? logBandOf(sample, params.z, count, ratiosOf(e, day))
      : linearBandOf(sample, params.z, count, 0, ratiosOf(e, day));
  if (!stock && !partial) e.medians.set(day, band.median);
  let expected = clamp(e, base + band.low, base + band.high, base + band.center);
  let side = sideOf(value, expected);
  let returned = false;
  // A stock back at its level before the run (a glitch undone): its difference is out, but it is back in range.
  const levelBefore = e.run?.levelBefore;
  if (stock && side !== null && e.run !== null && e.run.side !== side && levelBefore !== undefined) {
    const home = clamp(e, levelBefore + band.low, levelBefore + band.high, levelBefore + band.center);
    if (sideOf(value, home) === null) [expected, side, returned] = [home, null, true];
  }
  const label = e.options.metric.label;
  const final = expected;
  const where = () => {
    const shown = `${fmt(e, value)}${partial ? ' so far' : ''}`;
    if (!stock) return `${shown} on a ${weekdayOf(dateOf(day))}`;
    const steps = day - before!;
    return `${shown}, ${value >= base ? 'up' : 'down'} ${fmt(e, Math.abs(value - base))} in ${steps === 1 ? 'a day' : `${steps} days`}`;
  };
  return {
    side,
    expected: final,
    returned,
    out: (out) => ({ head: `${label} unusually ${out === 'above' ? 'high' : 'low'}`, tail: `${where()}, expected ${range(e, final)}` }),
    back: (was) =>
      side === null
        ? `${label} back in range: ${fmt(e, value)} (expected ${range(e, final)})`
        : `${label} no longer unusually ${was === 'above' ? 'high' : 'low'}: ${fmt(e, value)} (expected ${range(e, final)})`,
  };
}

function judge(e: Engine, day: number, value: number, partial: boolean): Verdict {
  const { params } = e;
  if (params.kind === 'threshold') return judgeThreshold(e, params, value, partial);
  if (params.kind === 'change') return judgeChange(e, params, day, value, partial);
  return judgeUnusual(e, params, day, value, partial);
}

/** The side a rule alerts on: its direction filters the other side out. */
const alerting = (params: MetricAlertParams, side: Side | null): Side | null =>
  side !== null && (params.direction === 'either' || params.direction === side) ? side : null;

/** In-range days in a row that close an incident (or a run) of `out` out days. */
const calmDaysOf = (params: MetricAlertParams, out: number) =>
  params.kind !== 'unusual' ? 1 : out > BLIP_DAYS ? UNUSUAL_SHIFT_CALM_DAYS : UNUSUAL_BLIP_CALM_DAYS;

/** Keeps the run of out days (whatever the direction): a run that closes with at most BLIP_DAYS out days leaves the baselines. */
function track(e: Engine, day: number, judged: Judged) {
  const { run } = e;
  const close = () => {
    if (run && run.days.length <= BLIP_DAYS) for (const d of [...run.days, ...run.returns]) e.excluded.set(d, run.side);
    e.run = null;
  };
  if (judged.side === null) {
    if (!run) return;
    if (judged.returned) run.returns.push(day);
    if (++run.calm >= calmDaysOf(e.params, run.days.length)) close();
  } else if (run?.side === judged.side) {
    run.days.push(day);
    run.calm = 0;
  } else {
    close();
    const before = e.prev.get(day);
    e.run = { side: judged.side, days: [day], returns: [], calm: 0, levelBefore: before === undefined ? undefined : e.values.get(before) };
  }
}

/** Walks every present day of the engine's series, calling `fire` for each firing; answers the last day's verdict. */
function run(e: Engine, fire: (firing: MetricAlertFiring) => void): Verdict | undefined {
  let last: Verdict | undefined;
  for (const day of e.days) {
    const value = e.values.get(day)!;
    const judged = judge(e, day, value, false);
    last = judged;
    if (typeof judged === 'string') continue;
    if (e.params.kind === 'unusual') {
      track(e, day, judged);
      e.sides.set(day, judged.side);
    }
    const side = alerting(e.params, judged.side);
    const date = dateOf(day);
    const firing = (verdict: MetricAlertFiring['verdict'], message: string) => fire({ date, verdict, value, expected: judged.expected, message });
    const open = e.incident;
    if (open && side === null && ++open.calm < calmDaysOf(e.params, open.out)) continue;
    if (open && open.side !== side) {
      firing('resolve', judged.back(open.side));
      e.incident = null;
    }
    if (side === null) continue;
    if (!e.incident) {
      e.incident = { since: day, side, notified: day, calm: 0, out: 1 };
      firing('open', say(judged.out(side)));
    } else {
      e.incident.calm = 0;
      e.incident.out++;
      if (day - e.incident.notified >= REMIND_DAYS) {
        e.incident.notified = day;
        firing('remind', sayStill(judged.out(side), day - e.incident.since));
      }
    }
  }
  return last;
}

/** Why the last day had no verdict, when it was too little history; null otherwise. */
function noteOf(e: Engine, last: Verdict | undefined): string | null {
  const { params } = e;
  if (params.kind === 'threshold' || (last !== undefined && last !== 'lack')) return null;
  const first = e.days[0];
  const lastDay = e.days.at(-1);
  const span = first === undefined || lastDay === undefined ? 0 : lastDay - first + 1;
  const n = e.days.length;
  const sofar = `${n} ${n === 1 ? 'day' : 'days'} so far`;
  if (params.kind === 'unusual') {
    if (span <= 7 * UNUSUAL_MIN_WEEKDAYS + (e.options.metric.kind === 'stock' ? 1 : 0)) return `Unusual needs ${UNUSUAL_MIN_WEEKDAYS} weeks of history: ${sofar}`;
    const found = sampleOf(e, lastDay!).length;
    return `Unusual needs ${UNUSUAL_MIN_WEEKDAYS} earlier ${weekdayOf(dateOf(lastDay!))}s in the ${UNUSUAL_LOOKBACK_WEEKS} weeks before ${dateOf(lastDay!)}: ${found} so far`;
  }
  if (params.compareTo === 'same_weekday') {
    if (span <= 7) return `A change against the same weekday needs 8 days of history: ${sofar}`;
    return `No value on ${dateOf(lastDay! - 7)} to compare ${dateOf(lastDay!)} with`;
  }
  const need = CHANGE_MIN_DAYS[params.compareTo];
  const days = params.compareTo === 'previous_7' ? 7 : 28;
  return `A change against ${comparisonPhrase[params.compareTo]} needs ${need} of the ${days} days before: ${sofar}`;
}

/**
 * A rule over a metric's whole series, day by day: the firings from `from` on (all when absent), the incident still
 * open after the last day, and a note when the last day could not be judged for too little history.
 */
export function walk(
  series: readonly DayValue[],
  params: MetricAlertParams,
  options: { metric: MetricDefinition; currency?: string | undefined; from?: string | undefined },
): { firings: MetricAlertFiring[]; open: { since: string; direction: Side } | null; note: string | null } {
  const e = engineOf(series, params, options);
  const firings: MetricAlertFiring[] = [];
  const last = run(e, (firing) => {
    if (options.from === undefined || firing.date >= options.from) firings.push(firing);
  });
  const open = e.incident && { since: dateOf(e.incident.since), direction: e.incident.side };
  return { firings, open, note: noteOf(e, last) };
}

/**
 * An intraday check of a flow metric's running value for `today` (incomplete: it can only grow), against the same
 * reference or band a complete day would have, judged on `series`' days before it. A partial value can only prove
 * "above": the firing is an `open` above, or null (below, in range, no verdict, a stock, a below-only rule, or an
 * incident above already open at the end of `series`).
 */
export function partialVerdict(series: readonly DayValue[], today: DayValue, params: MetricAlertParams, options: Options): MetricAlertFiring | null {
  if (options.metric.kind !== 'flow' || params.direction === 'below' || !Number.isFinite(today.value)) return null;
  const e = engineOf(
    series.filter((point) => point.date < today.date),
    params,
    options,
  );
  run(e, () => undefined);
  if (e.incident?.side === 'above') return null;
  const judged = judge(e, dayOf(today.date), today.value, true);
  if (typeof judged === 'string' || judged.side !== 'above') return null;
  return { date: today.date, verdict: 'open', value: today.value, expected: judged.expected, message: say(judged.out('above')) };
}
