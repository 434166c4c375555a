import { and, asc, desc, eq, getTableColumns, gt, inArray, isNotNull, isNull, lt, lte, ne, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { MySqlColumn, MySqlTable } from 'drizzle-orm/mysql-core';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2/promise';
import {
  apiCache,
  apiToken,
  authOwner,
  authSession,
  credentials,
  leases,
  notificationDedup,
  notificationDeliveries,
  notificationEvents,
  notifications,
  notificationSeq,
  projects,
  rateCalls,
  rateLimits,
  relayCursor,
  userSettings,
} from './schema/mysql.ts';
import * as mysqlSchema from './schema/mysql.ts';
import {
  createdValues,
  ingestEvents,
  insertStatement,
  isoOf,
  keyHoldsPart,
  metaKey,
  mysqlDialect,
  now,
  notificationValues,
  patchProject,
  rawSql,
  relinkedCase,
  seqsEndingAt,
  reorderedPosition,
  settingRows,
  settingsFrom,
  toApiToken,
  toNotification,
  toOwner,
  toProject,
  toSession,
  unknownSlugs,
  type IngestOps,
  type SettingRow,
} from './shared.ts';
import { emailSends } from './emails.ts';
import { channelConnections } from './channels.ts';
import { pushSubscriptions } from './push.ts';
import { metricHistory } from './history.ts';
import { metricAlertRules } from './metric-alerts.ts';
import { logDeliveryRows, webhookDeliveries } from './deliveries.ts';
import { rateWindows } from './rates.ts';
import { notificationReads, outboxOps, type RunStatement } from './outbox.ts';
import { countRows, dumpRows, dumpTablesOf, restoreRows, type TransferOps } from './transfer.ts';
import { ProjectExistsError, UnknownProjectsError, type OutboxOps, type Store } from './store.ts';

type Db = MySql2Database & { $client: Pool };
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type Queryable = Pick<Tx, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

const tabOrder = [asc(projects.position), asc(projects.createdAt), asc(projects.slug)];
const sessionOrder = [desc(authSession.lastSeenAt), desc(authSession.createdAt), asc(authSession.id)];
const tokenOrder = [desc(apiToken.createdAt), asc(apiToken.id)];
const sessionsBut = (exceptId: string | undefined) => (exceptId === undefined ? undefined : ne(authSession.id, exceptId));
const unread = isNull(notifications.readAt);
const settledBefore = (before: number) =>
  and(notInArray(notificationDeliveries.status, ['held', 'deferred']), lt(notificationDeliveries.createdAt, before));

/** How many rows a write changed (MySQL has no RETURNING: this is what `returning().length` is on the others). */
const affected = (result: unknown) => (result as [ResultSetHeader])[0].affectedRows;

/** A MySQL error number anywhere in the chain of causes drizzle wraps it in. */
function hasErrno(error: unknown, errno: number): boolean {
  for (let e = error; typeof e === 'object' && e !== null; e = 'cause' in e ? e.cause : undefined) {
    if ('errno' in e && e.errno === errno) return true;
  }
  return false;
}

/** MySQL's duplicate-key error. */
const isDuplicateKey = (error: unknown) => hasErrno(error, 1062);

/**
 * Runs a statement of its own (no transaction around it) again when InnoDB chose it as a deadlock's victim
 * (ER_LOCK_DEADLOCK): it was rolled back whole, and running it again is MySQL's own advice. Concurrent inserts that
 * read the table they write meet in one: each holds a shared lock on the rows it read and waits to insert among them.
 */
async function retriedOnDeadlock<T>(statement: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if (attempt === attempts || !hasErrno(error, 1213)) throw error;
      // A moment's jitter, so the statements that met do not meet again the same way.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

const runOn =
  (q: Pick<Queryable, 'execute'>): RunStatement =>
  async (statement) => {
    const [rows] = (await q.execute(rawSql(statement))) as unknown as [Record<string, unknown>[] | ResultSetHeader];
    return Array.isArray(rows) ? rows : [];
  };

/**
 * Raw statements straight on a mysql2 connection (or the pool), for the metric history's wide ones: drizzle's builder
 * spends some 80 ms turning a 250-row insert's 2,000 parameters into SQL, the server 10 ms running it.
 */
const driverRun =
  (q: Pick<PoolConnection, 'query'>): RunStatement =>
  async ({ sql: text, params }) => {
    const [rows] = await q.query(text, params);
    return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
  };

/** Runs `work` in a REPEATABLE READ transaction on a connection of the pool, its statements as `driverRun` runs them. */
async function driverTransaction<T>(pool: Pool, work: (run: RunStatement) => Promise<T>): Promise<T> {
  const connection = await pool.getConnection();
  try {
    await connection.query('set transaction isolation level repeatable read');
    await connection.beginTransaction();
    try {
      const result = await work(driverRun(connection));
      await connection.commit();
      return result;
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw error;
    }
  } finally {
    connection.release();
  }
}

/**
 * The notifications' write lock, the role Postgres's advisory lock plays in pg.ts: every transaction that takes seqs
 * (ingest, markRead, the outbox) or deletes rows (prune) first locks the one row of `notification_seq` (a migration
 * creates it) and holds it until it commits, so seqs become visible in increasing order and the fold's reads and
 * writes are not interleaved with another process's. The transaction runs at READ COMMITTED, so every statement after
 * the lock sees what the previous holder committed.
 */
async function lockNotifications(tx: Queryable) {
  await tx.execute(sql`select last from ${notificationSeq} where id = 1 for update`);
}
const notificationTx = { isolationLevel: 'read committed' } as const;

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
    async addHits(sourceEventIds, count) {
      await tx
        .update(notificationDedup)
        .set({ hits: sql`${notificationDedup.hits} + ${count}` })
        .where(inArray(notificationDedup.sourceEventId, sourceEventIds));
    },
    async relink(links) {
      await tx
        .update(notificationDedup)
        .set({ notificationId: relinkedCase(notificationDedup.sourceEventId, links) })
        .where(inArray(notificationDedup.sourceEventId, links.map((link) => link.sourceEventId)));
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
    async insertRows(rows) {
      await run(insertStatement(notifications, rows.map(notificationValues), mysqlDialect));
    },
    async insertEvents(events) {
      await run(insertStatement(notificationEvents, events, mysqlDialect));
    },
    logDeliveries: (rows) => logDeliveryRows(run, mysqlDialect, rows),
  };
}

const dumped = dumpTablesOf(mysqlSchema);

/**
 * A table's columns for a select, its doubles as text: MariaDB's protocol answers some doubles rounded in their last
 * digit (93.37333333333333 as 93.37333333333332), `cast(… as char)` writes every one exactly (the dump makes it a number).
 */
function exactColumns(table: MySqlTable): Record<string, MySqlColumn | SQL> {
  const columns = getTableColumns(table) as Record<string, MySqlColumn>;
  return Object.fromEntries(Object.entries(columns).map(([key, column]) => [key, column.columnType === 'MySqlDouble' ? sql`cast(${column} as char)` : column]));
}

function mysqlTransfer(q: Queryable): TransferOps {
  return {
    select: (table) => q.select(exactColumns(table as MySqlTable)).from(table as MySqlTable),
    row: async (query) => ((await q.execute(query)) as unknown as [Record<string, unknown>[]])[0][0],
    deleteAll: async (table) => void (await q.delete(table as MySqlTable)),
    insert: async (table, rows) => void (await q.insert(table as MySqlTable).values(rows)),
    advanceSeq: async (seq) =>
      void (await q.execute(sql`insert into ${notificationSeq} (id, last) values (1, ${seq}) on duplicate key update last = greatest(last, values(last))`)),
  };
}

/** The store on MySQL (PlanetScale; MariaDB in the tests), parallel to pg.ts. */
export function mysqlStore(db: Db): Store {
  let closing: Promise<void> | undefined;
  const upsertSettings = (rows: SettingRow[], q: Pick<Db, 'insert'> = db) => {
    const updatedAt = now();
    return q
      .insert(userSettings)
      .values(rows.map((row) => ({ ...row, updatedAt })))
      .onDuplicateKeyUpdate({ set: { value: sql`values(${userSettings.value})`, updatedAt: sql`values(${userSettings.updatedAt})` } });
  };
  const projectRow = async (slug: string, q: Pick<Db, 'select'> = db) => (await q.select().from(projects).where(eq(projects.slug, slug)))[0];
  const metaValue = async (name: string) => (await db.select().from(userSettings).where(eq(userSettings.key, metaKey(name))))[0]?.value;

  return {
    dialect: 'mysql',

    settings: {
      async get() {
        const [rows, order] = await Promise.all([db.select().from(userSettings), db.select({ slug: projects.slug }).from(projects).orderBy(...tabOrder)]);
        return settingsFrom(rows, order.map((p) => p.slug));
      },
      async update(update) {
        const order = update.projectOrder ?? [];
        if (order.length > 0) {
          const unknown = unknownSlugs(order, (await db.select({ slug: projects.slug }).from(projects)).map((p) => p.slug));
          if (unknown.length > 0) throw new UnknownProjectsError(unknown);
        }
        const rows = settingRows(update);
        await db.transaction(async (tx) => {
          if (rows.length > 0) await upsertSettings(rows, tx);
          if (order.length > 0) await tx.update(projects).set({ position: reorderedPosition(projects.slug, projects.position, order) });
        });
      },
    },

    projects: {
      async list() {
        return (await db.select().from(projects).orderBy(...tabOrder)).map(toProject);
      },
      async get(slug) {
        const row = await projectRow(slug);
        return row && toProject(row);
      },
      async create(input) {
        const at = now();
        try {
          // MySQL reads the table an insert writes only through a derived table.
          await retriedOnDeadlock(() =>
            db.insert(projects).values({
              slug: input.slug,
              ...createdValues(input),
              position: sql`(select coalesce(max(p.position), -1) + 1 from (select ${projects.position} from ${projects}) as p)`,
              version: 1,
              createdAt: at,
              updatedAt: at,
            }),
          );
        } catch (error) {
          if (isDuplicateKey(error)) throw new ProjectExistsError(input.slug);
          throw error;
        }
        const row = await projectRow(input.slug);
        if (!row) throw new Error(`Project "${input.slug}" vanished after its insert`);
        return toProject(row);
      },
      update: (slug, patch) =>
        patchProject(
          slug,
          patch,
          () => projectRow(slug),
          (version, values) =>
            db.transaction(async (tx) => {
              const updated = await tx
                .update(projects)
                .set({ ...values, version: sql`${projects.version} + 1`, updatedAt: now() })
                .where(and(eq(projects.slug, slug), eq(projects.version, version)));
              return affected(updated) > 0 ? projectRow(slug, tx) : undefined;
            }),
        ),
      async remove(slug) {
        return affected(await db.delete(projects).where(eq(projects.slug, slug))) > 0;
      },
    },

    credentials: {
      async keys() {
        return (await db.select({ key: credentials.key }).from(credentials).orderBy(asc(credentials.key))).map((c) => c.key);
      },
      async getSealed(key) {
        return (await db.select().from(credentials).where(eq(credentials.key, key)))[0]?.sealed;
      },
      async putSealed(key, sealed) {
        await db
          .insert(credentials)
          .values({ key, sealed, updatedAt: now() })
          .onDuplicateKeyUpdate({ set: { sealed: sql`values(${credentials.sealed})`, updatedAt: sql`values(${credentials.updatedAt})` } });
      },
      async remove(key) {
        return affected(await db.delete(credentials).where(eq(credentials.key, key))) > 0;
      },
    },

    cache: {
      async get(key) {
        const row = (await db.select().from(apiCache).where(eq(apiCache.key, key)))[0];
        return row && { key: row.key, route: row.route, value: row.value, fetchedAt: isoOf(row.fetchedAt), expiresAt: isoOf(row.expiresAt) };
      },
      async put(entry) {
        await db
          .insert(apiCache)
          .values({ ...entry, fetchedAt: isoOf(entry.fetchedAt), expiresAt: isoOf(entry.expiresAt) })
          .onDuplicateKeyUpdate({
            set: {
              route: sql`values(${apiCache.route})`,
              value: sql`values(${apiCache.value})`,
              fetchedAt: sql`values(${apiCache.fetchedAt})`,
              expiresAt: sql`values(${apiCache.expiresAt})`,
            },
          });
      },
      async clear(route) {
        return affected(await db.delete(apiCache).where(route === undefined ? undefined : eq(apiCache.route, route)));
      },
      async expire(route, part, at) {
        const expiresAt = isoOf(at);
        return affected(
          await db
            .update(apiCache)
            .set({ expiresAt })
            .where(and(eq(apiCache.route, route), gt(apiCache.expiresAt, expiresAt), keyHoldsPart(apiCache.key, part))),
        );
      },
    },

    auth: {
      async owner() {
        const row = (await db.select().from(authOwner).where(eq(authOwner.id, 1)))[0];
        return row && toOwner(row);
      },
      async createOwner(passwordHash) {
        const at = now();
        // One statement: of concurrent first-run setups, exactly one inserts the row.
        const created = await db.insert(authOwner).ignore().values({ id: 1, passwordHash, createdAt: at, updatedAt: at });
        return affected(created) === 1;
      },
      changePassword(passwordHash, keepSessionId, removeDevices) {
        return db.transaction(async (tx) => {
          // Locked first, as removeOwner's delete does, so the two cannot deadlock.
          const [owner] = await tx.select({ id: authOwner.id }).from(authOwner).for('update');
          if (!owner) return false;
          await tx.update(authOwner).set({ passwordHash, updatedAt: now() });
          await tx.delete(authSession).where(sessionsBut(keepSessionId));
          if (removeDevices) await tx.delete(mysqlSchema.pushSubscriptions);
          return true;
        });
      },
      async removeOwner() {
        await db.transaction(async (tx) => {
          await tx.delete(authOwner);
          await tx.delete(authSession);
          await tx.delete(mysqlSchema.pushSubscriptions);
        });
      },

      sessions: {
        async create(session) {
          await db.insert(authSession).values(toSession(session));
        },
        async get(id) {
          const row = (await db.select().from(authSession).where(eq(authSession.id, id)))[0];
          return row && toSession(row);
        },
        async list() {
          return (await db.select().from(authSession).orderBy(...sessionOrder)).map(toSession);
        },
        async touch(id, lastSeenAt) {
          await db.update(authSession).set({ lastSeenAt: isoOf(lastSeenAt) }).where(eq(authSession.id, id));
        },
        async remove(id) {
          return affected(await db.delete(authSession).where(eq(authSession.id, id))) > 0;
        },
        removeAll(exceptId, removeDevices) {
          return db.transaction(async (tx) => {
            const ended = affected(await tx.delete(authSession).where(sessionsBut(exceptId)));
            if (removeDevices) await tx.delete(mysqlSchema.pushSubscriptions);
            return ended;
          });
        },
        async removeExpired(seenBefore, createdBefore) {
          const expired = or(lt(authSession.lastSeenAt, isoOf(seenBefore)), lt(authSession.createdAt, isoOf(createdBefore)));
          return affected(await db.delete(authSession).where(expired));
        },
      },

      tokens: {
        async create(token) {
          await db.insert(apiToken).values(toApiToken(token));
        },
        async get(id) {
          const row = (await db.select().from(apiToken).where(eq(apiToken.id, id)))[0];
          return row && toApiToken(row);
        },
        async list() {
          return (await db.select().from(apiToken).orderBy(...tokenOrder)).map(toApiToken);
        },
        async touch(id, lastUsedAt) {
          await db.update(apiToken).set({ lastUsedAt: isoOf(lastUsedAt) }).where(eq(apiToken.id, id));
        },
        async remove(id) {
          return affected(await db.delete(apiToken).where(eq(apiToken.id, id))) > 0;
        },
      },
    },

    notifications: {
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
    },

    emails: emailSends(runOn(db), mysqlDialect),
    push: pushSubscriptions(runOn(db), mysqlDialect),
    channels: channelConnections(runOn(db), mysqlDialect),
    history: metricHistory(
      {
        run: driverRun(db.$client),
        // REPEATABLE READ, whatever the server's default: a put's locking read takes the rows and the gaps between
        // them, so a put of the same days waits for it, or (both holding a gap) one is a deadlock's victim and runs
        // again, reading what the other committed.
        transaction: (work) => retriedOnDeadlock(() => driverTransaction(db.$client, work)),
        lockingReads: true,
        valuesAsText: true,
      },
      mysqlDialect,
    ),
    metricAlerts: metricAlertRules(
      {
        run: driverRun(db.$client),
        // One statement on its own; should two puts of one id meet in a deadlock, its victim runs again.
        write: ({ sql: text, params }) => retriedOnDeadlock(async () => ((await db.$client.query(text, params)) as unknown as [ResultSetHeader])[0].affectedRows),
      },
      mysqlDialect,
    ),
    deliveries: webhookDeliveries(
      {
        run: driverRun(db.$client),
        write: ({ sql: text, params }) => retriedOnDeadlock(async () => ((await db.$client.query(text, params)) as unknown as [ResultSetHeader])[0].affectedRows),
        transaction: (work) => retriedOnDeadlock(() => driverTransaction(db.$client, work)),
      },
      mysqlDialect,
    ),

    leases: {
      async acquire(name, holder, ttlMs, at) {
        const nowIso = isoOf(at);
        const expiresAt = new Date(Date.parse(nowIso) + ttlMs).toISOString();
        // One statement takes or renews a lease that is free, expired or already the holder's, and leaves any other.
        // MySQL assigns left to right and later assignments see earlier ones: `holder` is decided first, on the row
        // as it was; then `expires_at` moves exactly when the row is now the holder's (taken, or renewed).
        await db
          .insert(leases)
          .values({ name, holder, expiresAt })
          .onDuplicateKeyUpdate({
            set: {
              holder: sql`if(${leases.expiresAt} <= ${nowIso} or ${leases.holder} = values(${leases.holder}), values(${leases.holder}), ${leases.holder})`,
              expiresAt: sql`if(${leases.holder} = values(${leases.holder}), values(${leases.expiresAt}), ${leases.expiresAt})`,
            },
          });
        const [row] = await db.select({ holder: leases.holder, expiresAt: leases.expiresAt }).from(leases).where(eq(leases.name, name));
        return row?.holder === holder && row.expiresAt === expiresAt;
      },
      async release(name, holder) {
        await db.delete(leases).where(and(eq(leases.name, name), eq(leases.holder, holder)));
      },
    },

    rateWindows: rateWindows({
      // READ COMMITTED, as the notifications' transactions: the row lock alone orders the takes (no gap locks). A take
      // that still meets a deadlock was rolled back whole and runs again (it wrote nothing anywhere else).
      transaction: (work) =>
        retriedOnDeadlock(() =>
          db.transaction(
            (tx) =>
              work({
                async lock(key) {
                  // One statement makes the row or finds it, and holds it exclusively either way. Not a lookup then an
                  // `insert ignore`: the ignored duplicate takes a shared lock, and two takes holding it that both
                  // upgrade to the exclusive one deadlock (three processes asking at once for a new account did).
                  await tx
                    .insert(rateLimits)
                    .values({ key, pausedUntil: 0 })
                    .onDuplicateKeyUpdate({ set: { pausedUntil: sql`${rateLimits.pausedUntil}` } });
                  const [row] = await tx.select({ pausedUntil: rateLimits.pausedUntil }).from(rateLimits).where(eq(rateLimits.key, key));
                  return row?.pausedUntil ?? 0;
                },
                async prune(key, before) {
                  await tx.delete(rateCalls).where(and(eq(rateCalls.key, key), lte(rateCalls.at, before)));
                },
                async window(key) {
                  const [row] = await tx.select({ count: sql<number>`count(*)`, oldest: sql<number | null>`min(${rateCalls.at})` }).from(rateCalls).where(eq(rateCalls.key, key));
                  return { count: Number(row?.count ?? 0), oldest: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
                },
                async record(key, at) {
                  const [row] = await tx.insert(rateCalls).values({ key, at }).$returningId();
                  return row?.id ?? 0;
                },
              }),
            notificationTx,
          ),
        ),
      async pause(key, until) {
        await db
          .insert(rateLimits)
          .values({ key, pausedUntil: until })
          .onDuplicateKeyUpdate({ set: { pausedUntil: sql`greatest(${rateLimits.pausedUntil}, values(${rateLimits.pausedUntil}))` } });
      },
      async refund(key, turn) {
        await db.delete(rateCalls).where(and(eq(rateCalls.key, key), eq(rateCalls.id, turn)));
      },
    }),

    meta: {
      get: metaValue,
      async put(name, value) {
        await upsertSettings([{ key: metaKey(name), value }]);
      },
      async claim(name, value) {
        await db.insert(userSettings).ignore().values({ key: metaKey(name), value, updatedAt: now() });
        return metaValue(name);
      },
    },

    async lastMigration() {
      const [tables] = (await db.execute(
        sql`select count(*) as n from information_schema.tables where table_schema = database() and table_name = '__drizzle_migrations'`,
      )) as unknown as [{ n: number | string }[]];
      if (Number(tables[0]?.n ?? 0) === 0) return undefined;
      const [rows] = (await db.execute(sql`select max(created_at) as at from __drizzle_migrations`)) as unknown as [{ at: number | string | null }[]];
      const at = rows[0]?.at;
      return at == null ? undefined : Number(at);
    },

    transfer: {
      dump: () => db.transaction((tx) => dumpRows(dumped, mysqlTransfer(tx)), { isolationLevel: 'repeatable read', accessMode: 'read only' }),
      counts: () => countRows(dumped, mysqlTransfer(db)),
      restore: (tables) =>
        db.transaction(async (tx) => {
          await lockNotifications(tx);
          await restoreRows(dumped, tables, mysqlTransfer(tx));
        }, notificationTx),
    },

    close() {
      // mysql2's pool refuses a second end; the other dialects' clients take it.
      closing ??= db.$client.end();
      return closing;
    },
  };
}
