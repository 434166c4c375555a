import type { Table } from 'drizzle-orm';
import { logDeliveryRows } from './deliveries.ts';
import { chunked, insertStatement, type SqlDialect } from './dialects.ts';
import { batchEvent, fold, type BatchEvent } from './fold.ts';
import { isoOf } from './instants.ts';
import { notificationValues, toNotification, type DedupClaim, type NotificationEventValues, type NotificationRecord } from './notification-rows.ts';
import { bind, type RunStatement } from './sql-rows.ts';
import type { DeliveryRecord, FoldedEvent, FoldEffect, IncomingEvent, IngestedEvent, IngestResult, NotificationRow, OutboxOps, PlanOutcome, StoredDecision } from './store.ts';

/** `Store.notifications.ingest`'s batch, the same for every dialect, and what it needs of a dialect (`IngestOps`). */

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
 * The ingest's writes that are the same raw statements on every dialect (on the transaction's connection): the claims'
 * hits and new rows, the new rows, the events, the deliveries log's rows. `tables` are the dialect's `notifications`
 * and `notification_events`.
 */
export function rawIngestWrites(
  run: RunStatement,
  dialect: SqlDialect,
  tables: { notifications: Table; notificationEvents: Table },
): Pick<IngestOps, 'addHits' | 'relink' | 'insertRows' | 'insertEvents' | 'logDeliveries'> {
  const among = (count: number) => `source_event_id in (${Array.from({ length: count }, () => '?').join(', ')})`;
  return {
    async addHits(sourceEventIds, count) {
      await run(bind(dialect, `update notification_dedup set hits = hits + ? where ${among(sourceEventIds.length)}`, [count, ...sourceEventIds]));
    },
    async relink(links) {
      // `case … when … then … end`: each claim's new row.
      const cases = links.map(() => 'when ? then ?').join(' ');
      await run(
        bind(dialect, `update notification_dedup set notification_id = case source_event_id ${cases} end where ${among(links.length)}`, [
          ...links.flatMap((link) => [link.sourceEventId, link.notificationId]),
          ...links.map((link) => link.sourceEventId),
        ]),
      );
    },
    async insertRows(rows) {
      await run(insertStatement(tables.notifications, rows.map(notificationValues), dialect));
    },
    async insertEvents(events) {
      await run(insertStatement(tables.notificationEvents, events, dialect));
    },
    logDeliveries: (rows) => logDeliveryRows(run, dialect, rows),
  };
}

/** The `count` seqs that end at `last`, ascending. */
export const seqsEndingAt = (last: number, count: number): number[] => Array.from({ length: count }, (_, index) => last - count + 1 + index);

/**
 * The tail of a multi-row claim (`insertStatement` of `notification_dedup`), the same on both dialects: insert each
 * claim, or take over one that has expired by the new claim's start; a live one is left as it is and answers no row.
 */
export const CLAIM_TAIL =
  'on conflict ("source_event_id") do update set "notification_id" = excluded."notification_id", ' +
  '"first_seen_at" = excluded."first_seen_at", "expires_at" = excluded."expires_at", "hits" = excluded."hits" ' +
  'where "notification_dedup"."expires_at" <= excluded."first_seen_at" returning "source_event_id"';

const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

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
