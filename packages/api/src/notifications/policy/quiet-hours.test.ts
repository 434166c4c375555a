import { type QuietHours, type QuietWindow, quietHoursSchema, weekdays } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { quietAt } from './quiet-hours.ts';

const at = (iso: string) => Date.parse(iso);
const everyDay = [...weekdays];
const nightly: QuietWindow = { days: everyDay, start: '22:00', end: '07:00' };

function settings(windows: QuietWindow[], timezone = 'Europe/Berlin', extra: Partial<QuietHours> = {}): QuietHours {
  return { enabled: true, timezone, windows, pauseUntil: null, ...extra };
}

/** The end of the quiet period containing the instant, as an ISO string (or the state when not quiet). */
function endOf(iso: string, quietHours: QuietHours): string | undefined | false {
  const state = quietAt(at(iso), quietHours);
  if (!state.quiet) return false;
  return state.endsAt === undefined ? undefined : new Date(state.endsAt).toISOString();
}

describe('quietHoursSchema', () => {
  const valid = { enabled: true, timezone: 'Europe/Berlin', windows: [nightly], pauseUntil: null };
  const issues = (input: unknown) => {
    const result = quietHoursSchema.safeParse(input);
    return result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  };

  it('accepts windows that cross midnight, end at 24:00, and a pause instant with an offset', () => {
    expect(issues(valid)).toEqual([]);
    expect(issues({ ...valid, windows: [{ days: ['sat', 'sun'], start: '00:00', end: '24:00' }], pauseUntil: '2026-03-29T07:00:00+02:00' })).toEqual([]);
    expect(issues({ ...valid, timezone: 'Asia/Kolkata' })).toEqual([]);
  });

  it('rejects an unknown time zone, naming the field', () => {
    expect(issues({ ...valid, timezone: 'Mars/Olympus_Mons' })).toEqual([
      { path: 'timezone', message: expect.stringContaining('timezone is not a known IANA time zone') },
    ]);
  });

  it('rejects start equal to end, pointing to 00:00–24:00 for a whole day', () => {
    expect(issues({ ...valid, windows: [{ days: ['mon'], start: '07:00', end: '07:00' }] })).toEqual([
      { path: 'windows.0.end', message: 'start and end are the same time: for a whole day use 00:00–24:00' },
    ]);
  });

  it('rejects malformed windows and pauses', () => {
    const window = (patch: object) => issues({ ...valid, windows: [{ ...nightly, ...patch }] }).map((issue) => issue.path);
    expect(window({ days: [] })).toEqual(['windows.0.days']);
    expect(window({ days: ['mon', 'mon'] })).toEqual(['windows.0.days']);
    expect(window({ days: ['monday'] })).toEqual(['windows.0.days.0']);
    expect(window({ start: '7:00' })).toEqual(['windows.0.start']);
    expect(window({ start: '24:00' })).toEqual(['windows.0.start']);
    expect(window({ end: '23:60' })).toEqual(['windows.0.end']);
    expect(issues({ ...valid, windows: Array.from({ length: 15 }, () => nightly) })).toEqual([
      { path: 'windows', message: 'windows has at most 14 entries' },
    ]);
    expect(issues({ ...valid, pauseUntil: 'tomorrow' }).map((issue) => issue.path)).toEqual(['pauseUntil']);
  });
});

describe('quietAt', () => {
  it('treats the start as inside and the end as outside a window crossing midnight', () => {
    const berlin = settings([nightly]);
    // 2026-06-01, CEST (+02:00): 22:00 local is 20:00Z, 07:00 local is 05:00Z.
    expect(quietAt(at('2026-06-01T19:59:59.999Z'), berlin)).toEqual({ quiet: false });
    expect(quietAt(at('2026-06-01T20:00:00Z'), berlin)).toEqual({
      quiet: true,
      reason: 'window',
      window: nightly,
      startsAt: at('2026-06-01T20:00:00Z'),
      endsAt: at('2026-06-02T05:00:00Z'),
    });
    expect(endOf('2026-06-01T23:30:00Z', berlin)).toBe('2026-06-02T05:00:00.000Z');
    expect(endOf('2026-06-02T04:59:59.999Z', berlin)).toBe('2026-06-02T05:00:00.000Z');
    expect(quietAt(at('2026-06-02T05:00:00Z'), berlin).quiet).toBe(false);
  });

  it('Q7: a window ending 07:00 in Europe/Berlin ends at 05:00Z after spring-forward and 06:00Z after fall-back', () => {
    const berlin = settings([nightly]);
    expect(endOf('2026-03-28T22:30:00Z', berlin)).toBe('2026-03-29T05:00:00.000Z');
    expect(endOf('2026-03-29T01:00:00Z', berlin)).toBe('2026-03-29T05:00:00.000Z');
    expect(endOf('2026-10-24T22:30:00Z', berlin)).toBe('2026-10-25T06:00:00.000Z');
    expect(endOf('2026-10-25T01:30:00Z', berlin)).toBe('2026-10-25T06:00:00.000Z');
    expect(quietAt(at('2026-10-25T05:30:00Z'), berlin).quiet).toBe(true);
    expect(quietAt(at('2026-10-25T06:00:00Z'), berlin).quiet).toBe(false);
    // The evening of each change day starts at 22:00 in the new offset.
    expect(quietAt(at('2026-03-29T19:59:00Z'), berlin).quiet).toBe(false);
    expect(quietAt(at('2026-03-29T20:00:00Z'), berlin).quiet).toBe(true);
    expect(quietAt(at('2026-10-25T20:59:00Z'), berlin).quiet).toBe(false);
    expect(quietAt(at('2026-10-25T21:00:00Z'), berlin).quiet).toBe(true);
  });

  it('Q8: Fri 22:00–07:00 with days mon–fri belongs to Friday, so Saturday 03:00 is quiet and Saturday 23:00 is not', () => {
    const weekdaysOnly = settings([{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00' }]);
    // 2026-03-27 is a Friday; Berlin is on CET (+01:00) that weekend until Sunday 02:00.
    expect(endOf('2026-03-27T21:00:00Z', weekdaysOnly)).toBe('2026-03-28T06:00:00.000Z');
    expect(endOf('2026-03-28T02:00:00Z', weekdaysOnly)).toBe('2026-03-28T06:00:00.000Z');
    expect(quietAt(at('2026-03-28T22:00:00Z'), weekdaysOnly).quiet).toBe(false);
    // Sunday night is not a window either, so Monday 03:00 is not quiet; Monday 22:00 is.
    expect(quietAt(at('2026-03-30T01:00:00Z'), weekdaysOnly).quiet).toBe(false);
    expect(quietAt(at('2026-03-30T20:00:00Z'), weekdaysOnly).quiet).toBe(true);
  });

  it('moves a window starting in the spring-forward gap (02:30 on 2026-03-29 in Berlin) to 03:30 CEST', () => {
    const gap = settings([{ days: everyDay, start: '02:30', end: '04:00' }]);
    // 02:30 does not exist that night; "compatible" reads it as 03:30 CEST = 01:30Z.
    expect(quietAt(at('2026-03-29T01:29:59Z'), gap).quiet).toBe(false);
    expect(quietAt(at('2026-03-29T01:30:00Z'), gap)).toMatchObject({
      quiet: true,
      startsAt: at('2026-03-29T01:30:00Z'),
      endsAt: at('2026-03-29T02:00:00Z'),
    });
    // The night before, 02:30–04:00 CET is 01:30Z–03:00Z.
    expect(endOf('2026-03-28T01:30:00Z', gap)).toBe('2026-03-28T03:00:00.000Z');
  });

  it('takes the earlier instant of a wall time in the fall-back hour (02:30 on 2026-10-25 in Berlin)', () => {
    // 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET); the window starts at the first.
    const starting = settings([{ days: ['sun'], start: '02:30', end: '05:00' }]);
    expect(quietAt(at('2026-10-25T00:29:59Z'), starting).quiet).toBe(false);
    expect(endOf('2026-10-25T00:30:00Z', starting)).toBe('2026-10-25T04:00:00.000Z');
    // A window ending at 02:30 ends at the first 02:30: the repeated hour after it is not quiet.
    const ending = settings([{ days: ['sun'], start: '01:00', end: '02:30' }]);
    expect(endOf('2026-10-24T23:00:00Z', ending)).toBe('2026-10-25T00:30:00.000Z');
    expect(quietAt(at('2026-10-25T01:00:00Z'), ending).quiet).toBe(false);
  });

  it('follows adjacent and overlapping windows into one end', () => {
    const adjacent = settings([
      { days: ['fri'], start: '22:00', end: '24:00' },
      { days: ['sat'], start: '00:00', end: '10:00' },
      { days: ['sat'], start: '10:00', end: '12:00' },
    ]);
    expect(endOf('2026-06-05T21:00:00Z', adjacent)).toBe('2026-06-06T10:00:00.000Z');
    const overlapping = settings([
      { days: everyDay, start: '21:00', end: '23:00' },
      { days: everyDay, start: '22:30', end: '06:00' },
    ]);
    expect(endOf('2026-06-01T19:30:00Z', overlapping)).toBe('2026-06-02T04:00:00.000Z');
    // A minute's gap is not merged.
    const gapped = settings([
      { days: everyDay, start: '21:00', end: '21:59' },
      { days: everyDay, start: '22:00', end: '07:00' },
    ]);
    expect(endOf('2026-06-01T19:30:00Z', gapped)).toBe('2026-06-01T19:59:00.000Z');
  });

  it('has no end when the windows cover the whole week', () => {
    const always = settings([{ days: everyDay, start: '00:00', end: '24:00' }]);
    expect(quietAt(at('2026-06-03T12:00:00Z'), always)).toMatchObject({ quiet: true, reason: 'window' });
    expect(endOf('2026-06-03T12:00:00Z', always)).toBeUndefined();
  });

  it('is quiet until pauseUntil on its own, even with the windows switched off', () => {
    const paused = settings([nightly], 'Europe/Berlin', { enabled: false, pauseUntil: '2026-06-01T16:30:00+02:00' });
    expect(quietAt(at('2026-06-01T12:00:00Z'), paused)).toEqual({ quiet: true, reason: 'pause', endsAt: at('2026-06-01T14:30:00Z') });
    expect(quietAt(at('2026-06-01T14:30:00Z'), paused)).toEqual({ quiet: false });
    expect(quietAt(at('2026-06-01T21:00:00Z'), paused)).toEqual({ quiet: false });
  });

  it('joins a pause with the windows it reaches', () => {
    const into = settings([nightly], 'Europe/Berlin', { pauseUntil: '2026-06-01T21:00:00Z' });
    expect(quietAt(at('2026-06-01T12:00:00Z'), into)).toEqual({ quiet: true, reason: 'pause', endsAt: at('2026-06-02T05:00:00Z') });
    // Inside both, the pause is the reason and the window is named.
    expect(quietAt(at('2026-06-01T20:30:00Z'), into)).toMatchObject({ reason: 'pause', window: nightly, endsAt: at('2026-06-02T05:00:00Z') });
    const touching = settings([nightly], 'Europe/Berlin', { pauseUntil: '2026-06-01T20:00:00Z' });
    expect(endOf('2026-06-01T12:00:00Z', touching)).toBe('2026-06-02T05:00:00.000Z');
    const before = settings([nightly], 'Europe/Berlin', { pauseUntil: '2026-06-01T19:59:00Z' });
    expect(endOf('2026-06-01T12:00:00Z', before)).toBe('2026-06-01T19:59:00.000Z');
    // A pause ending inside a window lasts until the window ends.
    const within = settings([nightly], 'Europe/Berlin', { pauseUntil: '2026-06-02T03:00:00Z' });
    expect(endOf('2026-06-01T23:00:00Z', within)).toBe('2026-06-02T05:00:00.000Z');
    // A pause running past the window's end outlasts it.
    const past = settings([nightly], 'Europe/Berlin', { pauseUntil: '2026-06-02T09:00:00Z' });
    expect(quietAt(at('2026-06-02T03:00:00Z'), past)).toMatchObject({ reason: 'pause', endsAt: at('2026-06-02T09:00:00Z') });
  });

  it('is never quiet when disabled and not paused', () => {
    const off = settings([{ days: everyDay, start: '00:00', end: '24:00' }], 'Europe/Berlin', { enabled: false });
    for (const iso of ['2026-03-29T01:30:00Z', '2026-06-01T23:00:00Z', '2026-10-25T01:30:00Z']) {
      expect(quietAt(at(iso), off)).toEqual({ quiet: false });
    }
    expect(quietAt(at('2026-06-01T23:00:00Z'), settings([]))).toEqual({ quiet: false });
  });

  it('reads windows in America/New_York across its own daylight-saving dates', () => {
    const newYork = settings([nightly], 'America/New_York');
    // 2026-03-08: 22:00 EST on the 7th is 03:00Z; 07:00 EDT on the 8th is 11:00Z.
    expect(quietAt(at('2026-03-08T02:59:00Z'), newYork).quiet).toBe(false);
    expect(endOf('2026-03-08T03:00:00Z', newYork)).toBe('2026-03-08T11:00:00.000Z');
    // 2026-11-01: back to EST, 07:00 is 12:00Z.
    expect(endOf('2026-11-01T06:00:00Z', newYork)).toBe('2026-11-01T12:00:00.000Z');
  });

  it('reads windows in Asia/Kolkata with its half-hour offset', () => {
    const kolkata = settings([nightly], 'Asia/Kolkata');
    // +05:30: 22:00 is 16:30Z, 07:00 is 01:30Z.
    expect(quietAt(at('2026-06-01T16:29:59Z'), kolkata).quiet).toBe(false);
    expect(endOf('2026-06-01T16:30:00Z', kolkata)).toBe('2026-06-02T01:30:00.000Z');
    expect(quietAt(at('2026-06-02T01:30:00Z'), kolkata).quiet).toBe(false);
  });
});
