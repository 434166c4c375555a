import { weekdays, type BriefingSchedule as StoredSchedule } from '@dash/contracts';
import type { Temporal } from '@js-temporal/polyfill';
import { localTime, wallInstant } from '../notifications/policy/quiet-hours.ts';

/**
 * When the briefing email goes out, pure: the schedule's wall time on its weekdays, read in its time zone with
 * Temporal's rules as quiet hours are, so daylight saving is followed (08:00 stays 08:00 local; the UTC instant
 * moves by the hour). A wall time that does not exist that day (inside the spring-forward gap) is moved forward by
 * the gap; one that happens twice (the fall-back hour) is its earlier instant ("compatible").
 */

/** What a schedule's times are read from: on or off, the wall time, its zone and its weekdays. */
export type BriefingSchedule = Pick<StoredSchedule, 'enabled' | 'time' | 'timezone' | 'days'>;

/** One day's send: the local date it belongs to (its record's key) and its instant, ms UTC. */
export interface Occurrence {
  date: string;
  at: number;
}

/** A late send (the dashboard was down at the time) still goes out up to this long after it; later, that day's is skipped. */
export const LATE_LIMIT_MS = 6 * 3_600_000;

const instantOn = (schedule: BriefingSchedule, date: Temporal.PlainDate): number => wallInstant(date, schedule.time, schedule.timezone);

const chosen = (schedule: BriefingSchedule, date: Temporal.PlainDate) => {
  const weekday = weekdays[date.dayOfWeek - 1];
  return weekday !== undefined && schedule.days.includes(weekday);
};

/** The send of the local day `now` falls on, when that day is one of the schedule's (whether its time has come or not). */
export function occurrenceOfDay(schedule: BriefingSchedule, now: number): Occurrence | undefined {
  // A fake clock's sleeps (a limiter's or a pace's back-off) may leave fractions of a millisecond; Temporal takes whole ones.
  const { date } = localTime(Math.floor(now), schedule.timezone);
  return chosen(schedule, date) ? { date: date.toString(), at: instantOn(schedule, date) } : undefined;
}

/** The first send at or after `from` whose day `skip` does not rule out (a day already done), within the next eight days. */
export function nextOccurrence(schedule: BriefingSchedule, from: number, skip: (date: string) => boolean = () => false): Occurrence | undefined {
  const { date: first } = localTime(Math.floor(from), schedule.timezone);
  for (let i = 0; i <= 8; i++) {
    const date = first.add({ days: i });
    if (!chosen(schedule, date)) continue;
    const at = instantOn(schedule, date);
    if (at >= from && !skip(date.toString())) return { date: date.toString(), at };
  }
  return undefined;
}

/** The schedule's latest send at or before `now`, within the last eight days; undefined when there is none. */
export function lastOccurrence(schedule: BriefingSchedule, now: number): Occurrence | undefined {
  if (!schedule.enabled) return undefined;
  for (let i = 0; i <= 8; i++) {
    const occurrence = occurrenceOfDay(schedule, now - i * 86_400_000);
    if (occurrence && occurrence.at <= now) return occurrence;
  }
  return undefined;
}

/**
 * The send due at `now`: today's, once its time has come, while it is at most `LATE_LIMIT_MS` late, and when the
 * schedule was saved before it (saving 08:00 at 08:30 starts tomorrow, never an email at once).
 */
export function dueOccurrence(schedule: BriefingSchedule, now: number, savedAt: number): Occurrence | undefined {
  if (!schedule.enabled) return undefined;
  const today = occurrenceOfDay(schedule, now);
  if (!today || today.at > now || now - today.at > LATE_LIMIT_MS || today.at < savedAt) return undefined;
  return today;
}
