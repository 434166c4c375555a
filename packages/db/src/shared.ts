import { randomUUID } from 'node:crypto';
import { getTableColumns, getTableName, sql, type Column, type SQL, type Table } from 'drizzle-orm';
import {
  defaultSettings,
  severityRank,
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
  FoldEffect,
  FoldedEvent,
  IncomingEvent,
  DeliveryRecord,
  IngestedEvent,
  IngestResult,
  NotificationRow,
  NotificationSeverity,
  OutboxOps,
  OwnerRow,
  PlanOutcome,
  SessionRow,
  StoredDecision,
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
/** The order of the row below the slots (`widgetLayout.more`); no row (or `null`) is the default order. */
const MORE = 'layout:more';
/** The relay URL's row; `null` (or no row) is the default, null: WEBHOOK_RELAY_URL applies. */
const RELAY_URL = 'relayUrl';
export const metaKey = (name: string) => `meta:${name}`;

export const now = () => new Date().toISOString();

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

/** A `notifications` row as a dialect reads it: `snoozed_until` in ms, `decision` and `refs` as JSON text. */
export type NotificationRecord = Omit<NotificationRow, 'snoozedUntil' | 'decision' | 'refs'> & {
  snoozedUntil: number | string | null;
  decision: string | StoredDecision | null;
  refs: string | null;
};

export const toNotification = (row: NotificationRecord): NotificationRow => ({
  id: row.id,
  seq: Number(row.seq),
  createdSeq: Number(row.createdSeq),
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
  snoozedUntil: snoozedOf(row.snoozedUntil),
  decision: storedDecisionOf(row.decision),
  refs: refsOf(row.refs),
});

/** A `refs` column (JSON text of an array of strings), or null. */
export const refsOf = (value: unknown): string[] | null => (typeof value === 'string' ? (JSON.parse(value) as string[]) : null);

/** `snoozed_until` (ms UTC, as a number or Postgres's bigint text) as ISO 8601. */
function snoozedOf(value: unknown): string | null {
  return value === null || value === undefined ? null : typeof value === 'string' && value.includes('T') ? isoOf(value) : new Date(Number(value)).toISOString();
}

/** A `decision` column (JSON text), or a decision already parsed. */
function storedDecisionOf(value: unknown): StoredDecision | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? (JSON.parse(value) as StoredDecision) : (value as StoredDecision);
}

/** A row as the `notifications` table's columns hold it (for `insertStatement`). */
export const notificationValues = (row: NotificationRow) => ({
  ...row,
  snoozedUntil: row.snoozedUntil === null ? null : Date.parse(row.snoozedUntil),
  decision: row.decision === null ? null : JSON.stringify(row.decision),
  refs: row.refs === null ? null : JSON.stringify(row.refs),
});

/** A `notification_events` row. */
export type NotificationEventValues = Omit<IncomingEvent, 'decision'> & {
  id: string;
  notificationId: string;
  /** JSON of its `StoredDecision`, or null. */
  decision: string | null;
};

/** A `notification_dedup` row as a batch claims it. */
export interface DedupClaim {
  sourceEventId: string;
  /** The inbox row the event folds into. */
  notificationId: string;
  firstSeenAt: string;
  expiresAt: string;
  /** 1, plus the event's copies later in the same batch. */
  hits: number;
}

/**
 * Rows (or keys) per statement of an ingest or a restore: with the widest table's 19 columns, 4,750 bound parameters,
 * well under SQLite's limit (32,766) and Postgres's and MySQL's (65,535).
 */
export const INGEST_CHUNK = 250;

/** `items` in slices of at most `size`. */
export function chunked<T>(items: readonly T[], size = INGEST_CHUNK): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += size) slices.push(items.slice(i, i + size));
  return slices;
}

/**
 * What `ingestEvents` needs of a dialect, every call inside the one transaction of the batch (which also holds
 * whatever serialises ingests, so nothing else changes the inbox or the claims between the calls). Every list it
 * is given holds at most INGEST_CHUNK items; each call is one statement (or a few).
 */
export interface IngestOps {
  /** The open rows of these subjects (at most one each). */
  openRows(subjectKeys: string[]): Promise<NotificationRecord[]>;
  /**
   * Inserts each claim, or takes over one that has expired by its `firstSeenAt` (writing all of its columns); answers
   * the sourceEventIds claimed. The others have a live claim, left as it was.
   */
  claim(claims: DedupClaim[]): Promise<string[]>;
  /** Adds `count` to the `hits` of these (live) claims. */
  addHits(sourceEventIds: string[], count: number): Promise<void>;
  /** Points these claims at other rows. */
  relink(links: { sourceEventId: string; notificationId: string }[]): Promise<void>;
  /** `count` (> 0) new seqs, ascending, each bigger than any handed out before. */
  takeSeqs(count: number): Promise<number[]>;
  /** Writes the folded columns (seq, status, severity, eventCount, lastAt, resolvedAt, decision) of existing rows; never readAt. */
  updateRows(rows: NotificationRow[]): Promise<void>;
  insertRows(rows: NotificationRow[]): Promise<void>;
  insertEvents(events: NotificationEventValues[]): Promise<void>;
  /** Writes deliveries log rows (see `Store.notifications.ingest`'s `log`), a duplicate's `duplicateOf` filled in. */
  logDeliveries(rows: DeliveryRecord[]): Promise<void>;
  /** The outbox on the same transaction, for the batch's `plan`. */
  outbox: OutboxOps;
}

/**
 * `case <column> when … then … end`: each claim's new row, for the update that points claims (source event ids) at
 * other rows.
 */
export const relinkedCase = (column: Column, links: readonly { sourceEventId: string; notificationId: string }[]): SQL =>
  sql`case ${column} ${sql.join(
    links.map((link) => sql`when ${link.sourceEventId} then ${link.notificationId}`),
    sql` `,
  )} end`;

/** The `count` seqs that end at `last`, ascending. */
export const seqsEndingAt = (last: number, count: number): number[] => Array.from({ length: count }, (_, index) => last - count + 1 + index);

/** A statement as text with its parameters, run as it is (drizzle builds nothing). */
export interface RawStatement {
  sql: string;
  params: unknown[];
}

/** A raw statement whose parameters are `?` (SQLite's, MySQL's) as drizzle SQL: each `?` becomes a bound parameter. */
export const rawSql = ({ sql: text, params }: RawStatement): SQL =>
  sql.join(text.split('?').map((part, index) => (index === 0 ? sql.raw(part) : sql`${params[index - 1]}${sql.raw(part)}`)));

/** How a dialect spells the parameter at `index` (from 0). */
export type Placeholder = (index: number) => string;

/** What the raw statements (the ingest's wide inserts, the outbox) need to know of a dialect's SQL. */
export interface SqlDialect {
  placeholder: Placeholder;
  /** An identifier as the dialect quotes it: `"until"`, or MySQL's `` `until` ``. */
  quote: (name: string) => string;
  /** The tail of an insert that updates `columns` of the row whose key the new one collides with. */
  upsert: (key: string, columns: readonly string[]) => string;
}

const standardUpsert = (key: string, columns: readonly string[]) =>
  `on conflict (${key}) do update set ${columns.map((column) => `${column} = excluded.${column}`).join(', ')}`;
export const sqliteDialect: SqlDialect = { placeholder: () => '?', quote: (name) => `"${name}"`, upsert: standardUpsert };
export const pgDialect: SqlDialect = { placeholder: (index) => `$${index + 1}`, quote: (name) => `"${name}"`, upsert: standardUpsert };
/** MariaDB lacks MySQL 8's row alias (`as new`), so the upsert reads the colliding row with `values()`. */
export const mysqlDialect: SqlDialect = {
  placeholder: () => '?',
  quote: (name) => `\`${name}\``,
  upsert: (_key, columns) => `on duplicate key update ${columns.map((column) => `${column} = values(${column})`).join(', ')}`,
};

/** Recent texts of `insertStatement`, by table, row count, tail and placeholder style (at most a few dozen, tens of kB each). */
const insertTexts = new Map<string, string>();
const INSERT_TEXTS_KEPT = 64;

/**
 * One multi-row `insert into <table> (<every column>) values (…), (…) <tail>` of `rows` (which hold every column's
 * key; undefined writes null), its parameters row by row in the table's column order. The ingest's wide writes go
 * this way: drizzle's builder spends more per value than the database does.
 */
export function insertStatement(table: Table, rows: readonly object[], dialect: SqlDialect, tail = ''): RawStatement {
  // A generated column (MySQL's open-subject key) is the database's to write.
  const columns = Object.entries(getTableColumns(table) as Record<string, Column>).filter(([, column]) => !column.generated);
  const { placeholder, quote } = dialect;
  const key = `${getTableName(table)}\0${rows.length}\0${quote('')}${placeholder(1)}\0${tail}`;
  let text = insertTexts.get(key);
  if (text === undefined) {
    let index = 0;
    const tuples = rows.map(() => `(${columns.map(() => placeholder(index++)).join(', ')})`);
    text = `insert into ${quote(getTableName(table))} (${columns.map(([, column]) => quote(column.name)).join(', ')}) values ${tuples.join(', ')}${tail && ` ${tail}`}`;
    if (insertTexts.size >= INSERT_TEXTS_KEPT) insertTexts.clear();
    insertTexts.set(key, text);
  }
  const params: unknown[] = [];
  for (const row of rows) for (const [name] of columns) params.push((row as Record<string, unknown>)[name] ?? null);
  return { sql: text, params };
}

/**
 * The tail of a multi-row claim (`insertStatement` of `notification_dedup`), the same on both dialects: insert each
 * claim, or take over one that has expired by the new claim's start; a live one is left as it is and answers no row.
 */
export const CLAIM_TAIL =
  'on conflict ("source_event_id") do update set "notification_id" = excluded."notification_id", ' +
  '"first_seen_at" = excluded."first_seen_at", "expires_at" = excluded."expires_at", "hits" = excluded."hits" ' +
  'where "notification_dedup"."expires_at" <= excluded."first_seen_at" returning "source_event_id"';

const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

const higherSeverity = (a: NotificationSeverity, b: NotificationSeverity) => (severityRank[b] > severityRank[a] ? b : a);
/** Of two normalised ISO instants, the later (they compare as text). */
const later = (a: string, b: string) => (b > a ? b : a);

/** A batch's event with its instants normalised, once its in-batch copies are set aside. */
interface BatchEvent {
  event: IncomingEvent;
  occurredAt: string;
  receivedAt: string;
  /** What its transition acts on: null when it is a row of its own (no transition, or no subject). */
  subject: string | null;
  /** The id of the row it opens, when it opens one. */
  newId: string;
  /** The id it is stored with: its interruptions name it. */
  eventId: string;
  /** Its copies later in the batch. */
  copies: number;
}

/** An event as the fold takes it: its instants normalised (and checked), its subject, the id of a row it would open. */
function batchEvent(event: IncomingEvent): BatchEvent {
  // Without a subject a transition has nothing to join or close: the event is a row of its own.
  const subject = event.transition === null ? null : event.subjectKey;
  return { event, occurredAt: isoOf(event.occurredAt), receivedAt: isoOf(event.receivedAt), subject, newId: randomUUID(), eventId: randomUUID(), copies: 0 };
}

/** A row the fold changed, as it is after the batch; `last` is the index of the last event that changed it. */
interface FoldedRow {
  /** A new row gets its createdSeq with its seq, when the batch is written. */
  row: Omit<NotificationRow, 'seq' | 'createdSeq'> & { createdSeq?: number };
  existed: boolean;
  last: number;
}

/**
 * Folds the events that `stored` admits, in order, onto the subjects' `open` rows: the row each event went into
 * (undefined for those not stored) and every row changed, new or existing, as the batch leaves it.
 */
function fold(batch: readonly BatchEvent[], stored: (index: number) => boolean, open: ReadonlyMap<string, NotificationRow>) {
  const rowOf: (string | undefined)[] = new Array<string | undefined>(batch.length);
  const effects: (FoldEffect | undefined)[] = new Array<FoldEffect | undefined>(batch.length);
  const rows = new Map<string, FoldedRow>();
  const openIds = new Map<string, string>();
  for (const [subject, row] of open) openIds.set(subject, row.id);
  for (const [index, { event, occurredAt, receivedAt, subject, newId }] of batch.entries()) {
    if (!stored(index)) continue;
    const openId = subject === null ? undefined : openIds.get(subject);
    let folded: FoldedRow;
    if (subject !== null && openId !== undefined) {
      // An open row the batch has not changed yet is the subject's row from before the batch.
      const before = open.get(subject);
      folded = rows.get(openId) ?? { row: { ...(before as NotificationRow) }, existed: true, last: index };
      const { row } = folded;
      row.eventCount += 1;
      row.lastAt = later(row.lastAt, occurredAt);
      if (event.transition === 'trigger') {
        const before = row.severity;
        row.severity = higherSeverity(row.severity, event.severity);
        effects[index] = row.severity === 'error' && before !== 'error' ? 'raised' : 'joined';
      } else {
        effects[index] = 'resolved';
        // The resolve closes the occurrence; its own severity (`success`) does not raise the row's.
        row.status = 'resolved';
        row.resolvedAt = occurredAt;
        openIds.delete(subject);
      }
    } else {
      // A trigger opens a new occurrence (after a resolve too: a second outage is a second row); a resolve
      // with no open row is a resolved row of its own; a stateless event is an info row.
      const status = subject === null ? 'info' : event.transition === 'trigger' ? 'open' : 'resolved';
      effects[index] = status === 'info' ? 'info' : status === 'open' ? 'opened' : 'resolved_alone';
      folded = {
        row: {
          id: newId,
          integration: event.integration,
          type: event.type,
          subjectKey: event.subjectKey,
          status,
          severity: event.severity,
          title: event.title,
          url: event.url,
          projectSlug: event.projectSlug,
          eventCount: 1,
          firstAt: occurredAt,
          lastAt: occurredAt,
          resolvedAt: status === 'resolved' ? occurredAt : null,
          receivedAt,
          readAt: null,
          snoozedUntil: null,
          decision: event.decision ?? null,
          refs: event.refs === undefined ? null : [...event.refs],
        },
        existed: false,
        last: index,
      };
      if (subject !== null && status === 'open') openIds.set(subject, newId);
    }
    folded.last = index;
    folded.row.decision = event.decision ?? folded.row.decision;
    rows.set(folded.row.id, folded);
    rowOf[index] = folded.row.id;
  }
  return { rowOf, effects, rows };
}

/**
 * The thread-grouping step of an ingest on its own, writing nothing: what `ingestEvents` folds these distinct, new
 * events into, given their subjects' `open` rows (keyed by subject), as the plan sees them. The dry run asks this,
 * so it groups exactly as a real ingest does; a row it would open has a new id and seq 0.
 */
export function foldEvents(events: readonly IncomingEvent[], open: ReadonlyMap<string, NotificationRow>): FoldedEvent[] {
  const batch = events.map(batchEvent);
  const { rowOf, effects, rows } = fold(batch, () => true, open);
  return batch.map(({ event, eventId }, index) => {
    const { row } = rows.get(rowOf[index] as string) as FoldedRow;
    return { eventId, event, notificationId: row.id, effect: effects[index] as FoldEffect, row: { ...row, seq: 0, createdSeq: row.createdSeq ?? 0 } };
  });
}

/**
 * The batch part of `Store.notifications.ingest`, the same for both dialects, a batch at a time through `ops`
 * (inside the caller's transaction, which also serialises ingests): set the in-batch copies aside, read the
 * subjects' open rows, fold assuming every event is new and claim each event for the row that gives it, fold again
 * with only the claimed ones when some were live duplicates (pointing the claims that now fold elsewhere at their
 * rows), then write the changed rows with new seqs in the order of their last change, and the events.
 */
export async function ingestEvents(
  events: readonly IncomingEvent[],
  options: {
    now: string;
    dedupWindowMs: number;
    plan?: ((folded: FoldedEvent[], ops: OutboxOps) => Promise<PlanOutcome>) | undefined;
    log?: ((events: IngestedEvent[]) => DeliveryRecord[]) | undefined;
  },
  ops: IngestOps,
): Promise<IngestResult> {
  const { dedupWindowMs } = options;
  if (!(Number.isFinite(dedupWindowMs) && dedupWindowMs >= 0)) throw new RangeError(`Invalid dedupWindowMs: ${dedupWindowMs}`);
  const firstSeenAt = isoOf(options.now);
  const expiresAt = new Date(Date.parse(firstSeenAt) + dedupWindowMs).toISOString();

  // A copy of an event earlier in the batch is a duplicate: it only adds to the claim's hits.
  const batch: BatchEvent[] = [];
  const bySource = new Map<string, BatchEvent>();
  for (const event of events) {
    // Normalised (and checked) before anything is written: `later` compares ISO text.
    const entry = batchEvent(event);
    const first = bySource.get(event.sourceEventId);
    if (first) {
      first.copies++;
      continue;
    }
    bySource.set(event.sourceEventId, entry);
    batch.push(entry);
  }
  if (batch.length === 0) return { stored: 0, duplicates: 0, changed: [], sent: [], events: [] };

  const subjects = [...new Set(batch.flatMap(({ subject }) => (subject === null ? [] : [subject])))];
  const open = new Map<string, NotificationRow>();
  for (const keys of chunked(subjects)) {
    for (const row of await ops.openRows(keys)) if (row.subjectKey !== null) open.set(row.subjectKey, toNotification(row));
  }

  // Claims name the row their event folds into when every event is new, as nearly all are.
  const assumed = fold(batch, () => true, open);
  const claimed = new Set<string>();
  for (const slice of chunked(batch.map((entry, index) => ({ entry, index })))) {
    const claims = slice.map(({ entry, index }) => ({
      sourceEventId: entry.event.sourceEventId,
      notificationId: assumed.rowOf[index] as string,
      firstSeenAt,
      expiresAt,
      hits: 1 + entry.copies,
    }));
    for (const sourceEventId of await ops.claim(claims)) claimed.add(sourceEventId);
  }

  let folded = assumed;
  if (claimed.size < batch.length) {
    // Live claims: those events are duplicates, and every copy counts as a hit.
    const live = batch.filter(({ event }) => !claimed.has(event.sourceEventId));
    const byHits = new Map<number, string[]>();
    for (const { event, copies: n } of live) {
      const group = byHits.get(1 + n);
      if (group) group.push(event.sourceEventId);
      else byHits.set(1 + n, [event.sourceEventId]);
    }
    for (const [count, ids] of byHits) for (const slice of chunked(ids)) await ops.addHits(slice, count);
    folded = fold(batch, (index) => claimed.has((batch[index] as BatchEvent).event.sourceEventId), open);
    const { rowOf } = folded;
    const moved = batch.flatMap(({ event }, index) => {
      const notificationId = rowOf[index];
      return notificationId !== undefined && notificationId !== assumed.rowOf[index] ? [{ sourceEventId: event.sourceEventId, notificationId }] : [];
    });
    for (const slice of chunked(moved)) await ops.relink(slice);
  }

  const { rowOf, effects, rows } = folded;
  const order = [...rows.values()].sort((a, b) => a.last - b.last);
  const seqs = order.length > 0 ? await ops.takeSeqs(order.length) : [];
  const changed: NotificationRow[] = order.map(({ row }, index) => ({ ...row, seq: seqs[index] as number, createdSeq: row.createdSeq ?? (seqs[index] as number) }));

  // The policy's plan decides each stored event's interruption before anything is written, in the same transaction.
  const decisions = new Map<number, StoredDecision | null>();
  let sent: PlanOutcome['sent'] = [];
  if (options.plan) {
    const byId = new Map(changed.map((row) => [row.id, row]));
    const indexes = batch.flatMap((_, index) => (rowOf[index] === undefined ? [] : [index]));
    const plannedEvents: FoldedEvent[] = indexes.map((index) => ({
      eventId: (batch[index] as BatchEvent).eventId,
      event: (batch[index] as BatchEvent).event,
      notificationId: rowOf[index] as string,
      effect: effects[index] as FoldEffect,
      row: byId.get(rowOf[index] as string) as NotificationRow,
    }));
    const outcome = await options.plan(plannedEvents, ops.outbox);
    indexes.forEach((index, position) => decisions.set(index, outcome.decisions[position] ?? (batch[index] as BatchEvent).event.decision ?? null));
    // Each row keeps the decision of the last of its events in the batch.
    for (const index of indexes) {
      const row = byId.get(rowOf[index] as string);
      if (row) row.decision = decisions.get(index) ?? row.decision;
    }
    for (const id of outcome.readIds) {
      const row = byId.get(id);
      if (row && !rows.get(id)?.existed) row.readAt = firstSeenAt;
    }
    sent = outcome.sent;
  }
  // Existing rows first: one the batch resolved must be closed before a new open row of its subject goes in.
  const existing = changed.filter((row) => rows.get(row.id)?.existed);
  for (const slice of chunked(existing)) await ops.updateRows(slice);
  const fresh = changed.filter((row) => !rows.get(row.id)?.existed);
  for (const slice of chunked(fresh)) await ops.insertRows(slice);

  const stored: NotificationEventValues[] = [];
  for (const [index, { event, eventId, occurredAt, receivedAt }] of batch.entries()) {
    const notificationId = rowOf[index];
    if (notificationId === undefined) continue;
    stored.push({
      id: eventId,
      notificationId,
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
      decision: jsonOrNull(decisions.has(index) ? decisions.get(index) : event.decision),
    });
  }
  for (const slice of chunked(stored)) await ops.insertEvents(slice);

  // What became of each event given, in order: the first copy of a source event as it folded, every later copy a
  // duplicate (of the first's row when that one was stored now).
  const positions = new Map(batch.map((entry, index) => [entry.event.sourceEventId, index]));
  const firsts = new Set<string>();
  const ingested: IngestedEvent[] = events.map(({ sourceEventId }) => {
    const index = positions.get(sourceEventId) as number;
    const notificationId = rowOf[index] ?? null;
    const first = !firsts.has(sourceEventId);
    firsts.add(sourceEventId);
    if (first && notificationId !== null) return { sourceEventId, effect: effects[index] as FoldEffect, notificationId, eventId: (batch[index] as BatchEvent).eventId };
    return { sourceEventId, effect: 'duplicate', notificationId, eventId: null };
  });
  if (options.log) {
    const rows = options.log(ingested);
    for (const slice of chunked(rows)) await ops.logDeliveries(slice);
  }
  return { stored: stored.length, duplicates: events.length - stored.length, changed, sent, events: ingested };
}
