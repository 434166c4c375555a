import { env as raw } from '$env/dynamic/private';
import { z } from 'zod';

const schema = z.object({
  /** `file:` (embedded SQLite, the default), `libsql://` (Turso) or `postgres://`. */
  DATABASE_URL: z.string().min(1).default('file:./data/dashboard.db'),
  /** Turso's auth token for a `libsql://` URL. */
  DATABASE_AUTH_TOKEN: z.string().min(1).optional(),
  /** 32 bytes as hex or base64; when unset a key is generated once into DATA_DIR. */
  CREDENTIALS_KEY: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  /** Where drizzle-kit's migrations live (`sqlite/` and `pg/` inside). */
  MIGRATIONS_DIR: z.string().min(1).default('./drizzle'),
  /** `1`: on an empty store, start straight into the demo (three made-up products on the local sandbox). */
  DEMO: z
    .enum(['0', '1', 'true', 'false', ''])
    .default('')
    .transform((value) => value === '1' || value === 'true'),
});

export type Env = z.infer<typeof schema>;

/** The dashboard's environment, read and validated once. HOST and PORT are read by the Node adapter. */
export function readEnv(): Env {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid environment: ${problems}`);
  }
  return parsed.data;
}
