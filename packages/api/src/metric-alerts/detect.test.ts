import { describe, expect, it } from 'vitest';
import { metricOf, type MetricAlertParams, type MetricDefinition } from '@dash/contracts';
import { formatValue, weekdayOf } from './format.ts';
import { partialVerdict, walk, type DayValue } from './detect.ts';

// The detection core on hand-made series: what each kind of rule says, on which day, in the words a user reads.

const metric = (key: string): MetricDefinition => {
  const found = metricOf(key);
  if (!found) throw new Error(`no metric ${key}`);
  return found;
};
const visitors = metric('analytics.visitors');
const mrr = metric('revenue.mrr');

/** Day `i` from Monday 2025-01-06. */
const day = (i: number) => new Date(Date.UTC(2025, 0, 6) + i * 86_400_000).toISOString().slice(0, 10);
/** A series of `values` from day 0, `null` a gap. */
const series = (values: readonly (number | null)[]): DayValue[] => values.flatMap((value, i) => (value === null ? [] : [{ date: day(i), value }]));
/** Deterministic small wobble (-20..+20), so that a baseline's MAD is not 0. */
const jitter = (i: number) => ((i * 37) % 41) - 20;
/** A week of visitors, Monday first: quieter weekends. */
const WEEK = [1000, 1040, 1020, 1060, 980, 600, 560];
const traffic = (days: number, at: (i: number) => number = (i) => WEEK[i % 7]! + jitter(i)) => Array.from({ length: days }, (_, i) => at(i));

const unusual = (direction: 'above' | 'below' | 'either' = 'either', z = 4): MetricAlertParams => ({ kind: 'unusual', direction, z });
const said = (result: { firings: { date: string; verdict: string; message: string }[] }) => result.firings.map((f) => `${f.date} ${f.verdict}: ${f.message}`);

describe('threshold', () => {
  const below: MetricAlertParams = { kind: 'threshold', direction: 'below', value: 10_000 };

  it('opens below, reminds weekly, and resolves back above, in the currency', () => {
    const values = [10_500, 10_200, 9_420, ...Array<number>(15).fill(9_300), 10_250, 10_400];
    const result = walk(series(values), below, { metric: mrr, currency: 'USD' });
    expect(said(result)).toEqual([
      `${day(2)} open: MRR below $10,000: $9,420`,
      `${day(9)} remind: MRR below $10,000 for 7 days now: $9,300`,
      `${day(16)} remind: MRR below $10,000 for 14 days now: $9,300`,
      `${day(18)} resolve: MRR back above $10,000: $10,250`,
    ]);
    expect(result.firings[0]?.expected).toEqual({ low: 10_000, high: null });
    expect(result.open).toBeNull();
    expect(result.note).toBeNull();
  });

  it('holds an incident across gaps: a missing day is neither in nor out, and a reminder waits for a day with a value', () => {
    const values = [10_500, 9_000, null, null, 9_100, null, null, null, 9_200, 9_050, null, 10_100];
    const result = walk(series(values), below, { metric: mrr, currency: 'USD' });
    expect(said(result)).toEqual([`${day(1)} open: MRR below $10,000: $9,000`, `${day(8)} remind: MRR below $10,000 for 7 days now: $9,200`, `${day(11)} resolve: MRR back above $10,000: $10,100`]);
  });

  it('alerts above a count, and says when it is back at or below', () => {
    const events = metric('errors.events');
    const result = walk(series([40, 250, 180, 100, 120, 90]), { kind: 'threshold', direction: 'above', value: 100 }, { metric: events });
    expect(said(result)).toEqual([
      `${day(1)} open: Error events above 100: 250`,
      `${day(3)} resolve: Error events back at 100: 100`,
      `${day(4)} open: Error events above 100: 120`,
      `${day(5)} resolve: Error events back below 100: 90`,
    ]);
    expect(result.firings[0]?.expected).toEqual({ low: null, high: 100 });
  });

  it('keeps only the firings from `from` on, and tells the incident still open at the end', () => {
    const result = walk(series([10_500, 9_000, 10_500, 9_500, 9_400]), below, { metric: mrr, currency: 'USD', from: day(2) });
    expect(said(result)).toEqual([`${day(2)} resolve: MRR back above $10,000: $10,500`, `${day(3)} open: MRR below $10,000: $9,500`]);
    expect(result.open).toEqual({ since: day(3), direction: 'below' });
  });

  it('writes each unit as its widget does: a fraction as a percent, a position and stars with their decimals', () => {
    const uptime = walk(series([0.999, 0.975]), { kind: 'threshold', direction: 'below', value: 0.99 }, { metric: metric('uptime.up_ratio') });
    expect(said(uptime)).toEqual([`${day(1)} open: Uptime below 99.0 %: 97.5 %`]);
    const position = walk(series([8.3, 12.26]), { kind: 'threshold', direction: 'above', value: 10 }, { metric: metric('search.position') });
    expect(said(position)).toEqual([`${day(1)} open: Average position above 10.0: 12.3`]);
    const rating = walk(series([4.61, 4.38]), { kind: 'threshold', direction: 'below', value: 4.5 }, { metric: metric('storefront.rating') });
    expect(said(rating)).toEqual([`${day(1)} open: Rating below 4.50: 4.38`]);
  });
});

describe('change', () => {
  const sameWeekday = (direction: 'above' | 'below' | 'either', percent = 20): MetricAlertParams => ({ kind: 'change', direction, percent, compareTo: 'same_weekday' });
  // A week at 925, then a Monday at 610 (-34 %), then a week of 925 again, then a Monday at 1,500 (+62 %).
  const values = [...Array<number>(7).fill(925), 610, ...Array<number>(6).fill(925), 1_500, 925];

  it('compares with the same weekday a week before, in the direction asked', () => {
    expect(said(walk(series(values), sameWeekday('below'), { metric: visitors }))).toEqual([
      `${day(7)} open: Visitors down 34 % against the same weekday last week: 610 against 925`,
      `${day(8)} resolve: Visitors back within 20 % of the same weekday last week: 925 against 925`,
    ]);
    // Above only: the drop says nothing; the Monday after it (1,500 against 610) is the rise it reports.
    expect(said(walk(series(values), sameWeekday('above'), { metric: visitors }))).toEqual([
      `${day(14)} open: Visitors up 146 % against the same weekday last week: 1,500 against 610`,
      `${day(15)} resolve: Visitors back within 20 % of the same weekday last week: 925 against 925`,
    ]);
  });

  it('closes a drop and opens a rise on the same day when the other side is out (either)', () => {
    const flip = [...Array<number>(7).fill(1_000), 600, 1_300, 1_000];
    const result = walk(series(flip), sameWeekday('either'), { metric: visitors });
    expect(said(result)).toEqual([
      `${day(7)} open: Visitors down 40 % against the same weekday last week: 600 against 1,000`,
      `${day(8)} resolve: Visitors no longer down more than 20 % against the same weekday last week: 1,300 against 1,000`,
      `${day(8)} open: Visitors up 30 % against the same weekday last week: 1,300 against 1,000`,
      `${day(9)} resolve: Visitors back within 20 % of the same weekday last week: 1,000 against 1,000`,
    ]);
  });

  it('has no verdict without the day a week before, or when it was 0', () => {
    const gap = [1_000, null, ...Array<number>(5).fill(1_000), 1_000, 100, 1_000];
    expect(walk(series(gap), sameWeekday('either'), { metric: visitors }).firings).toEqual([]);
    const zero = [0, ...Array<number>(6).fill(5), 40, 5];
    expect(walk(series(zero), sameWeekday('either'), { metric: metric('uptime.incidents') }).firings).toEqual([]);
  });

  it('compares with the mean of the previous 7 or 28 days when there are enough of them', () => {
    const previous7: MetricAlertParams = { kind: 'change', direction: 'above', percent: 50, compareTo: 'previous_7' };
    const result = walk(series([1_000, 1_100, 900, 1_000, 2_000]), previous7, { metric: visitors });
    expect(said(result)).toEqual([`${day(4)} open: Visitors up 100 % against the previous 7 days’ average: 2,000 against 1,000`]);
    expect(result.firings[0]?.expected).toEqual({ low: null, high: 1_500 });
    // Three days of the seven: no verdict yet, and the note says what is missing.
    const short = walk(series([1_000, 1_000, 1_000, 2_000]), previous7, { metric: visitors });
    expect(short.firings).toEqual([]);
    expect(short.note).toBe('A change against the previous 7 days’ average needs 4 of the 7 days before: 4 days so far');
    const previous28: MetricAlertParams = { kind: 'change', direction: 'below', percent: 30, compareTo: 'previous_28' };
    const month = walk(series([...Array<number>(13).fill(1_000), 500]), previous28, { metric: visitors });
    expect(month.firings).toEqual([]);
    expect(month.note).toBe('A change against the previous 28 days’ average needs 14 of the 28 days before: 14 days so far');
    expect(said(walk(series([...Array<number>(14).fill(1_000), 500]), previous28, { metric: visitors }))).toEqual([
      `${day(14)} open: Visitors down 50 % against the previous 28 days’ average: 500 against 1,000`,
    ]);
  });

  it('says when the history is too short for a week-ago comparison', () => {
    expect(walk(series([1_000, 1_000, 1_000, 1_000, 1_000]), sameWeekday('either'), { metric: visitors }).note).toBe(
      'A change against the same weekday needs 8 days of history: 5 days so far',
    );
  });
});

describe('unusual', () => {
  // Eight Mondays before day 56: 1100, 1150, 1200, 1180, 1220, 1160, 1240, 1190. Median 1185 moved to the level of the
  // last 7 days (held at the last 2 Mondays' 1,215: ×1.025), the scale 5 % on the logarithms: 1,215 × e^±(4 × 0.05) = 981-1,464.
  const mondays = [1_100, 1_150, 1_200, 1_180, 1_220, 1_160, 1_240, 1_190];
  const eightWeeks = traffic(56, (i) => (i % 7 === 0 ? mondays[i / 7]! : WEEK[i % 7]! + jitter(i)));

  it('alerts on a day outside its weekday band, with the band in the message, and resolves after three days in range', () => {
    const values = [...eightWeeks, 610, ...traffic(6, (i) => WEEK[(i + 1) % 7]! + jitter(i + 57))];
    const result = walk(series(values), unusual(), { metric: visitors });
    expect(said(result)).toEqual([
      `${day(56)} open: Visitors unusually low: 610 on a Monday, expected 981–1,464`,
      `${day(59)} resolve: Visitors back in range: ${formatValue(values[59]!, 'count')} (expected ${formatValue(result.firings[1]!.expected!.low!, 'count')}–${formatValue(result.firings[1]!.expected!.high!, 'count')})`,
    ]);
    expect(result.firings[0]?.expected?.low).toBeCloseTo(981, 0);
    expect(result.firings[0]?.expected?.high).toBeCloseTo(1_464, 0);
    expect(weekdayOf(day(56))).toBe('Monday');
  });

  it('alerts only on the side asked', () => {
    const low = series([...eightWeeks, 610]);
    const high = series([...eightWeeks, 2_000]);
    expect(walk(low, unusual('above'), { metric: visitors }).firings).toEqual([]);
    expect(said(walk(low, unusual('below'), { metric: visitors }))).toEqual([`${day(56)} open: Visitors unusually low: 610 on a Monday, expected 981–1,464`]);
    expect(walk(high, unusual('below'), { metric: visitors }).firings).toEqual([]);
    expect(said(walk(high, unusual('either'), { metric: visitors }))).toEqual([`${day(56)} open: Visitors unusually high: 2,000 on a Monday, expected 981–1,464`]);
    // A higher z widens the band: 1,215 × e^±(6 × 0.05).
    expect(said(walk(low, unusual('either', 6), { metric: visitors }))).toEqual([`${day(56)} open: Visitors unusually low: 610 on a Monday, expected 888–1,617`]);
  });

  it('needs three same weekdays: with less history it says so and never alerts', () => {
    const result = walk(series([...traffic(11), 0]), unusual(), { metric: visitors });
    expect(result.firings).toEqual([]);
    expect(result.note).toBe('Unusual needs 3 weeks of history: 12 days so far');
    // Day 21 has three Mondays before it: judged, no note.
    const enough = walk(series([...traffic(21), 100]), unusual(), { metric: visitors });
    expect(said(enough)).toHaveLength(1);
    expect(enough.note).toBeNull();
  });

  it('judges a day on the present same weekdays only, gaps skipped, within twelve weeks', () => {
    // Only Mondays, and three of the eight missing: the five left make the band.
    const sparse = eightWeeks.map((value, i) => (i % 7 === 0 && ![1, 3, 5].includes(i / 7) ? value : null));
    const result = walk(series([...sparse, 610]), unusual(), { metric: visitors });
    // Mondays 1100, 1200, 1220, 1240, 1190: median 1200, MAD 20, the scale 5 %; Mondays only, so no recent days tell the
    // level and the median stays: 1,200 × e^±(4 × 0.05) = 982-1,466.
    expect(said(result)).toEqual([`${day(56)} open: Visitors unusually low: 610 on a Monday, expected 982–1,466`]);
    // A Monday whose earlier Mondays are all more than twelve weeks back: no verdict, and the note says why.
    const old = walk([0, 7, 14, 105].map((i) => ({ date: day(i), value: i === 105 ? 610 : 1_000 })), unusual(), { metric: visitors });
    expect(old.firings).toEqual([]);
    expect(old.note).toBe(`Unusual needs 3 earlier Mondays in the 12 weeks before ${day(105)}: 0 so far`);
  });

  it('leaves a blip out of later baselines', () => {
    // Every day of a week at 1000, the next at 1200, and so on four weeks: a weekday's band on the logarithms is wide,
    // 638-1,881. Monday of week 5 spikes to 3,000 (a one-day blip); Monday of week 6 is 2,000.
    const weeks = [1_000, 1_200, 1_000, 1_200].flatMap((level) => Array<number>(7).fill(level));
    const values = [...weeks, 3_000, ...Array<number>(6).fill(1_000), 2_000, ...Array<number>(6).fill(1_000)];
    const result = walk(series(values), unusual(), { metric: visitors });
    expect(said(result)).toEqual([
      `${day(28)} open: Visitors unusually high: 3,000 on a Monday, expected 638–1,881`,
      `${day(31)} resolve: Visitors back in range: 1,000 (expected 638–1,881)`,
      // With the blip in its baseline (median 1,200 of 1000, 1200, 1000, 1200, 3000), this Monday's band would hold 2,000.
      `${day(35)} open: Visitors unusually high: 2,000 on a Monday, expected 638–1,881`,
      // Thursdays so far 1000, 1200, 1000, 1200, 1000, 1000: median 1000, MAD 0, the scale 5 %.
      `${day(38)} resolve: Visitors back in range: 1,000 (expected 819–1,221)`,
    ]);
  });

  it('after a permanent step, is one incident that reminds weekly and closes by itself once the new level is normal', () => {
    const values = traffic(140, (i) => Math.round((WEEK[i % 7]! + jitter(i)) * (i >= 56 ? 0.6 : 1)));
    const result = walk(series(values), unusual(), { metric: visitors });
    expect(result.firings.map((f) => `${f.date} ${f.verdict}`)).toEqual([
      `${day(56)} open`,
      `${day(63)} remind`,
      `${day(70)} remind`,
      `${day(77)} remind`,
      // Four weeks in, the weekday medians move to the new level: a whole week in range closes it, and nothing follows.
      `${day(90)} resolve`,
    ]);
    expect(result.firings[0]?.message).toBe('Visitors unusually low: 601 on a Monday, expected 821–1,225');
    expect(result.firings[1]?.message).toBe('Visitors unusually low for 7 days now: 609 on a Monday, expected 817–1,220');
    expect(result.open).toBeNull();
  });

  it('follows a steadily rising series: no alert on growth of 0.3 % or 0.5 % a day, and a 40 % drop on it is still found', () => {
    // The median of 8 weeks is the level of about 4 weeks ago (10 % low at 0.3 % a day): the recent days' level moves it
    // up. The trend still widens the MAD (at 0.5 % a day a 30 % drop is inside the band).
    for (const rate of [0.003, 0.005]) {
      const rising = traffic(200, (i) => Math.round((WEEK[i % 7]! + jitter(i)) * Math.exp(rate * i)));
      expect(walk(series(rising), unusual(), { metric: visitors }).firings).toEqual([]);
      const dropped = rising.map((value, i) => (i === 150 ? Math.round(value * 0.6) : value));
      expect(walk(series(dropped), unusual(), { metric: visitors }).firings.map((f) => `${f.date} ${f.verdict}`)).toEqual([`${day(150)} open`, `${day(153)} resolve`]);
    }
  });

  it('watches a stock through its day-to-day differences, with the expected range in value terms', () => {
    // MRR grows about $20 a day; one day jumps $3,000 and the next is back.
    const values = traffic(60, (i) => 10_000 + i * 20 + jitter(i) + (i === 40 ? 3_000 : 0));
    const result = walk(series(values), unusual(), { metric: mrr, currency: 'USD' });
    expect(said(result)).toEqual([
      `${day(40)} open: MRR unusually high: $13,784, up $3,016 in a day, expected $10,353–$11,215`,
      `${day(43)} resolve: MRR back in range: $10,873 (expected $10,439–$11,307)`,
    ]);
    // A lasting drop of $2,000 in a day: one alert; its new level is then the stock's normal.
    const drop = walk(series(traffic(60, (i) => 10_000 + i * 20 + jitter(i) - (i >= 40 ? 2_000 : 0))), unusual('below'), { metric: mrr, currency: 'USD' });
    expect(said(drop)).toEqual([
      `${day(40)} open: MRR unusually low: $8,784, down $1,984 in a day, expected $10,353–$11,215`,
      `${day(43)} resolve: MRR back in range: $8,873 (expected $8,519–$9,227)`,
    ]);
    // A stock needs three weeks of differences: a day more than a flow.
    expect(walk(series(traffic(22, (i) => 10_000 + i)), unusual(), { metric: mrr }).note).toBe('Unusual needs 3 weeks of history: 22 days so far');
  });

  it('keeps a count stock steady through small moves and alerts on a jump', () => {
    const bugs = metric('bugs.open');
    // 20, 21, 22, 20, ...: differences +1, +1, -2; a same weekday's median +1 and a scale of one bug: 21 + 1 ± 4.
    const values = [...traffic(35, (i) => 20 + (i % 3)), 31];
    expect(said(walk(series(values), unusual(), { metric: bugs }))).toEqual([`${day(35)} open: Open bugs unusually high: 31, up 10 in a day, expected 18–26`]);
  });
});

describe('partialVerdict', () => {
  const history = series(traffic(56));
  const today = day(56);

  it('can say "above" of an incomplete day, against the band a complete day would have', () => {
    const firing = partialVerdict(history, { date: today, value: 1_500 }, unusual(), { metric: visitors });
    expect(firing?.verdict).toBe('open');
    expect(firing?.message).toMatch(/^Visitors unusually high: 1,500 so far on a Monday, expected \d{3}–1,\d{3}$/);
    expect(walk([...history, { date: today, value: 1_500 }], unusual(), { metric: visitors }).firings[0]?.expected).toEqual(firing?.expected);
  });

  it('never says "below": a running value only grows', () => {
    expect(partialVerdict(history, { date: today, value: 10 }, unusual(), { metric: visitors })).toBeNull();
    expect(partialVerdict(history, { date: today, value: 10 }, unusual('below'), { metric: visitors })).toBeNull();
    expect(partialVerdict(history, { date: today, value: 10 }, { kind: 'threshold', direction: 'below', value: 500 }, { metric: visitors })).toBeNull();
    expect(partialVerdict(history, { date: today, value: 10 }, { kind: 'change', direction: 'either', percent: 20, compareTo: 'same_weekday' }, { metric: visitors })).toBeNull();
  });

  it('reports a threshold or a change passed already, and nothing for a stock or an incident already open above', () => {
    expect(partialVerdict(history, { date: today, value: 1_200 }, { kind: 'threshold', direction: 'above', value: 1_100 }, { metric: visitors })?.message).toBe(
      'Visitors above 1,100: 1,200 so far',
    );
    const weekAgo = history.find((point) => point.date === day(49))!.value;
    expect(partialVerdict(history, { date: today, value: weekAgo * 1.5 }, { kind: 'change', direction: 'either', percent: 20, compareTo: 'same_weekday' }, { metric: visitors })?.message).toBe(
      `Visitors up 50 % against the same weekday last week: ${formatValue(weekAgo * 1.5, 'count')} so far against ${formatValue(weekAgo, 'count')}`,
    );
    expect(partialVerdict(series(traffic(56, (i) => 10_000 + i)), { date: today, value: 50_000 }, unusual(), { metric: mrr })).toBeNull();
    const alreadyHigh = [...history.slice(0, -1), { date: day(55), value: 5_000 }];
    expect(partialVerdict(alreadyHigh, { date: today, value: 5_000 }, unusual(), { metric: visitors })).toBeNull();
  });
});

describe('formatValue', () => {
  it('writes money in its currency, whole from 1,000 up, and a plain number without a known currency', () => {
    expect(formatValue(10_000, 'money', 'USD')).toBe('$10,000');
    expect(formatValue(9_420.4, 'money', 'USD')).toBe('$9,420');
    expect(formatValue(12.5, 'money', 'USD')).toBe('$12.50');
    expect(formatValue(9_420, 'money', 'EUR')).toBe('€9,420');
    expect(formatValue(-50, 'money', 'USD')).toBe('-$50');
    expect(formatValue(9_420, 'money', 'not a currency')).toBe('9,420');
    expect(formatValue(9_420, 'money')).toBe('9,420');
  });

  it('writes a count with separators, a fraction as a percent, a position and stars with their decimals', () => {
    expect(formatValue(1_234_567.4, 'count')).toBe('1,234,567');
    expect(formatValue(0.9921, 'fraction')).toBe('99.2 %');
    expect(formatValue(3.14159, 'position')).toBe('3.1');
    expect(formatValue(4.5, 'stars')).toBe('4.50');
  });
});
