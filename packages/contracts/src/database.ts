import { z } from 'zod';
import { ownerPasswordSchema } from './auth.ts';

/**
 * The dashboard's database as `/api/database` speaks of it: the providers and their configuration, a choice and a
 * switch, the status, a test and a migration. The export dump and its import are in dump.ts.
 */

/**
 * Where the dashboard keeps what it stores: `sqlite` (embedded, the default), `hosted_db_1` (Supabase: Postgres),
 * `hosted_db_2` (Turso: libSQL over HTTP), `hosted_db_3` (PlanetScale: MySQL).
 */
export const databaseProviders = ['sqlite', 'hosted_db_1', 'hosted_db_2', 'hosted_db_3'] as const;
export const databaseProviderSchema = z.enum(databaseProviders);
export type DatabaseProvider = z.infer<typeof databaseProviderSchema>;

/** Human names, for messages and the settings page. */
export const databaseProviderNames: Record<DatabaseProvider, string> = {
  sqlite: 'Embedded SQLite',
  hosted_db_1: 'Supabase',
  hosted_db_2: 'Turso',
  hosted_db_3: 'PlanetScale',
};

const scheme = (url: string) => /^[a-z][a-z\d+.-]*:/i.exec(url)?.[0].toLowerCase();
const parses = (url: string) => URL.canParse(url);
const secret = (what: string) => z.string().min(1, `${what} is required`).max(8192);

export const sqliteConfigSchema = z.strictObject({
  /** The database file; relative paths start at the dashboard's folder. Default `data/dashboard.db`. */
  path: z
    .string()
    .trim()
    .min(1)
    .max(1024)
    .refine((path) => !path.includes('\0') && path !== ':memory:', 'A file path such as data/dashboard.db')
    .optional(),
});

export const hostedDb1ConfigSchema = z.strictObject({
  /** The connection string from Supabase's Connect panel (direct, session pooler on 5432, or transaction pooler on 6543). */
  url: z
    .string()
    .trim()
    .max(2048)
    .refine((url) => ['postgres:', 'postgresql:'].includes(scheme(url) ?? '') && parses(url), 'A postgresql://… connection string from Supabase → Connect'),
});

export const hostedDb2ConfigSchema = z.strictObject({
  /** `libsql://<db>-<org>.turso.io` (or its https:// form). */
  url: z
    .string()
    .trim()
    .max(2048)
    .refine((url) => ['libsql:', 'https:', 'http:'].includes(scheme(url) ?? '') && parses(url), 'A libsql://<database>-<org>.turso.io URL'),
  /** `turso db tokens create <database>`. */
  authToken: secret('The auth token'),
});

export const hostedDb3ConfigSchema = z.strictObject({
  /** `aws.connect.psdb.cloud`, optionally with `:port`. */
  host: z
    .string()
    .trim()
    .min(1, 'The host is required')
    .max(255)
    .regex(/^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9a-fA-F:]+\](?::\d{1,5})?$/, 'A host name such as aws.connect.psdb.cloud'),
  username: z.string().trim().min(1, 'The username is required').max(255),
  password: secret('The password'),
  database: z
    .string()
    .trim()
    .max(64)
    .regex(/^[A-Za-z0-9_-]*$/, 'A database name: letters, digits, _ and -')
    .optional(),
});

export type SqliteConfig = z.infer<typeof sqliteConfigSchema>;
export type HostedDb1Config = z.infer<typeof hostedDb1ConfigSchema>;
export type HostedDb2Config = z.infer<typeof hostedDb2ConfigSchema>;
export type HostedDb3Config = z.infer<typeof hostedDb3ConfigSchema>;

/** A provider with its configuration: what the dashboard connects to. */
export const databaseChoiceSchema = z.discriminatedUnion('provider', [
  z.strictObject({ provider: z.literal('sqlite'), config: sqliteConfigSchema }),
  z.strictObject({ provider: z.literal('hosted_db_1'), config: hostedDb1ConfigSchema }),
  z.strictObject({ provider: z.literal('hosted_db_2'), config: hostedDb2ConfigSchema }),
  z.strictObject({ provider: z.literal('hosted_db_3'), config: hostedDb3ConfigSchema }),
]);
export type DatabaseChoice = z.infer<typeof databaseChoiceSchema>;

/** On a switch: copy this dashboard's data into the new database, or use the data already there. */
export const switchDataSchema = z.enum(['copy', 'use']);
export type SwitchData = z.infer<typeof switchDataSchema>;

/**
 * `POST /api/database/config` and `/test`: a provider and its config. The config may be left out to use the one
 * saved for that provider (so "check again" needs no password typed twice). `data` says what a switch does with
 * the data; `replace` confirms that a copy may replace data the target already holds.
 */
export const databaseConfigInputSchema = z.strictObject({
  provider: databaseProviderSchema,
  config: z.record(z.string(), z.unknown()).optional(),
  data: switchDataSchema.optional(),
  replace: z.boolean().optional(),
  /** The dashboard password, once one is set: a switch is the owner's (a test ignores it). */
  password: ownerPasswordSchema,
});
export type DatabaseConfigInput = z.infer<typeof databaseConfigInputSchema>;

/** SPEC.md: the same body as `POST /api/database/config` (a test ignores `data` and `replace`). */
export const databaseTestInputSchema = databaseConfigInputSchema;

/** Where the dashboard's database comes from: `DATABASE_URL`, a choice made in the dashboard, or the default. */
export const databaseSourceSchema = z.enum(['env', 'dashboard', 'default']);

/** What a provider's tables look like: all there and current, some migrations not applied, or none. */
export const tablesStateSchema = z.enum(['current', 'outdated', 'missing']);
export type TablesState = z.infer<typeof tablesStateSchema>;

/** A provider as the page shows it: never a password, token or full connection string. */
export const databaseTargetSchema = z.object({
  provider: databaseProviderSchema,
  /** `data/dashboard.db`, `aws-0-eu-central-1.pooler.supabase.com:6543/postgres (transaction pooler)`, … */
  description: z.string(),
});

/** `GET /api/database/config`. */
export const databaseStatusSchema = z.object({
  /** The chosen provider. */
  provider: databaseProviderSchema,
  /** True when the chosen provider is the one the dashboard reads and writes now. */
  configured: z.boolean(),
  source: databaseSourceSchema,
  description: z.string(),
  /** What the dashboard reads and writes now (the previous store while a switch waits). */
  serving: databaseTargetSchema,
  /** Why the chosen provider does not serve yet (unreachable, tables missing, copy-or-use not chosen), or null. */
  problem: z.string().nullable(),
  /** The switch waiting for the problem to go: what it will do with the data. */
  data: switchDataSchema.nullable(),
});
export type DatabaseStatus = z.infer<typeof databaseStatusSchema>;

/** What a copy wrote, table by table. */
export const tableCountsSchema = z.record(z.string(), z.number().int().nonnegative());
export type TableCounts = z.infer<typeof tableCountsSchema>;

/** `POST /api/database/config`: the status after the choice, whether it switched, and what a copy wrote. */
export const databaseConfigResultSchema = databaseStatusSchema.extend({
  switched: z.boolean(),
  copied: tableCountsSchema.nullable(),
});
export type DatabaseConfigResult = z.infer<typeof databaseConfigResultSchema>;

/** `POST /api/database/test`. */
export const databaseTestResultSchema = z.discriminatedUnion('success', [
  z.object({
    success: z.literal(true),
    tables: tablesStateSchema,
    /** Rows of the dashboard's data there (projects, credentials, settings, notifications…); 0 when empty or no tables. */
    rows: z.number().int().nonnegative(),
  }),
  z.object({ success: z.literal(false), error: z.string() }),
]);
export type DatabaseTestResult = z.infer<typeof databaseTestResultSchema>;

/** `POST /api/database/migrate`: run (SQLite, Turso), or the SQL to run by hand (Supabase, PlanetScale). */
export const databaseMigrateResultSchema = z.discriminatedUnion('migrated', [
  z.object({ migrated: z.literal(true), provider: databaseProviderSchema }),
  z.object({
    migrated: z.literal(false),
    provider: databaseProviderSchema,
    /** Each a complete statement, in order; empty when the tables are already current. */
    statements: z.array(z.string()),
    /** Where to run them. */
    where: z.string(),
  }),
]);
export type DatabaseMigrateResult = z.infer<typeof databaseMigrateResultSchema>;
