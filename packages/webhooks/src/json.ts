import { z } from 'zod';
import type { ParseResult } from './types.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * A field that only an event's `payload` reads: optional and nullable, and a value of some other shape
 * reads as absent instead of refusing a delivery that was accepted before the field was read.
 */
export const lenient = <T extends z.ZodType>(schema: T) => schema.nullish().catch(undefined);

/** Any JSON object: the least a delivery of a kind we ignore must still be. */
export const jsonObject = z.record(z.string(), z.unknown());

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Each body's reading, for as long as the body is held: a delivery's body is read by identify() (a timestamp or an
 * id), by parse() and for its kind (receive.ts), and each used to decode and parse it again. A body is never changed
 * after it is received, and no reader changes the value it is handed (they check it with zod, which copies).
 */
const readings = new WeakMap<Uint8Array, Checked<unknown>>();

/** Strict UTF-8, then JSON; every failure is a reason, never an exception. Read once per body (see `readings`). */
export function readJson(bytes: Uint8Array): Checked<unknown> {
  const known = readings.get(bytes);
  if (known) return known;
  let reading: Checked<unknown>;
  try {
    reading = { ok: true, value: JSON.parse(decoder.decode(bytes)) as unknown };
  } catch (error) {
    reading = { ok: false, error: `Malformed JSON: ${error instanceof Error ? error.message : 'unreadable body'}` };
  }
  readings.set(bytes, reading);
  return reading;
}

export function check<T>(schema: z.ZodType<T>, value: unknown): Checked<T> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  return { ok: false, error: `Unexpected payload at ${where}: ${issue?.message ?? 'invalid'}` };
}

/** Best effort, for what identify() reads before the body is verified: undefined on anything odd. */
export function peekJson<T>(bytes: Uint8Array, schema: z.ZodType<T>): T | undefined {
  const json = readJson(bytes);
  if (!json.ok) return undefined;
  const result = schema.safeParse(json.value);
  return result.success ? result.data : undefined;
}

/** A kind we do not show: no events, as long as it is a JSON object at all. */
export function ignore(value: unknown): ParseResult {
  const checked = check(jsonObject, value);
  return checked.ok ? { ok: true, events: [] } : checked;
}
