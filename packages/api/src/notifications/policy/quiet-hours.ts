import { type QuietHours, type QuietWindow, type Weekday, weekdays } from '@dash/contracts';
import { Temporal } from '@js-temporal/polyfill';

/**
 * Whether an instant is inside quiet hours, and until when. Pure: the clock and the settings are
 * arguments, nothing is stored. Windows are read in `settings.timezone` with Temporal's rules, so
 * daylight saving is followed: a wall time that does not exist (the spring-forward gap) moves forward
 * by the gap, and one that happens twice (the fall-back hour) is its earlier instant ("compatible").
 */
export type QuietState =
  | { quiet: false }
  | {
      quiet: true;
      /** `pause` when "pause notifications until …" covers the instant, even if a window does too. */
      reason: 'window' | 'pause';
      /** A window that contains the instant, if one does. */
      window?: QuietWindow;
      /** Start (ms UTC) of the window occurrence containing the instant; absent for a pause alone. */
      startsAt?: number;
      /**
       * End (ms UTC) of the whole quiet period: windows that touch or overlap, and the pause, are followed
       * into one. Absent when the windows cover the whole week (quiet until the settings change).
       */
      endsAt?: number;
    };

/** One occurrence of a window (or the pause, which has none) as instants: `[start, end)`. */
interface Span {
  window?: QuietWindow;
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;
/** A chain of windows reaching this far past the pause is taken as "always quiet". */
const HORIZON_MS = 8 * DAY_MS;

/** The local date, weekday and wall time of an instant in `zone`. */
export function localTime(instant: number, zone: string): { date: Temporal.PlainDate; weekday: Weekday; hhmm: string } {
  const zoned = Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(zone);
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    date: zoned.toPlainDate(),
    weekday: weekdays[zoned.dayOfWeek - 1] ?? 'mon',
    hhmm: `${pad(zoned.hour)}:${pad(zoned.minute)}`,
  };
}

/** The instant (ms UTC) a wall time `HH:MM` (or `24:00`, the next midnight) on a local date happens. */
export function wallInstant(date: Temporal.PlainDate, hhmm: string, zone: string): number {
  if (hhmm === '24:00') return wallInstant(date.add({ days: 1 }), '00:00', zone);
  const [hour = 0, minute = 0] = hhmm.split(':').map(Number);
  return date.toPlainDateTime({ hour, minute }).toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
}

/** Whether a window's end is on the day after its start (`end <= start`; `24:00` never crosses). */
const crossesMidnight = (window: QuietWindow) => window.end <= window.start;

/**
 * Occurrences already computed, per windows list (settings are treated as immutable: a new object after an edit)
 * and per zone and date: a check is a few Temporal conversions, and the ingest path asks on every event.
 */
const occurrenceCache = new WeakMap<readonly QuietWindow[], Map<string, Span[]>>();

/** The occurrences of the windows that start on a local date. */
function occurrencesOn(date: Temporal.PlainDate, windows: readonly QuietWindow[], zone: string): Span[] {
  let byDay = occurrenceCache.get(windows);
  if (!byDay) occurrenceCache.set(windows, (byDay = new Map<string, Span[]>()));
  const key = `${zone} ${date.toString()}`;
  const cached = byDay.get(key);
  if (cached) return cached;
  if (byDay.size >= 64) byDay.clear();
  const spans = computeOccurrences(date, windows, zone);
  byDay.set(key, spans);
  return spans;
}

function computeOccurrences(date: Temporal.PlainDate, windows: readonly QuietWindow[], zone: string): Span[] {
  const weekday = weekdays[date.dayOfWeek - 1];
  return windows
    .filter((window) => weekday !== undefined && window.days.includes(weekday))
    .map((window) => ({
      window,
      start: wallInstant(date, window.start, zone),
      end: wallInstant(crossesMidnight(window) ? date.add({ days: 1 }) : date, window.end, zone),
    }));
}

/** When the pause ends (ms UTC), or null when there is none. */
function pauseEnd(settings: QuietHours): number | null {
  if (settings.pauseUntil === null) return null;
  const end = Date.parse(settings.pauseUntil);
  return Number.isNaN(end) ? null : end;
}

/**
 * Every span containing `instant` (start inclusive, end exclusive). A window lasts under a day of wall
 * time, so only occurrences starting on the instant's local date or the day before can contain it.
 */
function spansAt(instant: number, settings: QuietHours, pausedUntil: number | null): Span[] {
  const spans: Span[] = [];
  if (pausedUntil !== null && instant < pausedUntil) spans.push({ start: -Infinity, end: pausedUntil });
  if (settings.enabled && settings.windows.length > 0) {
    const { date } = localTime(instant, settings.timezone);
    for (const day of [date.subtract({ days: 1 }), date]) {
      for (const span of occurrencesOn(day, settings.windows, settings.timezone)) {
        if (span.start <= instant && instant < span.end) spans.push(span);
      }
    }
  }
  return spans;
}

/**
 * Whether `instant` (ms UTC) is quiet: inside an enabled window or before `pauseUntil`. When it is,
 * `endsAt` is the first instant after it that is outside every window and the pause.
 */
export function quietAt(instant: number, settings: QuietHours): QuietState {
  const pausedUntil = pauseEnd(settings);
  const here = spansAt(instant, settings, pausedUntil);
  if (here.length === 0) return { quiet: false };

  const inWindow = here.filter((span) => span.window !== undefined);
  const state: QuietState = {
    quiet: true,
    reason: inWindow.length < here.length ? 'pause' : 'window',
    ...(inWindow[0] ? { window: inWindow[0].window, startsAt: Math.min(...inWindow.map((span) => span.start)) } : {}),
  };

  const horizon = Math.max(instant, pausedUntil ?? instant) + HORIZON_MS;
  let end = Math.max(...here.map((span) => span.end));
  for (let next = spansAt(end, settings, pausedUntil); next.length > 0; next = spansAt(end, settings, pausedUntil)) {
    end = Math.max(...next.map((span) => span.end));
    if (end > horizon) return state;
  }
  return { ...state, endsAt: end };
}
