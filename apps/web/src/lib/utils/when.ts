/**
 * Instants the notification controls pick (snooze, pause, mute) and how they are shown: in the
 * browser's own time zone, as ISO 8601 for the server.
 */

const HOUR = 3_600_000;

/** `hours` from now, as ISO 8601. */
export const hoursFromNow = (hours: number, now = Date.now()): string => new Date(now + hours * HOUR).toISOString();

/** Tomorrow at `hour`:`minute` on this browser's clock, as ISO 8601. */
export function tomorrowAt(hour: number, minute = 0, now = new Date()): string {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, hour, minute).toISOString();
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A `datetime-local` input's value for an instant (local wall time, to the minute). */
export function toLocalInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` input's value (local wall time) as ISO 8601; undefined when empty or not a time. */
export function fromLocalInput(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return undefined;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const dayAndClock = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** "14:05", "tomorrow 08:00", "Tue 3 Dec, 08:00": an instant near now, on this browser's clock. */
export function whenText(iso: string, now = new Date()): string {
  const at = new Date(iso);
  if (!Number.isFinite(at.getTime())) return iso;
  const dayOf = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((dayOf(at) - dayOf(now)) / 86_400_000);
  if (days === 0) return clock.format(at);
  if (days === 1) return `tomorrow ${clock.format(at)}`;
  return dayAndClock.format(at);
}

/** The browser's IANA time zone, `UTC` when it cannot say. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** Every IANA zone this browser knows, `UTC` included (some engines leave it out of the list). */
export function timeZones(): string[] {
  try {
    const zones = Intl.supportedValuesOf('timeZone');
    return zones.includes('UTC') ? zones : ['UTC', ...zones];
  } catch {
    return ['UTC'];
  }
}
