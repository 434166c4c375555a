import { randomUUID } from 'node:crypto';
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
import type {
  ApiTokenRow,
  IncomingEvent,
  IngestResult,
  NotificationRow,
  NotificationSeverity,
  OwnerRow,
  SessionRow,
} from './store.ts';

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
/** The relay URL's row; `null` (or no row) is the default, null: WEBHOOK_RELAY_URL applies. */
const RELAY_URL = 'relayUrl';
export const metaKey = (name: string) => `meta:${name}`;

export const now = () => new Date().toISOString();

/** `LIKE` text that matches `text` literally (with `ESCAPE '\\'`). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A cache key (`route?a=1&b=2`) holds the parameter `part` (`name=value`): the part stands between `?` or `&` and
 * `&` or the end, so `project="a"` does not match `project="ab"`.
 */
export function keyHoldsPart(key: Column, part: string): SQL {
  const literal = likeLiteral(part);
  const patterns = [`%?${literal}`, `%&${literal}`, `%?${literal}&%`, `%&${literal}&%`];
  return sql`(${sql.join(
    patterns.map((pattern) => sql`${key} like ${pattern} escape '\\'`),
    sql` or `,
  )})`;
}

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
  let relayUrl: unknown = defaultSettings.relayUrl;
  for (const { key, value } of rows) {
    if (key === RELAY_URL) {
      relayUrl = value ?? defaultSettings.relayUrl;
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
  return settingsSchema.parse({ projectOrder, exchangeRates, widgetLayout: { slots, configs }, relayUrl });
}

/** The rows an update writes: one per slot, config or rate it names, `null` for a cleared one; the relay URL's. */
export function settingRows(update: SettingsUpdate): SettingRow[] {
  const { slots = {}, configs = {} } = update.widgetLayout ?? {};
  const rows = [
    ...Object.entries(slots).map(([slot, widget]) => ({ key: SLOT + slot, value: widget })),
    ...Object.entries(configs).map(([widget, config]) => ({ key: CONFIG + widget, value: config })),
    ...Object.entries(update.exchangeRates ?? {}).map(([code, value]) => ({ key: RATE + code, value })),
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

export const toNotification = (row: NotificationRow): NotificationRow => ({
  id: row.id,
  seq: Number(row.seq),
  integration: row.integration,
  type: row.type,
  subjectKey: row.subjectKey,
  status: row.status,
  severity: row.severity,
  title: row.title,
  url: row.url,
  projectSlug: row.projectSlug,
  eventCount: row.eventCount,
  firstAt: isoOf(row.firstAt),
  lastAt: isoOf(row.lastAt),
  resolvedAt: isoOrNull(row.resolvedAt),
  receivedAt: isoOf(row.receivedAt),
  readAt: isoOrNull(row.readAt),
});

/** An inbox row as written; the dialect gives it its seq. */
export type NotificationValues = Omit<NotificationRow, 'seq'>;

/** A `notification_events` row. */
export interface NotificationEventValues {
  id: string;
  notificationId: string;
  sourceEventId: string;
  integration: string;
  type: string;
  subjectKey: string | null;
  transition: IncomingEvent['transition'];
  severity: NotificationSeverity;
  title: string;
  url: string | null;
  projectSlug: string | null;
  occurredAt: string;
  receivedAt: string;
  relayEventId: string | null;
}

/** What `ingestEvents` needs of a dialect, every call inside the one transaction of the batch. */
export interface IngestOps {
  /** The subject's open row. */
  openRow(subjectKey: string): Promise<NotificationRow | undefined>;
  /**
   * Claims `sourceEventId` for the event (insert, or take over a claim that expired by `firstSeenAt`); true when
   * claimed; false when a live claim exists, whose `hits` it then increments.
   */
  claim(claim: { sourceEventId: string; notificationId: string; firstSeenAt: string; expiresAt: string }): Promise<boolean>;
  /** Inserts a row with the next seq. */
  insertRow(values: NotificationValues): Promise<NotificationRow>;
  /** Changes a row, giving it the next seq. */
  updateRow(id: string, values: Partial<NotificationValues>): Promise<NotificationRow>;
  insertEvent(values: NotificationEventValues): Promise<void>;
}

const severityRank: Record<NotificationSeverity, number> = { info: 0, success: 1, warning: 2, error: 3 };
const higherSeverity = (a: NotificationSeverity, b: NotificationSeverity) => (severityRank[b] > severityRank[a] ? b : a);
/** Of two normalised ISO instants, the later (they compare as text). */
const later = (a: string, b: string) => (b > a ? b : a);

/**
 * The batch part of `Store.notifications.ingest`, the same for both dialects: claims and folds each event in
 * order through `ops`, which run inside the caller's transaction (that also holds whatever serialises ingests).
 */
export async function ingestEvents(
  events: readonly IncomingEvent[],
  options: { now: string; dedupWindowMs: number },
  ops: IngestOps,
): Promise<IngestResult> {
  const { dedupWindowMs } = options;
  if (!(Number.isFinite(dedupWindowMs) && dedupWindowMs >= 0)) throw new RangeError(`Invalid dedupWindowMs: ${dedupWindowMs}`);
  const firstSeenAt = isoOf(options.now);
  const expiresAt = new Date(Date.parse(firstSeenAt) + dedupWindowMs).toISOString();
  const changed = new Map<string, NotificationRow>();
  let stored = 0;
  let duplicates = 0;

  for (const event of events) {
    const occurredAt = isoOf(event.occurredAt);
    const receivedAt = isoOf(event.receivedAt);
    // Without a subject a transition has nothing to join or close: the event is a row of its own.
    const subjectKey = event.transition === null ? null : event.subjectKey;
    const openRow = subjectKey === null ? undefined : await ops.openRow(subjectKey);
    // Normalised: Postgres answers instants in its own format, and `later` compares ISO text.
    const open = openRow && toNotification(openRow);
    const notificationId = open?.id ?? randomUUID();
    if (!(await ops.claim({ sourceEventId: event.sourceEventId, notificationId, firstSeenAt, expiresAt }))) {
      duplicates++;
      continue;
    }

    let row: NotificationRow;
    if (open && event.transition === 'trigger') {
      row = await ops.updateRow(open.id, {
        eventCount: open.eventCount + 1,
        severity: higherSeverity(open.severity, event.severity),
        lastAt: later(open.lastAt, occurredAt),
      });
    } else if (open) {
      // The resolve closes the occurrence; its own severity (`success`) does not raise the row's.
      row = await ops.updateRow(open.id, {
        status: 'resolved',
        resolvedAt: occurredAt,
        eventCount: open.eventCount + 1,
        lastAt: later(open.lastAt, occurredAt),
      });
    } else {
      // A trigger opens a new occurrence (after a resolve too: a second outage is a second row); a resolve
      // with no open row is a resolved row of its own; a stateless event is an info row.
      row = await ops.insertRow({
        id: notificationId,
        integration: event.integration,
        type: event.type,
        subjectKey: event.subjectKey,
        status: subjectKey === null ? 'info' : event.transition === 'trigger' ? 'open' : 'resolved',
        severity: event.severity,
        title: event.title,
        url: event.url,
        projectSlug: event.projectSlug,
        eventCount: 1,
        firstAt: occurredAt,
        lastAt: occurredAt,
        resolvedAt: event.transition === 'resolve' && subjectKey !== null ? occurredAt : null,
        receivedAt,
        readAt: null,
      });
    }
    await ops.insertEvent({
      id: randomUUID(),
      notificationId: row.id,
      sourceEventId: event.sourceEventId,
      integration: event.integration,
      type: event.type,
      subjectKey: event.subjectKey,
      transition: event.transition,
      severity: event.severity,
      title: event.title,
      url: event.url,
      projectSlug: event.projectSlug,
      occurredAt,
      receivedAt,
      relayEventId: event.relayEventId,
    });
    // A row changed twice by the batch is answered once, as it is after the batch.
    changed.set(row.id, toNotification(row));
    stored++;
  }
  return { stored, duplicates, changed: [...changed.values()].sort((a, b) => a.seq - b.seq) };
}
