import { and, asc, eq, inArray, isNotNull, lt, lte, or, sql } from 'drizzle-orm';
import type { PreparedQueryConfig } from 'drizzle-orm/pg-core';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { Sql } from 'postgres';
import { inboxQueries } from './common-queries.ts';
import { insertStatement, pgDialect, type RawStatement } from './dialects.ts';
import { CLAIM_TAIL, ingestEvents, rawIngestWrites, type IngestOps } from './ingest.ts';
import { isoOf, now } from './instants.ts';
import { toNotification } from './notification-rows.ts';
import { notificationReads, outboxOps } from './outbox.ts';
import { notificationDedup, notificationDeliveries, notificationEvents, notifications, relayCursor } from './schema/pg.ts';
import type { OutboxOps, Store } from './store.ts';

/**
 * The inbox on Postgres (`Store.notifications`): the notifications' lock and seqs, the ingest's reads and writes, the
 * outbox, the writes that take seqs or delete rows, and the announcements of a change (LISTEN/NOTIFY); with the raw
 * statements and the transactions the rest of the store runs too.
 */

export type Tx = Parameters<Parameters<PostgresJsDatabase['transaction']>[0]>[0];

const { unread, settledBefore } = inboxQueries({ notifications, notificationDeliveries });

const nextSeq = sql`nextval('notification_seq')`;

/** The channel a commit to the notifications is announced on (`Store.notifications.changes`). */
const CHANGES_CHANNEL = 'dash_notifications';

/**
 * Every transaction that takes values from `notification_seq` (ingest, markRead) or deletes rows (prune) first
 * takes this transaction-level advisory lock (an arbitrary key; advisory locks are per database), and holds it
 * until it commits. A sequence alone hands out values in call order, and concurrent transactions can commit in
 * another order: a reader could see seq 8 before 7 commits, then ask for "after 8" and never see 7. Under the lock
 * the next writer takes its first value only after the previous one committed (a commit becomes visible before
 * its locks are released), so seqs become visible in increasing order and `changedSince(lastSeen)` misses nothing.
 * It also serialises the read-then-write fold across processes: two triggers of one subject cannot both open a row
 * (the partial unique index would reject the second), and a prune cannot delete a row an ingest is joining.
 * This needs READ COMMITTED, whatever the server's default: each statement after the lock must see what the
 * previous holder committed (a REPEATABLE READ snapshot would be taken before the wait for the lock).
 */
export const lockNotifications = (tx: Tx) => tx.execute(sql`select pg_advisory_xact_lock(7305046152410968393)`);
export const notificationTx = { isolationLevel: 'read committed' } as const;

/** A raw statement in the transaction, its answer's rows as the driver gives them. */
export const run = <T>(tx: Pick<Tx, '_'>, { sql: text, params }: RawStatement) =>
  tx._.session.prepareQuery<PreparedQueryConfig & { execute: T[] }>({ sql: text, params }, undefined, undefined, false).execute();

/**
 * `count` new seqs, ascending. Under the notifications lock: nobody else takes values meanwhile, and these become
 * visible with the transaction.
 */
async function takeSeqs(tx: Tx, count: number): Promise<number[]> {
  const rows = await tx.execute<{ seq: string | number }>(sql`select nextval('notification_seq') as seq from generate_series(1, ${count}::int)`);
  return rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
}

/** The outbox on the transaction (which holds the notifications lock). */
function pgOutbox(tx: Tx): OutboxOps {
  return outboxOps((statement) => run<Record<string, unknown>>(tx, statement), pgDialect, (count) => takeSeqs(tx, count));
}

/** The ingest's reads and writes, inside its transaction, a statement per call (the wide inserts as raw text). */
function ingestOps(tx: Tx): IngestOps {
  return {
    outbox: pgOutbox(tx),
    async openRows(subjectKeys) {
      return tx
        .select()
        .from(notifications)
        .where(and(inArray(notifications.subjectKey, subjectKeys), eq(notifications.status, 'open')));
    },
    async claim(claims) {
      // The batch holds each source event id once: Postgres rejects a statement that would change one row twice.
      const claimed = await run<{ source_event_id: string }>(tx, insertStatement(notificationDedup, claims, pgDialect, CLAIM_TAIL));
      return claimed.map((row) => row.source_event_id);
    },
    takeSeqs: (count) => takeSeqs(tx, count),
    async updateRows(rows) {
      // One statement each: a batch changes few rows that were there before it (the open ones it joins or resolves).
      for (const { id, seq, status, severity, eventCount, lastAt, resolvedAt, decision } of rows) {
        const updated = await tx
          .update(notifications)
          .set({ seq, status, severity, eventCount, lastAt, resolvedAt, decision: decision === null ? null : JSON.stringify(decision) })
          .where(eq(notifications.id, id))
          .returning({ id: notifications.id });
        if (updated.length === 0) throw new Error(`Notification ${id} vanished during the ingest`);
      }
    },
    ...rawIngestWrites((statement) => run<Record<string, unknown>>(tx, statement), pgDialect, { notifications, notificationEvents }),
  };
}

export function pgNotifications(db: PostgresJsDatabase & { $client: Sql }): Store['notifications'] {
  return {
    ...notificationReads((statement) => run<Record<string, unknown>>(db, statement), pgDialect),
    changes: {
      async announce(from) {
        await db.$client.notify(CHANGES_CHANNEL, from);
      },
      async listen(onChange) {
        const listening = await db.$client.listen(CHANGES_CHANNEL, onChange);
        return () => listening.unlisten();
      },
    },
    ingest: (events, options) =>
      db.transaction(async (tx) => {
        await lockNotifications(tx);
        const result = await ingestEvents(events, options, ingestOps(tx));
        const { cursor } = options;
        if (cursor) {
          await tx
            .insert(relayCursor)
            .values({ relayUrl: cursor.relayUrl, since: cursor.since, updatedAt: now() })
            .onConflictDoUpdate({ target: relayCursor.relayUrl, set: { since: cursor.since, updatedAt: now() } });
        }
        return result;
      }, notificationTx),
    outbox: (work) =>
      db.transaction(async (tx) => {
        await lockNotifications(tx);
        return work(pgOutbox(tx));
      }, notificationTx),
    async cursor(relayUrl) {
      return (await db.select({ since: relayCursor.since }).from(relayCursor).where(eq(relayCursor.relayUrl, relayUrl)))[0]?.since;
    },
    async markRead(target, at) {
      const readAt = isoOf(at);
      if ('ids' in target && target.ids.length === 0) return [];
      return db.transaction(async (tx) => {
        await lockNotifications(tx);
        const targets = await tx
          .select({ id: notifications.id })
          .from(notifications)
          .where(and(unread, 'ids' in target ? inArray(notifications.id, target.ids) : undefined))
          .orderBy(asc(notifications.seq));
        // New seqs in the rows' old order, so a replay sees them in the order they had.
        const read = [];
        for (const { id } of targets) {
          const [row] = await tx.update(notifications).set({ readAt, seq: nextSeq }).where(eq(notifications.id, id)).returning();
          if (row) read.push(toNotification(row));
        }
        return read;
      }, notificationTx);
    },
    async prune(readBefore, unreadBefore) {
      const [readCutoff, unreadCutoff] = [isoOf(readBefore), isoOf(unreadBefore)];
      const doomed = or(
        and(isNotNull(notifications.readAt), lt(notifications.readAt, readCutoff)),
        and(unread, lt(notifications.receivedAt, unreadCutoff)),
      );
      return db.transaction(async (tx) => {
        await lockNotifications(tx);
        const ids = tx.select({ id: notifications.id }).from(notifications).where(doomed);
        await tx.delete(notificationEvents).where(inArray(notificationEvents.notificationId, ids));
        await tx.delete(notificationDeliveries).where(or(inArray(notificationDeliveries.notificationId, ids), settledBefore(Date.parse(readCutoff))));
        const gone = await tx.delete(notifications).where(doomed).returning({ id: notifications.id });
        await tx.delete(notificationDedup).where(lte(notificationDedup.expiresAt, readCutoff < unreadCutoff ? readCutoff : unreadCutoff));
        return gone.length;
      }, notificationTx);
    },
    async removeForProjects(slugs) {
      if (slugs.length === 0) return 0;
      const doomed = inArray(notifications.projectSlug, [...slugs]);
      return db.transaction(async (tx) => {
        await lockNotifications(tx);
        const ids = tx.select({ id: notifications.id }).from(notifications).where(doomed);
        await tx.delete(notificationEvents).where(inArray(notificationEvents.notificationId, ids));
        await tx.delete(notificationDeliveries).where(inArray(notificationDeliveries.notificationId, ids));
        // Their claims too: the same events arriving again (the demo added back) are new rows, not duplicates.
        await tx.delete(notificationDedup).where(inArray(notificationDedup.notificationId, ids));
        return (await tx.delete(notifications).where(doomed).returning({ id: notifications.id })).length;
      }, notificationTx);
    },
  
  };
}
