import { and, asc, eq, gt, inArray, isNotNull, lt, lte, or, sql } from 'drizzle-orm';
import { inboxQueries } from './common-queries.ts';
import { insertStatement, mysqlDialect } from './dialects.ts';
import { ingestEvents, rawIngestWrites, seqsEndingAt, type IngestOps } from './ingest.ts';
import { isoOf, now } from './instants.ts';
import { affected, runOn, type Db, type Queryable } from './mysql-driver.ts';
import { toNotification } from './notification-rows.ts';
import { notificationReads, outboxOps } from './outbox.ts';
import { notificationDedup, notificationDeliveries, notificationEvents, notifications, notificationSeq, relayCursor } from './schema/mysql.ts';
import type { OutboxOps, Store } from './store.ts';

/**
 * The inbox on MySQL (`Store.notifications`): the notifications' lock and seqs, the ingest's reads and writes, the
 * outbox, and the writes that take seqs or delete rows.
 */

const { unread, settledBefore } = inboxQueries({ notifications, notificationDeliveries });

/**
 * The notifications' write lock, the role Postgres's advisory lock plays in pg-inbox.ts: every transaction that takes seqs
 * (ingest, markRead, the outbox) or deletes rows (prune) first locks the one row of `notification_seq` (a migration
 * creates it) and holds it until it commits, so seqs become visible in increasing order and the fold's reads and
 * writes are not interleaved with another process's. The transaction runs at READ COMMITTED, so every statement after
 * the lock sees what the previous holder committed.
 */
export async function lockNotifications(tx: Queryable) {
  await tx.execute(sql`select last from ${notificationSeq} where id = 1 for update`);
}
export const notificationTx = { isolationLevel: 'read committed' } as const;

/** `count` new seqs, ascending, under the lock. */
async function takeSeqs(tx: Queryable, count: number): Promise<number[]> {
  await tx.execute(sql`update ${notificationSeq} set last = last + ${count} where id = 1`);
  const [rows] = (await tx.execute(sql`select last from ${notificationSeq} where id = 1`)) as unknown as [{ last: number | string }[]];
  return seqsEndingAt(Number(rows[0]?.last), count);
}

function mysqlOutbox(tx: Queryable): OutboxOps {
  return outboxOps(runOn(tx), mysqlDialect, (count) => takeSeqs(tx, count));
}

function ingestOps(tx: Queryable): IngestOps {
  const run = runOn(tx);
  return {
    outbox: mysqlOutbox(tx),
    async openRows(subjectKeys) {
      return tx
        .select()
        .from(notifications)
        .where(and(inArray(notifications.subjectKey, subjectKeys), eq(notifications.status, 'open')));
    },
    async claim(claims) {
      // Under the notifications lock nothing else claims meanwhile: read the live claims, then insert or take over
      // the others in one statement (MySQL's upsert cannot answer which rows it wrote).
      const live = await tx
        .select({ id: notificationDedup.sourceEventId })
        .from(notificationDedup)
        .where(
          and(
            inArray(
              notificationDedup.sourceEventId,
              claims.map((claim) => claim.sourceEventId),
            ),
            gt(notificationDedup.expiresAt, claims[0]?.firstSeenAt ?? ''),
          ),
        );
      const taken = new Set(live.map((row) => row.id));
      const free = claims.filter((claim) => !taken.has(claim.sourceEventId));
      if (free.length > 0) {
        await run(insertStatement(notificationDedup, free, mysqlDialect, mysqlDialect.upsert('source_event_id', ['notification_id', 'first_seen_at', 'expires_at', 'hits'])));
      }
      return free.map((claim) => claim.sourceEventId);
    },
    takeSeqs: (count) => takeSeqs(tx, count),
    async updateRows(rows) {
      for (const { id, seq, status, severity, eventCount, lastAt, resolvedAt, decision } of rows) {
        const updated = await tx
          .update(notifications)
          .set({ seq, status, severity, eventCount, lastAt, resolvedAt, decision: decision === null ? null : JSON.stringify(decision) })
          .where(eq(notifications.id, id));
        // A new seq every time: an existing row always changes.
        if (affected(updated) === 0) throw new Error(`Notification ${id} vanished during the ingest`);
      }
    },
    ...rawIngestWrites(run, mysqlDialect, { notifications, notificationEvents }),
  };
}

export function mysqlNotifications(db: Db): Store['notifications'] {
  return {
    ...notificationReads(runOn(db), mysqlDialect),
    ingest: (events, options) =>
      db.transaction(async (tx) => {
        await lockNotifications(tx);
        const result = await ingestEvents(events, options, ingestOps(tx));
        const { cursor } = options;
        if (cursor) {
          await tx
            .insert(relayCursor)
            .values({ relayUrl: cursor.relayUrl, since: cursor.since, updatedAt: now() })
            .onDuplicateKeyUpdate({ set: { since: sql`values(${relayCursor.since})`, updatedAt: sql`values(${relayCursor.updatedAt})` } });
        }
        return result;
      }, notificationTx),
    outbox: (work) =>
      db.transaction(async (tx) => {
        await lockNotifications(tx);
        return work(mysqlOutbox(tx));
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
        if (targets.length === 0) return [];
        // New seqs in the rows' old order, so a replay sees them in the order they had.
        const seqs = await takeSeqs(tx, targets.length);
        for (const [index, { id }] of targets.entries()) {
          await tx.update(notifications).set({ readAt, seq: seqs[index] }).where(eq(notifications.id, id));
        }
        const rows = await tx
          .select()
          .from(notifications)
          .where(
            inArray(
              notifications.id,
              targets.map((row) => row.id),
            ),
          )
          .orderBy(asc(notifications.seq));
        return rows.map(toNotification);
      }, notificationTx);
    },
    async prune(readBefore, unreadBefore) {
      const [readCutoff, unreadCutoff] = [isoOf(readBefore), isoOf(unreadBefore)];
      const doomed = or(and(isNotNull(notifications.readAt), lt(notifications.readAt, readCutoff)), and(unread, lt(notifications.receivedAt, unreadCutoff)));
      return db.transaction(async (tx) => {
        await lockNotifications(tx);
        const ids = (await tx.select({ id: notifications.id }).from(notifications).where(doomed)).map((row) => row.id);
        if (ids.length > 0) {
          await tx.delete(notificationEvents).where(inArray(notificationEvents.notificationId, ids));
          await tx.delete(notificationDeliveries).where(inArray(notificationDeliveries.notificationId, ids));
          await tx.delete(notifications).where(inArray(notifications.id, ids));
        }
        await tx.delete(notificationDeliveries).where(settledBefore(Date.parse(readCutoff)));
        await tx.delete(notificationDedup).where(lte(notificationDedup.expiresAt, readCutoff < unreadCutoff ? readCutoff : unreadCutoff));
        return ids.length;
      }, notificationTx);
    },
    async removeForProjects(slugs) {
      if (slugs.length === 0) return 0;
      return db.transaction(async (tx) => {
        await lockNotifications(tx);
        const ids = (await tx.select({ id: notifications.id }).from(notifications).where(inArray(notifications.projectSlug, [...slugs]))).map((row) => row.id);
        if (ids.length === 0) return 0;
        await tx.delete(notificationEvents).where(inArray(notificationEvents.notificationId, ids));
        await tx.delete(notificationDeliveries).where(inArray(notificationDeliveries.notificationId, ids));
        // Their claims too: the same events arriving again (the demo added back) are new rows, not duplicates.
        await tx.delete(notificationDedup).where(inArray(notificationDedup.notificationId, ids));
        await tx.delete(notifications).where(inArray(notifications.id, ids));
        return ids.length;
      }, notificationTx);
    },
  
  };
}
