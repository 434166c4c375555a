import { sql, type Column, type SQL } from 'drizzle-orm';
import {
  defaultSettings,
  integrationsSchema,
  settingsSchema,
  type Integrations,
  type Project,
  type ProjectCreate,
  type ProjectPatch,
  type Settings,
  type SettingsUpdate,
} from '@dash/contracts';
import type { ApiTokenRow, OwnerRow, SessionRow } from './store.ts';

/** What both dialects' `projects` rows look like. */
export interface ProjectRow {
  slug: string;
  name: string;
  color: string | null;
  integrations: Partial<Integrations>;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** The columns a create or a patch writes. */
export type ProjectValues = Pick<ProjectRow, 'name' | 'color' | 'integrations'>;

export interface SettingRow {
  key: string;
  value: unknown;
}

const SLOT = 'slot:';
const CONFIG = 'config:';
const RATE = 'rate:';
export const metaKey = (name: string) => `meta:${name}`;

export const now = () => new Date().toISOString();

/** A stored instant as ISO 8601: SQLite keeps the ISO text it was given, Postgres answers in its own format. */
export const isoOf = (value: string): string => new Date(value).toISOString();

/** `isoOf` for a column that may be null. */
const isoOrNull = (value: string | null): string | null => (value === null ? null : isoOf(value));

// The row mappers below also serve on the way in: written instants are normalised too, so SQLite's text
// comparisons and orderings are those of the instants, and an unparseable one throws instead of being stored.

export const toOwner = (row: OwnerRow): OwnerRow => ({
  passwordHash: row.passwordHash,
  createdAt: isoOf(row.createdAt),
  updatedAt: isoOf(row.updatedAt),
});

export const toSession = (row: SessionRow): SessionRow => ({
  id: row.id,
  secretHash: row.secretHash,
  createdAt: isoOf(row.createdAt),
  lastSeenAt: isoOf(row.lastSeenAt),
  userAgent: row.userAgent,
  ip: row.ip,
});

export const toApiToken = (row: ApiTokenRow): ApiTokenRow => ({
  id: row.id,
  name: row.name,
  secretHash: row.secretHash,
  scope: row.scope,
  createdAt: isoOf(row.createdAt),
  lastUsedAt: isoOrNull(row.lastUsedAt),
  expiresAt: isoOrNull(row.expiresAt),
});

export function toProject(row: ProjectRow): Project {
  return {
    slug: row.slug,
    name: row.name,
    color: row.color,
    integrations: row.integrations,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/** Defaults overlaid with the stored leaves: a stored `null` removes the leaf, a missing row keeps the default. */
export function settingsFrom(rows: readonly SettingRow[], projectOrder: string[]): Settings {
  const slots: Record<string, unknown> = { ...defaultSettings.widgetLayout.slots };
  const configs: Record<string, unknown> = { ...defaultSettings.widgetLayout.configs };
  const exchangeRates: Record<string, unknown> = { ...defaultSettings.exchangeRates };
  for (const { key, value } of rows) {
    const target = key.startsWith(SLOT) ? slots : key.startsWith(CONFIG) ? configs : key.startsWith(RATE) ? exchangeRates : undefined;
    if (!target) continue;
    const name = key.slice(key.indexOf(':') + 1);
    if (value === null) {
      // A cleared rate falls back to its default; a cleared slot or config stays cleared.
      if (target === exchangeRates) exchangeRates[name] = defaultSettings.exchangeRates[name];
      else delete target[name];
    } else target[name] = value;
  }
  for (const [code, value] of Object.entries(exchangeRates)) if (value === undefined) delete exchangeRates[code];
  return settingsSchema.parse({ projectOrder, exchangeRates, widgetLayout: { slots, configs } });
}

/** The rows an update writes: one per slot or config it names, `null` for a cleared one. */
export function settingRows(update: SettingsUpdate): SettingRow[] {
  const { slots = {}, configs = {} } = update.widgetLayout ?? {};
  const rows = [
    ...Object.entries(slots).map(([slot, widget]) => ({ key: SLOT + slot, value: widget })),
    ...Object.entries(configs).map(([widget, config]) => ({ key: CONFIG + widget, value: config })),
    ...Object.entries(update.exchangeRates ?? {}).map(([code, value]) => ({ key: RATE + code, value })),
  ];
  return rows.filter((row) => row.value !== undefined);
}

export function unknownSlugs(order: readonly string[], existing: readonly string[]): string[] {
  const known = new Set(existing);
  return order.filter((slug) => !known.has(slug));
}

/**
 * The new `position` of every project: the listed ones get 0..n-1 in the given order, the others keep
 * their relative order after them. `order` must not be empty.
 */
export function reorderedPosition(slug: Column, position: Column, order: readonly string[]): SQL {
  const cases = order.map((listed, index) => sql`when ${listed} then ${sql.raw(String(index))}`);
  return sql`case ${slug} ${sql.join(cases, sql` `)} else ${sql.raw(String(order.length))} + ${position} end`;
}

export function createdValues(input: ProjectCreate): ProjectValues {
  return { name: input.name, color: input.color ?? null, integrations: input.integrations ?? {} };
}

const partialIntegrations = integrationsSchema.partial();

export function patchedValues(row: ProjectRow, patch: ProjectPatch): ProjectValues {
  const integrations: Record<string, unknown> = { ...row.integrations };
  for (const [name, value] of Object.entries(patch.integrations ?? {})) {
    if (value === null) delete integrations[name];
    else if (value !== undefined) integrations[name] = value;
  }
  return {
    name: patch.name ?? row.name,
    color: patch.color === undefined ? row.color : patch.color,
    integrations: partialIntegrations.parse(integrations),
  };
}

const PATCH_ATTEMPTS = 5;

/**
 * Optimistic concurrency: `write` must apply only while the row still has the version that was read,
 * and returns undefined otherwise (another patch won); then the patch is recomputed from a fresh read.
 */
export async function patchProject(
  slug: string,
  patch: ProjectPatch,
  read: () => Promise<ProjectRow | undefined>,
  write: (readVersion: number, values: ProjectValues) => Promise<ProjectRow | undefined>,
): Promise<Project | undefined> {
  for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
    const row = await read();
    if (!row) return undefined;
    const written = await write(row.version, patchedValues(row, patch));
    if (written) return toProject(written);
  }
  throw new Error(`Project "${slug}" kept changing during ${PATCH_ATTEMPTS} attempts to patch it`);
}

/** Whether `error`, or an error it wraps (drizzle wraps driver errors in `.cause`), satisfies `test`. */
function inCauses(error: unknown, test: (error: object) => boolean): boolean {
  for (let e = error; typeof e === 'object' && e !== null; e = 'cause' in e ? e.cause : undefined) {
    if (test(e)) return true;
  }
  return false;
}

const codeOf = (error: object) => ('code' in error && typeof error.code === 'string' ? error.code : undefined);

/** A local database reports the extended code; a remote libSQL server may report only `SQLITE_CONSTRAINT`. */
export const isSqliteUniqueViolation = (error: unknown) =>
  inCauses(error, (e) => /^SQLITE_CONSTRAINT(_PRIMARYKEY|_UNIQUE)?$/.test(codeOf(e) ?? ''));

export const isPgUniqueViolation = (error: unknown) => inCauses(error, (e) => codeOf(e) === '23505');
