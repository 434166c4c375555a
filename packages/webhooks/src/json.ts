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

/** Strict UTF-8, then JSON; every failure is a reason, never an exception. */
export function readJson(bytes: Uint8Array): Checked<unknown> {
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: `Malformed JSON: ${error instanceof Error ? error.message : 'unreadable body'}` };
  }
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
