import { sql, type Column, type SQL } from 'drizzle-orm';
import { defaultSettings, integrationsSchema, settingsSchema, type Integrations, type Project, type ProjectCreate, type ProjectPatch, type Settings, type SettingsUpdate } from '@dash/contracts';

/**
 * The settings, projects, meta values and cache keys as every dialect stores them: the settings' leaves as rows, the
 * projects' rows and their optimistic patch, a meta value's key, and the match of a parameter in a cache key.
 */

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
/** The order of the row below the slots (`widgetLayout.more`); no row (or `null`) is the default order. */
const MORE = 'layout:more';
/** The relay URL's row; `null` (or no row) is the default, null: WEBHOOK_RELAY_URL applies. */
const RELAY_URL = 'relayUrl';
export const metaKey = (name: string) => `meta:${name}`;

/** `LIKE` text that matches `text` literally (with `ESCAPE '\\'`). */
const likeLiteral = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);

/**
 * A cache key (`route?a=1&b=2`) holds the parameter `part` (`name=value`): the part stands between `?` or `&` and
 * `&` or the end, so `project="a"` does not match `project="ab"`.
 */
export function keyHoldsPart(key: Column, part: string): SQL {
  const literal = likeLiteral(part);
  const patterns = [`%?${literal}`, `%&${literal}`, `%?${literal}&%`, `%&${literal}&%`];
  return sql`(${sql.join(
    patterns.map((pattern) => sql`${key} like ${pattern} escape '!'`),
    sql` or `,
  )})`;
}

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
  let relayUrl: unknown = defaultSettings.relayUrl;
  let more: unknown = defaultSettings.widgetLayout.more;
  for (const { key, value } of rows) {
    if (key === RELAY_URL) {
      relayUrl = value ?? defaultSettings.relayUrl;
      continue;
    }
    if (key === MORE) {
      more = value ?? defaultSettings.widgetLayout.more;
      continue;
    }
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
  return settingsSchema.parse({ projectOrder, exchangeRates, widgetLayout: { slots, more, configs }, relayUrl });
}

/** The rows an update writes: one per slot, config or rate it names, `null` for a cleared one; the row order's; the relay URL's. */
export function settingRows(update: SettingsUpdate): SettingRow[] {
  const { slots = {}, configs = {}, more } = update.widgetLayout ?? {};
  const rows = [
    ...Object.entries(slots).map(([slot, widget]) => ({ key: SLOT + slot, value: widget })),
    ...Object.entries(configs).map(([widget, config]) => ({ key: CONFIG + widget, value: config })),
    ...Object.entries(update.exchangeRates ?? {}).map(([code, value]) => ({ key: RATE + code, value })),
    { key: MORE, value: more },
    { key: RELAY_URL, value: update.relayUrl },
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
