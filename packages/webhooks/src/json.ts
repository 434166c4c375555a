import { z } from 'zod';

/** Any JSON object: for deliveries whose content we ignore but whose syntax still matters. */
export const jsonObject = z.record(z.string(), z.unknown());

const decoder = new TextDecoder('utf-8', { fatal: true });

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Decodes UTF-8 JSON and checks it against a schema; every failure is a reason, never an exception. */
export function parseJsonAs<T>(bytes: Uint8Array, schema: z.ZodType<T>): Parsed<T> {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch (error) {
    return { ok: false, error: `The body is not valid JSON: ${(error as Error).message}` };
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, error: `Unexpected payload: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}` };
  }
  return { ok: true, value: result.data };
}

/** Best effort, for delivery ids and timestamps read before verification: undefined on anything odd. */
export function peekJson(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
