import { parseEnv, type RawEnv } from '@dash/contracts/env';
import { resolve } from 'node:path';
import { z } from 'zod';

const schema = z.object({
  /** `file:` (embedded SQLite, the default), `libsql://` (Turso) or `postgres://`. */
  DATABASE_URL: z.string().default('file:./data/dashboard.db'),
  /** Turso's auth token for a `libsql://` URL. */
  DATABASE_AUTH_TOKEN: z.string().optional(),
  /** 32 bytes as hex or base64; when unset a key is generated once into DATA_DIR. */
  CREDENTIALS_KEY: z.string().optional(),
  DATA_DIR: z.string().default('./data'),
  /** Where drizzle-kit's migrations live (`sqlite/` and `pg/` inside). */
  MIGRATIONS_DIR: z.string().default('./drizzle'),
  /** `1`: on an empty store, start straight into the demo (three made-up products on the local sandbox). */
  DEMO: z
    .enum(['0', '1', 'true', 'false'])
    .optional()
    .transform((value) => value === '1' || value === 'true'),
});

export type Env = z.infer<typeof schema>;

/** A `file:` URL with a relative path, which libSQL would take from the working directory. */
const relativeFileUrl = /^file:(?!\/)/;

/**
 * The dashboard's environment, read and validated once (`$env/dynamic/private` in the app). A variable
 * set to the empty string counts as unset; relative paths (DATA_DIR, MIGRATIONS_DIR, a `file:` URL) are
 * made absolute from `base`. HOST and PORT are read by the Node adapter (server.js).
 */
export function readEnv(raw: RawEnv, base: string): Env {
  const env = parseEnv(schema, raw, 'environment');
  return {
    ...env,
    DATABASE_URL: relativeFileUrl.test(env.DATABASE_URL) ? `file:${resolve(base, env.DATABASE_URL.slice('file:'.length))}` : env.DATABASE_URL,
    DATA_DIR: resolve(base, env.DATA_DIR),
    MIGRATIONS_DIR: resolve(base, env.MIGRATIONS_DIR),
  };
}
