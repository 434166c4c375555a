import type { ParsedEvent, ParseResult } from './types.ts';

export const none = (): ParseResult => ({ ok: true, events: [] });

export const one = (event: ParsedEvent): ParseResult => ({ ok: true, events: [event] });

/** ISO 8601 of an ISO string or epoch milliseconds; undefined when absent or not a real date. */
export function isoDate(value: string | number | null | undefined): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * The caps of an event's `payload`: strings cut to 200 characters (a rule's value is at most that long),
 * arrays to their first 20 items, nesting to the 8 segments a rule's dot path may have, and the whole to
 * 2 KB of JSON (UTF-8).
 */
export const PAYLOAD_LIMITS = { stringLength: 200, arrayItems: 20, depth: 8, jsonBytes: 2048 } as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keys that would reach a prototype rather than the payload's own data: never copied. */
const forbiddenKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const encoder = new TextEncoder();
const jsonBytes = (value: Json) => encoder.encode(JSON.stringify(value)).length;

function truncated(text: string): string {
  if (text.length <= PAYLOAD_LIMITS.stringLength) return text;
  const cut = text.slice(0, PAYLOAD_LIMITS.stringLength);
  // Never half a surrogate pair.
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

const isObject = (value: Json): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A capped JSON copy: undefined (and anything JSON has no scalar for) left out, objects left empty by that dropped. */
function capped(value: unknown, depth: number): Json | undefined {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return truncated(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'object' || depth >= PAYLOAD_LIMITS.depth) return undefined;
  if (Array.isArray(value)) {
    return value
      .slice(0, PAYLOAD_LIMITS.arrayItems)
      .map((item) => capped(item, depth + 1))
      .filter((item): item is Json => item !== undefined);
  }
  const entries: [string, Json][] = [];
  for (const [key, item] of Object.entries(value)) {
    const copy = forbiddenKeys.has(key) ? undefined : capped(item, depth + 1);
    if (copy !== undefined) entries.push([key, copy]);
  }
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

const emptyLike = (value: Json): Json => (Array.isArray(value) ? [] : isObject(value) ? {} : value);
const isEmpty = (value: Json) => (Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0);

/**
 * Copies `source` into the empty `target` one value at a time, in order, keeping each only while the
 * whole (`fits`) stays within the size cap. An object skips what does not fit and goes on with its next
 * keys; an array stops at its first item that does not, so the indices kept still mean what they meant.
 */
function fill(target: Json[] | JsonObject, source: Json[] | JsonObject, fits: () => boolean): void {
  const place = (item: Json, put: (slot: Json) => void, remove: () => void): boolean => {
    const slot = emptyLike(item);
    put(slot);
    if (!fits()) {
      remove();
      return false;
    }
    if (slot === item) return true;
    fill(slot as Json[] | JsonObject, item as Json[] | JsonObject, fits);
    if (isEmpty(slot) && !isEmpty(item)) {
      remove();
      return false;
    }
    return true;
  };
  if (Array.isArray(source)) {
    const list = target as Json[];
    for (const item of source) {
      if (!place(item, (slot) => list.push(slot), () => list.pop())) return;
    }
    return;
  }
  const record = target as JsonObject;
  for (const [key, item] of Object.entries(source)) {
    place(
      item,
      (slot) => {
        record[key] = slot;
      },
      () => {
        delete record[key];
      },
    );
  }
}

/**
 * An event's `payload` from the fields a parser picked, under the provider's own names: own, present
 * values only, capped by `PAYLOAD_LIMITS` (what does not fit in 2 KB is left out, first come first kept).
 * Undefined when nothing is left.
 */
export function curatedPayload(fields: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const copy = capped(fields, 0);
  if (copy === undefined || !isObject(copy)) return undefined;
  if (jsonBytes(copy) <= PAYLOAD_LIMITS.jsonBytes) return copy;
  const kept: JsonObject = {};
  fill(kept, copy, () => jsonBytes(kept) <= PAYLOAD_LIMITS.jsonBytes);
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** `{ payload }` to spread into an event, or nothing when the payload would be empty. */
export function withPayload(fields: Readonly<Record<string, unknown>>): { payload?: Record<string, unknown> } {
  const payload = curatedPayload(fields);
  return payload ? { payload } : {};
}
