import { and, asc, eq, inArray, isNotNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Client } from '@libsql/client';
import { inboxQueries } from './common-queries.ts';
import { insertStatement, sqliteDialect } from './dialects.ts';
import { CLAIM_TAIL, ingestEvents, rawIngestWrites, seqsEndingAt, type IngestOps } from './ingest.ts';
import { isoOf, now } from './instants.ts';
import { toNotification } from './notification-rows.ts';
import { notificationReads, outboxOps } from './outbox.ts';
import { notificationDedup, notificationDeliveries, notificationEvents, notifications, notificationSeq, relayCursor } from './schema/sqlite.ts';
import { clientRun, transactionRun, type Queryable, type SqliteDb, type writeTransactions } from './sqlite-connections.ts';
import type { NotificationRow, OutboxOps, Store } from './store.ts';

/**
 * The inbox on SQLite (`Store.notifications`): its seqs, the ingest's reads and writes, the outbox, and the writes that
 * take seqs or delete rows, each in the store's write transaction.
 */

const { unread, settledBefore } = inboxQueries({ notifications, notificationDeliveries });

/** `count` new seqs, ascending (`notification_seq` is SQLite's stand-in for a sequence). */
async function takeSeqs(tx: Queryable, count: number): Promise<number[]> {
  const [row] = await tx
    .insert(notificationSeq)
    .values({ id: 1, last: count })
    .onConflictDoUpdate({ target: notificationSeq.id, set: { last: sql`${notificationSeq.last} + ${count}` } })
    .returning({ last: notificationSeq.last });
  if (!row) throw new Error('notification_seq returned no row');
  return seqsEndingAt(row.last, count);
}

/** The ingest's reads and writes, a statement per call, on the transaction's connection (see `transactionRun`). */
function ingestOps(tx: Queryable, client: Client | undefined): IngestOps {
  const run = transactionRun(tx, client);
  return {
    outbox: sqliteOutbox(tx, client),
    async openRows(subjectKeys) {
      return tx
        .select()
        .from(notifications)
        .where(and(inArray(notifications.subjectKey, subjectKeys), eq(notifications.status, 'open')));
    },
    async claim(claims) {
      const claimed = await run(insertStatement(notificationDedup, claims, sqliteDialect, CLAIM_TAIL));
      return claimed.map((row) => row.source_event_id as string);
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
    ...rawIngestWrites(run, sqliteDialect, { notifications, notificationEvents }),
  };
}

/** The outbox on a transaction's connection (see `transactionRun`). */
export function sqliteOutbox(tx: Queryable, client: Client | undefined): OutboxOps {
  return outboxOps(transactionRun(tx, client), sqliteDialect, (count) => takeSeqs(tx, count));
}

export function sqliteNotifications(db: SqliteDb, { transact, clientOf }: ReturnType<typeof writeTransactions>): Store['notifications'] {
  return {
    // The reads run on the client's connection, each in the queue like any statement of this process.
    ...notificationReads(clientRun(db.$client), sqliteDialect),
    ingest: (events, options) =>
      transact(async (tx) => {
        const result = await ingestEvents(events, options, ingestOps(tx, clientOf(tx)));
        const { cursor } = options;
        if (cursor) {
          await tx
            .insert(relayCursor)
            .values({ relayUrl: cursor.relayUrl, since: cursor.since, updatedAt: now() })
            .onConflictDoUpdate({ target: relayCursor.relayUrl, set: { since: cursor.since, updatedAt: now() } });
        }
        return result;
      }),
    outbox: (work) => transact((tx) => work(sqliteOutbox(tx, clientOf(tx)))),
    async cursor(relayUrl) {
      return (await db.select({ since: relayCursor.since }).from(relayCursor).where(eq(relayCursor.relayUrl, relayUrl)))[0]?.since;
    },
    async markRead(target, at) {
      const readAt = isoOf(at);
      if ('ids' in target && target.ids.length === 0) return [];
      return transact(async (tx) => {
        const targets = await tx
          .select({ id: notifications.id })
          .from(notifications)
          .where(and(unread, 'ids' in target ? inArray(notifications.id, target.ids) : undefined))
          .orderBy(asc(notifications.seq));
        if (targets.length === 0) return [];
        // New seqs in the rows' old order, so a replay sees them in the order they had.
        const seqs = await takeSeqs(tx, targets.length);
        const read: NotificationRow[] = [];
        for (const [index, { id }] of targets.entries()) {
          const [row] = await tx.update(notifications).set({ readAt, seq: seqs[index] }).where(eq(notifications.id, id)).returning();
          if (row) read.push(toNotification(row));
        }
        return read;
      });
    },
    async prune(readBefore, unreadBefore) {
      const [readCutoff, unreadCutoff] = [isoOf(readBefore), isoOf(unreadBefore)];
      const doomed = or(
        and(isNotNull(notifications.readAt), lt(notifications.readAt, readCutoff)),
        and(unread, lt(notifications.receivedAt, unreadCutoff)),
      );
      return transact(async (tx) => {
        const ids = tx.select({ id: notifications.id }).from(notifications).where(doomed);
        await tx.delete(notificationEvents).where(inArray(notificationEvents.notificationId, ids));
        await tx.delete(notificationDeliveries).where(or(inArray(notificationDeliveries.notificationId, ids), settledBefore(Date.parse(readCutoff))));
        const gone = await tx.delete(notifications).where(doomed).returning({ id: notifications.id });
        await tx.delete(notificationDedup).where(lte(notificationDedup.expiresAt, readCutoff < unreadCutoff ? readCutoff : unreadCutoff));
        return gone.length;
      });
    },
    async removeForProjects(slugs) {
      if (slugs.length === 0) return 0;
      const doomed = inArray(notifications.projectSlug, [...slugs]);
      return transact(async (tx) => {
        const ids = tx.select({ id: notifications.id }).from(notifications).where(doomed);
        await tx.delete(notificationEvents).where(inArray(notificationEvents.notificationId, ids));
        await tx.delete(notificationDeliveries).where(inArray(notificationDeliveries.notificationId, ids));
        // Their claims too: the same events arriving again (the demo added back) are new rows, not duplicates.
        await tx.delete(notificationDedup).where(inArray(notificationDedup.notificationId, ids));
        return (await tx.delete(notifications).where(doomed).returning({ id: notifications.id })).length;
      });
    },
  
  };
}
