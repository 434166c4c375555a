import type { ParsedEvent, ParseResult } from './types.ts';

export const none = (): ParseResult => ({ ok: true, events: [] });

export const one = (event: ParsedEvent): ParseResult => ({ ok: true, events: [event] });

/** ISO 8601 of an ISO string or epoch milliseconds; undefined when absent or not a real date. */
export function isoDate(value: string | number | null | undefined): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
