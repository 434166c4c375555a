import { describe, expect, it } from 'vitest';
import { dueOccurrence, lastOccurrence, LATE_LIMIT_MS, nextOccurrence, occurrenceOfDay, type BriefingSchedule } from './schedule.ts';

// The briefing email's time is a wall time in the schedule's zone: across a daylight-saving change 08:00 stays 08:00
// local, so its UTC instant moves by the hour. Europe/Berlin in 2026: CET (UTC+1) until Sunday 29 March 02:00, then
// CEST (UTC+2) until Sunday 25 October 03:00.

const berlin: BriefingSchedule = { enabled: true, time: '08:00', timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] };
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const HOUR = 3_600_000;

describe('the schedule across daylight saving (Europe/Berlin)', () => {
  it('in late March: Saturday 08:00 is 07:00 UTC, Sunday 08:00 (the day clocks go forward) is 06:00 UTC', () => {
    const saturday = nextOccurrence(berlin, at('2026-03-27T08:00:00Z'));
    expect(saturday).toEqual({ date: '2026-03-28', at: at('2026-03-28T07:00:00Z') });
    const sunday = nextOccurrence(berlin, (saturday?.at ?? 0) + 1);
    expect(sunday).toEqual({ date: '2026-03-29', at: at('2026-03-29T06:00:00Z') });
    // 23 hours apart, not 24: the local time stays 08:00.
    expect((sunday?.at ?? 0) - (saturday?.at ?? 0)).toBe(23 * HOUR);
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(sunday?.at)).toBe('08:00');
    expect(iso(nextOccurrence(berlin, (sunday?.at ?? 0) + 1)?.at)).toBe('2026-03-30T06:00:00.000Z');
  });

  it('in late October: Saturday 08:00 is 06:00 UTC, Sunday 08:00 (the day clocks go back) is 07:00 UTC', () => {
    const saturday = nextOccurrence(berlin, at('2026-10-24T05:00:00Z'));
    expect(saturday).toEqual({ date: '2026-10-24', at: at('2026-10-24T06:00:00Z') });
    const sunday = nextOccurrence(berlin, (saturday?.at ?? 0) + 1);
    expect(sunday).toEqual({ date: '2026-10-25', at: at('2026-10-25T07:00:00Z') });
    expect((sunday?.at ?? 0) - (saturday?.at ?? 0)).toBe(25 * HOUR);
  });

  it('is due from its instant on that local day, not an hour early or late after the change', () => {
    const schedule = { ...berlin, days: ['sun' as const] };
    // 06:59 UTC on the March Sunday is 08:59 CEST: due since 06:00 UTC. 05:59 UTC (07:59 CEST) is not yet.
    expect(dueOccurrence(schedule, at('2026-03-29T05:59:00Z'), 0)).toBeUndefined();
    expect(dueOccurrence(schedule, at('2026-03-29T06:00:00Z'), 0)).toEqual({ date: '2026-03-29', at: at('2026-03-29T06:00:00Z') });
    // The October Sunday: 06:30 UTC is 07:30 CET, not yet; 07:00 UTC is 08:00 CET.
    expect(dueOccurrence(schedule, at('2026-10-25T06:30:00Z'), 0)).toBeUndefined();
    expect(dueOccurrence(schedule, at('2026-10-25T07:00:00Z'), 0)?.at).toBe(at('2026-10-25T07:00:00Z'));
  });

  it('moves a time inside the spring-forward gap forward by the gap, and takes the earlier of a repeated one', () => {
    const gap = nextOccurrence({ ...berlin, time: '02:30' }, at('2026-03-29T00:00:00Z'));
    // 02:30 does not exist on 29 March in Berlin: 03:30 CEST, 01:30 UTC.
    expect(gap).toEqual({ date: '2026-03-29', at: at('2026-03-29T01:30:00Z') });
    const twice = nextOccurrence({ ...berlin, time: '02:30' }, at('2026-10-24T23:00:00Z'));
    // 02:30 happens twice on 25 October: the first (CEST), 00:30 UTC.
    expect(twice).toEqual({ date: '2026-10-25', at: at('2026-10-25T00:30:00Z') });
  });
});

describe('which days and when', () => {
  const weekdays: BriefingSchedule = { enabled: true, time: '07:30', timezone: 'America/New_York', days: ['mon', 'tue', 'wed', 'thu', 'fri'] };

  it('skips the days not chosen, in the zone of the schedule (a Friday evening in New York is Saturday in UTC)', () => {
    // Friday 27 November 2026, 20:00 in New York = Saturday 01:00 UTC: the next is Monday 30 November 07:30 EST.
    expect(nextOccurrence(weekdays, at('2026-11-28T01:00:00Z'))).toEqual({ date: '2026-11-30', at: at('2026-11-30T12:30:00Z') });
    expect(occurrenceOfDay(weekdays, at('2026-11-28T01:00:00Z'))).toEqual({ date: '2026-11-27', at: at('2026-11-27T12:30:00Z') });
    expect(occurrenceOfDay(weekdays, at('2026-11-28T15:00:00Z'))).toBeUndefined();
  });

  it('is never due while off, before the save that set it, or more than the late limit after its time', () => {
    const time = at('2026-11-27T12:30:00Z');
    expect(dueOccurrence({ ...weekdays, enabled: false }, time, 0)).toBeUndefined();
    expect(dueOccurrence(weekdays, time, 0)?.date).toBe('2026-11-27');
    // Saved at 07:45 local for 07:30: from the next day on.
    expect(dueOccurrence(weekdays, time + 20 * 60_000, time + 15 * 60_000)).toBeUndefined();
    expect(dueOccurrence(weekdays, time + LATE_LIMIT_MS, 0)?.date).toBe('2026-11-27');
    expect(dueOccurrence(weekdays, time + LATE_LIMIT_MS + 1, 0)).toBeUndefined();
  });

  it('skips a day already done', () => {
    expect(nextOccurrence(weekdays, at('2026-11-27T12:00:00Z'), (date) => date === '2026-11-27')?.date).toBe('2026-11-30');
  });

  it('takes an instant with a fraction of a millisecond (a test clock after a back-off): the same day and send', () => {
    const time = at('2026-11-27T12:30:00Z') + 0.25;
    expect(dueOccurrence(weekdays, time, 0)?.date).toBe('2026-11-27');
    expect(lastOccurrence(weekdays, time)).toEqual({ date: '2026-11-27', at: at('2026-11-27T12:30:00Z') });
    expect(nextOccurrence(weekdays, time)?.date).toBe('2026-11-30');
  });
});
