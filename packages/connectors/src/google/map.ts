import type { Seo } from '@dash/contracts';
import type { DailyValue } from '../connector.ts';
import { isoDay } from '../dates.ts';
import { sumKnown } from '../figures.ts';
import type { SearchRow } from './schemas.ts';

const DAY_MS = 86_400_000;
/** "Last 28 days", as Search Console's own date picker says it. */
export const WINDOW_DAYS = 28;
/**
 * Final data (the default `dataState`) lags about two to three days (research §7), so the window ends
 * two days before today. Ending today would count days Google has not filled in yet and make the last
 * days look like a drop; a day still missing at the edge is simply absent from the answer.
 */
export const LAG_DAYS = 2;

const pacific = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', year: 'numeric', month: '2-digit', day: '2-digit' });

/** Today's date in Pacific Time, `YYYY-MM-DD`: Search Console's dates are Pacific days. */
export function pacificDay(now: number): string {
  const parts = Object.fromEntries(pacific.formatToParts(new Date(now)).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The 28 days (both ends included) the widget shows: ending `LAG_DAYS` before today, Pacific Time. */
export function searchWindow(now: number): { startDate: string; endDate: string } {
  const today = Date.parse(`${pacificDay(now)}T00:00:00Z`);
  const end = today - LAG_DAYS * DAY_MS;
  return { startDate: isoDay(end - (WINDOW_DAYS - 1) * DAY_MS), endDate: isoDay(end) };
}

type Totals = Seo['totals'];
/**
 * Google's answer without rows: no search data in the window (the method "returns zero or more rows").
 * No clicks and no impressions, then, but no click-through rate or position either: there is nothing to divide.
 */
const noData: Totals = { clicks: 0, impressions: 0, ctr: null, position: null };

/** A count as the dashboard shows it: whole (Google's description types it as a double); unknown (null) when left out. */
const countOf = (value: number | null | undefined): number | null => (value === null || value === undefined ? null : Math.round(value));

/** A row's figures; one Google left out is unknown (null), not 0. */
const numbersOf = (row: SearchRow): Totals => ({ clicks: countOf(row.clicks), impressions: countOf(row.impressions), ctr: row.ctr ?? null, position: row.position ?? null });

/**
 * Search figures of several rows (or properties) as one, as Search Console adds them up: clicks and
 * impressions summed, ctr = clicks / impressions, and the position averaged by impressions: a query seen
 * 10,000 times at rank 3 weighs more than one seen 10 times at 40. A total that needs a figure some row
 * left out is unknown, and so are ctr and position without impressions.
 */
export function combineSearchFigures(rows: readonly Totals[]): Totals {
  const clicks = sumKnown(rows.map((row) => row.clicks));
  const impressions = sumKnown(rows.map((row) => row.impressions));
  // A row without impressions weighs nothing, whatever its position.
  const weighted = sumKnown(rows.map((row) => (row.impressions === 0 ? 0 : row.position === null || row.impressions === null ? null : row.position * row.impressions)));
  if (impressions === null || impressions === 0) return { clicks, impressions, ctr: null, position: null };
  return { clicks, impressions, ctr: clicks === null ? null : Math.min(1, clicks / impressions), position: weighted === null ? null : weighted / impressions };
}

/** Totals of Google's rows, when its answer has no dimensionless row of its own. */
export const totalsOf = (rows: readonly SearchRow[]): Totals => combineSearchFigures(rows.map(numbersOf));

/**
 * The widget's numbers. Totals are Google's own (the query without dimensions), which also count the
 * anonymised queries the per-query rows leave out; only when that answer has no row while queries do
 * (Google filling in data between the two requests) are they computed from the query rows.
 */
export function toSeo(queryRows: readonly SearchRow[], totalRows: readonly SearchRow[]): Seo {
  const queries = queryRows.flatMap((row) => (row.keys?.[0] === undefined ? [] : [{ query: row.keys[0], ...numbersOf(row) }]));
  const total = totalRows.find((row) => !row.keys || row.keys.length === 0);
  return { queries, totals: total ? numbersOf(total) : queryRows.length > 0 ? totalsOf(queryRows) : noData };
}

/**
 * `date` rows as the four search metrics' daily values, as Google gives them (clicks and impressions whole, ctr
 * 0-1, position 1 = top), within `from`..`to`. A figure a row leaves out is left out, not 0; so is a day without a row.
 */
export function dailyValues(rows: readonly SearchRow[], from: string, to: string): DailyValue[] {
  const values: DailyValue[] = [];
  for (const row of rows) {
    const date = row.keys?.[0];
    if (date === undefined || date < from || date > to) continue;
    const { clicks, impressions, ctr, position } = numbersOf(row);
    const figures = [['search.clicks', clicks], ['search.impressions', impressions], ['search.ctr', ctr], ['search.position', position]] as const;
    for (const [metric, value] of figures) if (value !== null) values.push({ metric, date, value });
  }
  return values.sort((a, b) => a.metric.localeCompare(b.metric) || a.date.localeCompare(b.date));
}
