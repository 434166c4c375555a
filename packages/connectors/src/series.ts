import type { MetricKey } from '@dash/contracts';
import type { DailyValue, SeriesWindow } from './connector.ts';
import { isoDay } from './dates.ts';

const DAY_MS = 86_400_000;

/** Midnight UTC of a `YYYY-MM-DD` day, in ms. */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** The day `days` after (or, negative, before) a `YYYY-MM-DD` day. */
export const addDays = (day: string, days: number): string => isoDay(dayStart(day) + days * DAY_MS);

/** The day after a `YYYY-MM-DD` day. */
export const nextDay = (day: string): string => addDays(day, 1);

/** Every day from `from` to `to`, both in, oldest first; none when `to` is before `from`. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = nextDay(day)) days.push(day);
  return days;
}

/**
 * The part of a series read a provider can have covered: `from` to `to`, but no day after today (UTC); today itself is
 * in, still settling (the daily snapshot reads it again). undefined when the window is wholly in the future.
 */
export function readableWindow({ from, to, now }: SeriesWindow): { from: string; to: string } | undefined {
  const today = isoDay(now);
  const last = to < today ? to : today;
  return from <= last ? { from, to: last } : undefined;
}

/**
 * A metric's values over `days` (the days the provider says it counted), from the first day it has a row for: a counted
 * day without a row after that is 0 (the provider's own chart draws it so); the counted days before the first row are
 * left out, since a provider counts days before anything was tracked too and those are not zeros worth keeping. A
 * row whose value is null is a gap.
 */
export function countedFromFirst(metric: MetricKey, days: readonly string[], values: ReadonlyMap<string, number | null>): DailyValue[] {
  const out: DailyValue[] = [];
  let started = false;
  for (const date of days) {
    const value = values.get(date);
    if (values.has(date)) started = true;
    if (!started || value === null) continue;
    out.push({ metric, date, value: value ?? 0 });
  }
  return out;
}

/** `from`..`to` cut into consecutive windows of at most `maxDays` days each, oldest first. */
export function windowsOf({ from, to }: { from: string; to: string }, maxDays: number): { from: string; to: string }[] {
  const days = daysBetween(from, to);
  const windows: { from: string; to: string }[] = [];
  for (let i = 0; i < days.length; i += maxDays) windows.push({ from: days[i] ?? from, to: days[Math.min(i + maxDays, days.length) - 1] ?? to });
  return windows;
}
