// The sentences a metric alert says, per unit, in plain text (each channel escapes them as it sends). Pure.
import type { ChangeComparison, MetricUnit } from '@dash/contracts';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** The weekday of a `YYYY-MM-DD` day, in English, from its UTC date: "Monday". */
export const weekdayOf = (date: string): string => WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()] ?? date;

/** Intl.NumberFormat instances are costly to make (a walk formats a year of days): one per options. */
const formats = new Map<string, Intl.NumberFormat>();
const formatter = (currency: string | undefined, digits: number) => {
  const key = `${currency ?? ''}:${digits}`;
  let format = formats.get(key);
  if (!format) {
    format = currency
      ? new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits })
      : new Intl.NumberFormat('en-US', { maximumFractionDigits: digits });
    formats.set(key, format);
  }
  return format;
};
const plain = (value: number, digits: number) => formatter(undefined, digits).format(value);
/** A money amount without cents from 1,000 up or when whole ("$10,000", "$12.50"). */
const moneyDigits = (value: number) => (Math.abs(value) >= 1000 || Number.isInteger(value) ? 0 : 2);

/**
 * A value as its unit writes it: money in the currency (plain, with separators, when there is none or it is not a
 * currency code), a count with thousands separators, a fraction as a percent with one decimal ("99.2 %"), a position
 * with one decimal, stars with two.
 */
export function formatValue(value: number, unit: MetricUnit, currency?: string): string {
  switch (unit) {
    case 'money': {
      const digits = moneyDigits(value);
      if (currency) {
        try {
          return formatter(currency, digits).format(value);
        } catch {
          // not a currency Intl knows: a plain number
        }
      }
      return plain(value, digits);
    }
    case 'count':
      return plain(Math.round(value), 0);
    case 'fraction':
      return `${(value * 100).toFixed(1)} %`;
    case 'position':
      return value.toFixed(1);
    case 'stars':
      return value.toFixed(2);
  }
}

/** A change's size in percent, whole unless rounding would hide that it passed the rule's percent ("34 %", "20.4 %"). */
export function formatPercent(change: number, percent: number): string {
  const size = Math.abs(change);
  return Math.round(size) > percent ? `${Math.round(size)} %` : `${size.toFixed(1)} %`;
}

/** What a `change` rule compares a day with, as the sentence says it. */
export const comparisonPhrase: Record<ChangeComparison, string> = {
  same_weekday: 'the same weekday last week',
  previous_7: 'the previous 7 days’ average',
  previous_28: 'the previous 28 days’ average',
};

/** A band "1,020–1,340", or one side ("at least 4.00", "at most 1,340") where the other is open. */
export function formatRange(low: number | null, high: number | null, unit: MetricUnit, currency?: string): string {
  if (low !== null && high !== null) return `${formatValue(low, unit, currency)}–${formatValue(high, unit, currency)}`;
  if (low !== null) return `at least ${formatValue(low, unit, currency)}`;
  if (high !== null) return `at most ${formatValue(high, unit, currency)}`;
  return 'any value';
}

/**
 * An out-of-range day's sentence in two parts, `head: tail` ("MRR below $10,000" and "$9,420"), so a reminder can say
 * "MRR below $10,000 for 7 days now: $9,300".
 */
export interface Sentence {
  head: string;
  tail: string;
}

export const say = ({ head, tail }: Sentence): string => `${head}: ${tail}`;
export const sayStill = ({ head, tail }: Sentence, days: number): string => `${head} for ${days} ${days === 1 ? 'day' : 'days'} now: ${tail}`;
