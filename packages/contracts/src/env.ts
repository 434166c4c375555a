import type { z } from 'zod';

export type RawEnv = Readonly<Record<string, string | undefined>>;

/**
 * The environment as the apps read it: a variable set to the empty (or an all-blank) string counts as
 * unset, the convention of `.env` files and compose, where `KEY=` is how a value is left out.
 */
export function withoutBlanks(env: RawEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') kept[name] = value;
  }
  return kept;
}

/** Parses an app's environment with its schema, blanks counted as unset; one error lists every problem. */
export function parseEnv<Schema extends z.ZodType>(schema: Schema, env: RawEnv, what: string): z.output<Schema> {
  const parsed = schema.safeParse(withoutBlanks(env));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid ${what}: ${problems}`);
  }
  return parsed.data;
}
