import { z } from 'zod';

/** The days of the week, Monday first (ISO 8601: `mon` is day 1). */
export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const weekdaySchema = z.enum(weekdays, { error: 'A day is one of mon, tue, wed, thu, fri, sat, sun' });
export type Weekday = z.infer<typeof weekdaySchema>;

/** Zones `Intl` has known: a formatter costs tens of microseconds, and every stored policy is checked on each event. */
const knownZones = new Set<string>();

/** Whether `Intl` knows the zone (`Europe/Berlin`, `UTC`); Node ships the full IANA database. */
export function isTimeZone(zone: string): boolean {
  if (knownZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    return false;
  }
  // Bounded: Intl also takes other spellings of a zone (any case), so what callers ask about has no fixed size.
  if (knownZones.size < 1_000) knownZones.add(zone);
  return true;
}

const clock = (field: string, allowMidnightEnd: boolean) =>
  z
    .string()
    .regex(
      allowMidnightEnd ? /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/ : /^(?:[01]\d|2[0-3]):[0-5]\d$/,
      `${field} is a time written HH:MM, from 00:00 to ${allowMidnightEnd ? '24:00' : '23:59'}`,
    );

/**
 * One weekly quiet window, in the settings' time zone. `start` is inclusive, `end` exclusive. An `end`
 * at or before `start` crosses midnight, and the window belongs to its start day: Fri 22:00–07:00 runs
 * into Saturday morning even when `days` stops at `fri`. `end` may be `24:00` (the end of the start day),
 * so 00:00–24:00 is a whole day; `start == end` is rejected, since it could mean nothing or all day.
 */
export const quietWindowSchema = z
  .strictObject({
    days: z
      .array(weekdaySchema)
      .min(1, 'days lists at least one day')
      .max(7)
      .refine((days) => new Set(days).size === days.length, 'days lists a day twice'),
    start: clock('start', false),
    end: clock('end', true),
  })
  .refine((window) => window.start !== window.end, {
    path: ['end'],
    error: 'start and end are the same time: for a whole day use 00:00–24:00',
  });
export type QuietWindow = z.infer<typeof quietWindowSchema>;

/**
 * Quiet hours and the on-demand pause. Inside a window or before `pauseUntil`, non-critical
 * interruptions (browser, email) are deferred and sent as one digest when the quiet period ends; the
 * inbox itself always shows every event at once. `enabled` switches the weekly windows; a pause applies
 * on its own, whether the windows are on or off.
 */
export const quietHoursSchema = z.strictObject({
  enabled: z.boolean(),
  /** IANA time zone the windows are read in, e.g. `Europe/Berlin`; daylight saving is followed. */
  timezone: z
    .string()
    .trim()
    .min(1, 'timezone is required')
    .max(64)
    .refine(isTimeZone, 'timezone is not a known IANA time zone, e.g. Europe/Berlin'),
  windows: z.array(quietWindowSchema).max(14, 'windows has at most 14 entries'),
  /** ISO 8601 instant until which everything is quiet ("pause notifications until …"); null: no pause. */
  pauseUntil: z.iso
    .datetime({ offset: true, error: 'pauseUntil is an ISO 8601 instant, e.g. 2026-03-29T07:00:00Z' })
    .nullable(),
});
export type QuietHours = z.infer<typeof quietHoursSchema>;

/**
 * Saving quiet hours: the weekly windows and their zone. The pause is kept on its own (`POST …/pause`), so a save
 * from a form that loaded an older pause never cancels or revives one set meanwhile.
 */
export const saveQuietHoursSchema = quietHoursSchema.omit({ pauseUntil: true });
export type QuietHoursSettings = z.infer<typeof saveQuietHoursSchema>;

/** Off, with the common 22:00–07:00 window ready to switch on. */
export const defaultQuietHours: QuietHours = {
  enabled: false,
  timezone: 'UTC',
  windows: [{ days: [...weekdays], start: '22:00', end: '07:00' }],
  pauseUntil: null,
};
