import type { Range } from '@dash/contracts';

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a moment, in UTC: the day every upstream here buckets by. */
export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** How far back a range reaches; `all` is bounded so one request cannot ask for a decade of days. */
export const rangeDays: Record<Range, number> = { '7d': 7, '15d': 15, '30d': 30, '3m': 90, '1y': 365, all: 5 * 365 };

/**
 * The days a range covers, oldest first, ending today (UTC). A chart has exactly one point per day;
 * days the upstream reports nothing for are 0.
 */
export function daysOf(range: Range, now: number): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const key = `${range}:${today}`;
  let days = recentDays.get(key);
  if (!days) {
    days = [];
    for (let i = rangeDays[range] - 1; i >= 0; i--) days.push(isoDay(today - i * DAY_MS));
    // Every cached answer asks for the same few lists all day: keep the latest, a copy per caller.
    if (recentDays.size >= 32) recentDays.clear();
    recentDays.set(key, days);
  }
  return [...days];
}

const recentDays = new Map<string, string[]>();

/**
 * One value per day of the range, oldest first, 0 for days the upstream reports nothing for. For
 * `all`, the series starts at the first day with anything, rather than five years of zeros.
 */
export function dailySeries(
  range: Range,
  now: number,
  perDay: ReadonlyMap<string, number>,
  round: (value: number) => number = (value) => value,
): { date: string; value: number }[] {
  const series = daysOf(range, now).map((date) => ({ date, value: round(perDay.get(date) ?? 0) }));
  if (range !== 'all') return series;
  const first = series.findIndex((point) => point.value !== 0);
  return first === -1 ? series.slice(-30) : series.slice(first);
}

/** A revenue chart: amounts per day, rounded to cents. */
export function dailyChart(range: Range, now: number, amounts: ReadonlyMap<string, number>): { date: string; revenue: number }[] {
  return dailySeries(range, now, amounts, roundMoney).map(({ date, value }) => ({ date, revenue: value }));
}

/** Money in major units, to the cent: float sums must not show 19.990000000000002. */
export const roundMoney = (amount: number): number => Math.round(amount * 100) / 100;
