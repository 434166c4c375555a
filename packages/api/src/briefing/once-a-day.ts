import { nextOccurrence, type BriefingSchedule, type Occurrence } from './schedule.ts';

/**
 * What the briefing email's sender (mailer.ts) and the courier to the other destinations (courier.ts) share of
 * sending "once per scheduled day, across restarts and processes": the record per scheduled day each keeps in the
 * store's meta (the newest kept), whether a day still wants a send (never tried, or failed with a retry that has
 * come), when the next look has something to do, and how long a sender sleeps until then. Pure; each sender looks
 * under its own named lease, held `LEASE_MS` at a time.
 */

/** A sender's lease lasts this long unrenewed (it is renewed while the sender works). */
export const LEASE_MS = 120_000;
/** A sender looks at its schedules at least this often (another process may have changed one). */
export const POLL_MS = 60_000;
/** A retryable failure (429, 5xx, unreachable) is tried again after these delays, then given up for that day. */
export const RETRY_MS = [10 * 60_000, 30 * 60_000];
/** Scheduled days whose records are kept (per destination). */
export const KEEP_DAYS = 14;

/** What a day's record says of trying again: its outcome, and when a failed send is tried again (null: not that day). */
export interface DayAttempt {
  status: string;
  retryAt: number | null;
}

/** Whether a scheduled day still wants a send at `now`: never tried, or failed with a retry that has come. */
export function pending(record: DayAttempt | undefined, now: number): boolean {
  return record === undefined || (record.status === 'failed' && record.retryAt !== null && record.retryAt <= now);
}

/**
 * When the next send will be tried (ms), or null while the schedule is off: at once for a `due` day never tried, at
 * its retry for a due day that failed, else at the next scheduled day with no record.
 */
export function nextAttemptAt(schedule: BriefingSchedule, due: Occurrence | undefined, records: Readonly<Record<string, DayAttempt>>, now: number): number | null {
  if (!schedule.enabled) return null;
  const record = due ? records[due.date] : undefined;
  if (due && record === undefined) return now;
  if (due && record?.status === 'failed' && record.retryAt !== null) return Math.max(now, record.retryAt);
  return nextOccurrence(schedule, now + 1, (date) => date === due?.date || records[date] !== undefined)?.at ?? null;
}

/** How long a sender sleeps after a look: until its next send (a second at least), and `POLL_MS` at most. */
export const sleepMs = (next: number | null, now: number): number => (next === null ? POLL_MS : Math.min(POLL_MS, Math.max(1_000, next - now)));

/** The records with a day's written in, the newest `KEEP_DAYS` kept. */
export function withDay<R>(records: Readonly<Record<string, R>>, date: string, record: R): Record<string, R> {
  return Object.fromEntries(
    Object.entries({ ...records, [date]: record })
      .sort(([a], [b]) => a.localeCompare(b))
      .slice(-KEEP_DAYS),
  );
}
