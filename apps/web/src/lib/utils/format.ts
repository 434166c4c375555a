/** Money in major units, with the currency's symbol and no cents past 10,000. */
/** What a figure the upstream did not report reads as: unknown, never a made-up 0. */
export const UNKNOWN = '—';

export function money(amount: number | null, currency: string): string {
  if (amount === null) return UNKNOWN;
  const large = Math.abs(amount) >= 10_000;
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    maximumFractionDigits: large ? 0 : 2,
    minimumFractionDigits: large ? 0 : 2,
  }).format(amount);
}

export const integer = (value: number | null): string => (value === null ? UNKNOWN : new Intl.NumberFormat('en-US').format(value));

/** 1.2k, 3.4M: counts in small places. */
export const compact = (value: number): string => new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(value);

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const steps: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "3 minutes ago", "yesterday", "just now". */
export function ago(iso: string, now = Date.now()): string {
  const diff = Date.parse(iso) - now;
  for (const [unit, ms] of steps) {
    if (Math.abs(diff) >= ms) return relative.format(Math.round(diff / ms), unit);
  }
  return 'just now';
}

/** This instant as ISO 8601, as the server writes instants. */
export const isoNow = (): string => new Date().toISOString();

/** A full date and time for a tooltip. */
export const fullTime = (iso: string): string =>
  new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

/** "Nov 23" for a chart axis, from YYYY-MM-DD, read as UTC. */
export const shortDay = (day: string): string =>
  new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

/** A country's name from its two-letter code, falling back to the code. */
export function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}
