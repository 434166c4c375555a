import { decisionOf } from './outbox.ts';
import { bind, num, numOrNull, type RunStatement } from './sql-rows.ts';
import { chunked, mysqlDialect, pgDialect, type RawStatement, type SqlDialect } from './dialects.ts';
import { textRuns } from './transfer.ts';
import type { DeliveryFilter, DeliveryListRow, DeliveryRecord, RefusalRow, Store } from './store.ts';

/**
 * The webhook deliveries log (`webhook_deliveries`) and the refusal counts beside it (`webhook_refusals`), as plain SQL
 * every dialect runs. Rows of ingested events are written in the ingest's transaction (`logDeliveryRows`, the dialects'
 * `IngestOps.logDeliveries`); everything else goes through `deliveries`.
 */

/**
 * What a dialect gives the log: plain statements for the reads, `write` for a statement on its own that answers how
 * many rows it wrote (libSQL's `rowsAffected`, postgres.js's `count`, mysql2's `affectedRows`), and a transaction for
 * `record`, whose rows go in together or not at all.
 */
export interface DeliveriesEngine {
  run: RunStatement;
  write(statement: RawStatement): Promise<number>;
  transaction<T>(work: (run: RunStatement) => Promise<T>): Promise<T>;
}

/** Each field of a `DeliveryRecord` and its column, in the table's order: the wide `event` and `body` last. */
const FIELDS = [
  ['id', 'id'],
  ['receivedAt', 'received_at'],
  ['source', 'source'],
  ['integration', 'integration'],
  ['eventType', 'event_type'],
  ['deliveryId', 'delivery_id'],
  ['sourceEventId', 'source_event_id'],
  ['outcome', 'outcome'],
  ['detail', 'detail'],
  ['title', 'title'],
  ['projectSlug', 'project_slug'],
  ['notificationId', 'notification_id'],
  ['eventId', 'event_id'],
  ['duplicateOf', 'duplicate_of'],
  ['replayOf', 'replay_of'],
  ['replayRequest', 'replay_request'],
  ['bodyUntil', 'body_until'],
  ['event', 'event'],
  ['body', 'body'],
] as const satisfies readonly (readonly [keyof DeliveryRecord, string])[];

const COLUMNS = FIELDS.map(([, column]) => column);
/** What a list selects: never the body nor the event (a page of 50 would read up to 50 bodies of 256 KB), whether the body is kept instead. */
const LISTED = `${COLUMNS.filter((column) => column !== 'event' && column !== 'body').join(', ')}, case when body is null then 0 else 1 end as has_body`;
const NEWEST_FIRST = 'order by received_at desc, id desc';
/** The outcomes a duplicate can be a copy of: the rows whose event was stored. */
const STORED = "outcome in ('notified', 'threaded')";

const marks = (count: number) => Array.from({ length: count }, () => '?').join(', ');
/** A text column as the driver answers it (a string, or null). */
const text = (value: unknown): string | null => (value as string | null | undefined) ?? null;

function listRow(r: Record<string, unknown>): DeliveryListRow {
  return {
    id: String(r.id),
    receivedAt: num(r.received_at),
    source: r.source as DeliveryRecord['source'],
    integration: String(r.integration),
    eventType: text(r.event_type),
    deliveryId: text(r.delivery_id),
    sourceEventId: text(r.source_event_id),
    outcome: r.outcome as DeliveryRecord['outcome'],
    detail: text(r.detail),
    title: text(r.title),
    projectSlug: text(r.project_slug),
    notificationId: text(r.notification_id),
    eventId: text(r.event_id),
    duplicateOf: text(r.duplicate_of),
    replayOf: text(r.replay_of),
    replayRequest: text(r.replay_request),
    bodyUntil: numOrNull(r.body_until),
    hasBody: Number(r.has_body) === 1,
  };
}

function fullRow(r: Record<string, unknown>): DeliveryRecord {
  const { hasBody: _, ...row } = listRow(r);
  return { ...row, event: text(r.event), body: text(r.body) };
}

/** The conditions of a filter and a cursor (`?` placeholders), and their parameters. */
function conditions(dialect: SqlDialect, filter: DeliveryFilter, cursor: { receivedAt: number; id: string } | undefined): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (part: string, ...values: unknown[]) => {
    parts.push(part);
    params.push(...values);
  };
  if (filter.integration !== undefined) add('integration = ?', filter.integration);
  if (filter.outcome !== undefined) add('outcome = ?', filter.outcome);
  if (filter.notificationId !== undefined) add('notification_id = ?', filter.notificationId);
  if (filter.since !== undefined) add('received_at >= ?', filter.since);
  if (filter.until !== undefined) add('received_at < ?', filter.until);
  // The first part bounds the index range (received_at is each list index's next column); the second settles the ties.
  if (cursor !== undefined) add('received_at <= ? and (received_at < ? or id < ?)', cursor.receivedAt, cursor.receivedAt, cursor.id);
  if (filter.text !== undefined && filter.text !== '') {
    // A position, not LIKE: no character of the text is a wildcard (`50%_off` finds only itself), and Postgres, which
    // cannot estimate it, walks the list's index newest first and stops at the page's end, where LIKE's estimate (a
    // few rows of 100,000) made it read and sort the whole table: 1 ms against 140 for a word in 7 % of the titles.
    const position = dialect === pgDialect ? 'strpos' : 'instr';
    const needle = filter.text.toLowerCase();
    const columns = ['title', 'event_type', 'delivery_id', 'source_event_id'];
    add(`(${columns.map((column) => `${position}(lower(${column}), ?) > 0`).join(' or ')})`, ...columns.map(() => needle));
  }
  return { where: parts.length === 0 ? '' : `where ${parts.join(' and ')}`, params };
}

/** A receivedAt, bodyUntil or count that is not a whole number would be stored as whatever the engine makes of it. */
function wholeOrNull(value: number | null, what: string): void {
  if (value !== null && !Number.isSafeInteger(value)) throw new RangeError(`${what}: ${value} is not a whole number`);
}

/**
 * Writes log rows on `run` (the ingest's transaction, or `record`'s): a duplicate with a source event id and no
 * `duplicateOf` gets the newest earlier row of that id whose event was stored (notified or threaded), and that row's
 * notification when it has none. Earlier means written before it, whatever its receivedAt (a relay's copy polled after
 * the local route's may say it came first); rows of the same call count as later than the stored ones, in their order.
 */
export async function logDeliveryRows(run: RunStatement, dialect: SqlDialect, rows: readonly DeliveryRecord[]): Promise<void> {
  if (rows.length === 0) return;
  for (const row of rows) {
    wholeOrNull(row.receivedAt, `Delivery ${row.id}'s receivedAt`);
    wholeOrNull(row.bodyUntil, `Delivery ${row.id}'s bodyUntil`);
  }
  const wanted = [...new Set(rows.flatMap((row) => (row.outcome === 'duplicate' && row.duplicateOf === null && row.sourceEventId !== null ? [row.sourceEventId] : [])))];
  /** Per source event id, the newest row of it whose event was stored: first the table's, then each of `rows` as it passes. */
  const latest = new Map<string, { id: string; notificationId: string | null; receivedAt: number }>();
  for (const ids of chunked(wanted)) {
    const found = await run(
      bind(dialect, `select id, source_event_id, notification_id, received_at from webhook_deliveries where source_event_id in (${marks(ids.length)}) and ${STORED}`, ids),
    );
    for (const r of found) {
      const key = String(r.source_event_id);
      const candidate = { id: String(r.id), notificationId: text(r.notification_id), receivedAt: num(r.received_at) };
      const known = latest.get(key);
      if (!known || candidate.receivedAt > known.receivedAt || (candidate.receivedAt === known.receivedAt && candidate.id > known.id)) latest.set(key, candidate);
    }
  }
  const filled = rows.map((row) => {
    let out = row;
    if (row.outcome === 'duplicate' && row.duplicateOf === null && row.sourceEventId !== null) {
      const first = latest.get(row.sourceEventId);
      if (first) out = { ...row, duplicateOf: first.id, notificationId: row.notificationId ?? first.notificationId };
    }
    if ((row.outcome === 'notified' || row.outcome === 'threaded') && row.sourceEventId !== null) {
      latest.set(row.sourceEventId, { id: row.id, notificationId: row.notificationId, receivedAt: row.receivedAt });
    }
    return out;
  });
  // A poll's batch may carry hundreds of bodies of up to 256 KB: an insert holds a few MB of them at most.
  for (const slice of chunked(filled).flatMap((rows) => textRuns(rows))) {
    const tuples = slice.map(() => `(${marks(FIELDS.length)})`).join(', ');
    const params = slice.flatMap((row) => FIELDS.map(([field]) => row[field] ?? null));
    await run(bind(dialect, `insert into webhook_deliveries (${COLUMNS.join(', ')}) values ${tuples}`, params));
  }
}

/** How each dialect keeps a refusal count that collides with the hour's stored one: the sum, or the larger. */
function refusalUpsert(dialect: SqlDialect, mode: 'add' | 'max'): string {
  const count = dialect.quote('count');
  const key = ['hour', 'source', 'integration', 'reason'].map(dialect.quote).join(', ');
  if (dialect === mysqlDialect) {
    return `on duplicate key update ${count} = ${mode === 'add' ? `${count} + values(${count})` : `greatest(${count}, values(${count}))`}`;
  }
  const [stored, given] = [`webhook_refusals.${count}`, `excluded.${count}`];
  // SQLite's two-argument max() is its greatest().
  const larger = dialect === pgDialect ? `greatest(${stored}, ${given})` : `max(${stored}, ${given})`;
  return `on conflict (${key}) do update set ${count} = ${mode === 'add' ? `${stored} + ${given}` : larger}`;
}

const refusalKey = (row: RefusalRow) => `${row.hour}\0${row.source}\0${row.integration}\0${row.reason}`;
/** By code unit, whatever the engine's collation. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The deliveries log and the refusal counts, as plain SQL every dialect runs. */
export function webhookDeliveries(engine: DeliveriesEngine, dialect: SqlDialect): Store['deliveries'] {
  const exec = (sql: string, params: unknown[] = []) => engine.run(bind(dialect, sql, params));
  const write = (sql: string, params: unknown[] = []) => engine.write(bind(dialect, sql, params));
  const listWhere = async (where: string, params: unknown[], order = NEWEST_FIRST) =>
    (await exec(`select ${LISTED} from webhook_deliveries ${where} ${order}`, params)).map(listRow);
  return {
    async record(rows) {
      if (rows.length === 0) return;
      // Together: a replay whose (request, row) was made before refuses the whole request's rows, not some of them.
      await engine.transaction((run) => logDeliveryRows(run, dialect, rows));
    },
    async list(filter, limit, cursor) {
      if (!(Number.isSafeInteger(limit) && limit > 0)) throw new RangeError(`Invalid limit: ${limit}`);
      const { where, params } = conditions(dialect, filter, cursor);
      return listWhere(where, [...params, limit], `${NEWEST_FIRST} limit ?`);
    },
    async get(id) {
      const [row] = await exec(
        `select ${COLUMNS.map((column) => `d.${column}`).join(', ')}, case when d.body is null then 0 else 1 end as has_body, e.decision as decision
         from webhook_deliveries d left join notification_events e on e.id = d.event_id where d.id = ?`,
        [id],
      );
      return row === undefined ? undefined : { ...fullRow(row), decision: decisionOf(row.decision) };
    },
    async many(ids) {
      const unique = [...new Set(ids)];
      const byId = new Map<string, DeliveryRecord>();
      for (const slice of chunked(unique)) {
        for (const r of await exec(`select ${COLUMNS.join(', ')} from webhook_deliveries where id in (${marks(slice.length)})`, slice)) byId.set(String(r.id), fullRow(r));
      }
      return unique.flatMap((id) => byId.get(id) ?? []);
    },
    replaysOf(id) {
      return listWhere('where replay_of = ?', [id]);
    },
    byReplayRequest(requestId) {
      return listWhere('where replay_request = ?', [requestId], 'order by received_at, id');
    },
    async prune(bodiesBy, rowsBefore) {
      const bodies = await write('update webhook_deliveries set body = null, body_until = null where body_until <= ?', [bodiesBy]);
      const rows = await write('delete from webhook_deliveries where received_at < ?', [rowsBefore]);
      return { bodies, rows };
    },
    async countRefusals(rows, mode) {
      // One row per key: a statement may not write one row twice (Postgres refuses it), so the batch is merged first.
      const merged = new Map<string, RefusalRow>();
      for (const row of rows) {
        wholeOrNull(row.hour, 'A refusal hour');
        if (!(Number.isSafeInteger(row.count) && row.count >= 0)) throw new RangeError(`A refusal count: ${row.count} is not a whole number of 0 or more`);
        const known = merged.get(refusalKey(row));
        merged.set(refusalKey(row), known === undefined ? { ...row } : { ...known, count: mode === 'add' ? known.count + row.count : Math.max(known.count, row.count) });
      }
      const columns = ['hour', 'source', 'integration', 'reason', 'count'].map(dialect.quote).join(', ');
      for (const slice of chunked([...merged.values()])) {
        const params = slice.flatMap((row) => [row.hour, row.source, row.integration, row.reason, row.count]);
        await write(`insert into webhook_refusals (${columns}) values ${slice.map(() => '(?, ?, ?, ?, ?)').join(', ')} ${refusalUpsert(dialect, mode)}`, params);
      }
    },
    async refusals(sinceHour) {
      const [hour, source, count] = ['hour', 'source', 'count'].map(dialect.quote);
      const rows = await exec(`select ${hour} as hour, ${source} as source, integration, reason, ${count} as n from webhook_refusals where ${hour} >= ?`, [sinceHour]);
      return rows
        .map((r) => ({ hour: num(r.hour), source: r.source as RefusalRow['source'], integration: String(r.integration), reason: String(r.reason), count: num(r.n) }))
        .sort((a, b) => b.hour - a.hour || compare(a.integration, b.integration) || compare(a.reason, b.reason) || compare(a.source, b.source));
    },
    pruneRefusals(before) {
      return write(`delete from webhook_refusals where ${dialect.quote('hour')} < ?`, [before]);
    },
  };
}
