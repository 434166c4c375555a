import type { Client, InValue, ResultSet } from '@libsql/client';
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, notInArray, or, sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import type { BaseSQLiteDatabase, SQLiteTable } from 'drizzle-orm/sqlite-core';
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
  relayCursor,
  userSettings,
} from './schema/sqlite.ts';
import * as sqliteSchema from './schema/sqlite.ts';
import { countRows, dumpRows, dumpTablesOf, restoreRows, type TransferOps } from './transfer.ts';
import {
  CLAIM_TAIL,
  rawSql,
  relinkedCase,
  seqsEndingAt,
  createdValues,
  ingestEvents,
  insertStatement,
  isoOf,
  keyHoldsPart,
  isSqliteUniqueViolation,
  metaKey,
  now,
  patchProject,
  reorderedPosition,
  settingRows,
  settingsFrom,
  toApiToken,
  toNotification,
  notificationValues,
  toOwner,
  toProject,
  toSession,
  unknownSlugs,
  sqliteDialect,
  type IngestOps,
  type SettingRow,
} from './shared.ts';
import { emailSends } from './emails.ts';
import { channelConnections } from './channels.ts';
import { pushSubscriptions } from './push.ts';
import { metricHistory } from './history.ts';
import { metricAlertRules } from './metric-alerts.ts';
import { logDeliveryRows, webhookDeliveries } from './deliveries.ts';
import { notificationReads, outboxOps, type RunStatement } from './outbox.ts';
import { ProjectExistsError, UnknownProjectsError, type NotificationRow, type OutboxOps, type Store } from './store.ts';

/** How long a local connection waits for another process's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** The writer connection inside its BEGIN IMMEDIATE, or a libSQL transaction: what the notification writes run on. */
type Queryable = BaseSQLiteDatabase<'async', ResultSet>;

export interface SqliteStoreOptions {
  /** Names the database for the in-process queue: every store on one database in this process shares it. */
  lockKey: string;
  /**
   * For a local file: a second connection, with a busy timeout, on which the store runs its read-then-write
   * transactions (BEGIN IMMEDIATE … COMMIT) in the queue; `db`'s client must then be `queuedClient(…, lockKey)`.
   * Without it (a remote libSQL database) they use `db.transaction`.
   */
  writer?: (LibSQLDatabase & { $client: Client }) | undefined;
}

/** The tail of each database's queue in this process. */
const queues = new Map<string, Promise<void>>();

/** Runs `task` once every earlier task queued under `key` in this process has settled. */
function serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
  const result = (queues.get(key) ?? Promise.resolve()).then(task);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}

const queuedMethods = new Set<PropertyKey>(['execute', 'batch', 'migrate', 'executeMultiple']);

/**
 * A local client whose every statement (and batch) waits in the database's queue, behind any notification
 * transaction of this process (see `sqliteStore`). libSQL runs local statements synchronously on this thread: a
 * write started while such a transaction held the write lock would wait out the busy timeout without letting the
 * transaction finish, then fail with SQLITE_BUSY. Reads wait too, which costs nothing, as they too run on this thread.
 * `transaction` is not queued: the store's own transactions call it from inside the queue.
 */
export function queuedClient(client: Client, lockKey: string): Client {
  return new Proxy(client, {
    get(target, property) {
      // The client keeps its connection in private fields: its methods must run on the client itself.
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return queuedMethods.has(property)
        ? (...args: unknown[]) => serialised(lockKey, () => method.apply(target, args) as Promise<unknown>)
        : method.bind(target);
    },
  });
}

const tabOrder = [asc(projects.position), asc(projects.createdAt), asc(projects.slug)];
const sessionOrder = [desc(authSession.lastSeenAt), desc(authSession.createdAt), asc(authSession.id)];
const tokenOrder = [desc(apiToken.createdAt), asc(apiToken.id)];
/** Every session but `exceptId` (every session when it is undefined). */
const sessionsBut = (exceptId: string | undefined) => (exceptId === undefined ? undefined : ne(authSession.id, exceptId));

const unread = isNull(notifications.readAt);
/** Interruptions that are over (neither held nor deferred) and older than `before` (ms UTC): retention. */
const settledBefore = (before: number) =>
  and(notInArray(notificationDeliveries.status, ['held', 'deferred']), lt(notificationDeliveries.createdAt, before));

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

/** Raw statements on a client's own connection, rows keyed by column name. */
const clientRun =
  (client: Client): RunStatement =>
  async ({ sql: text, params }) =>
    (await client.execute({ sql: text, args: params as InValue[] })).rows;

/** Raw statements on the transaction's connection: the local writer's `client` (as they are), or a libSQL transaction. */
const transactionRun = (tx: Queryable, client: Client | undefined): RunStatement =>
  client ? clientRun(client) : async (statement) => (await tx.run(rawSql(statement))).rows;

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
    async insertRows(rows) {
      await run(insertStatement(notifications, rows.map(notificationValues), sqliteDialect));
    },
    async insertEvents(events) {
      await run(insertStatement(notificationEvents, events, sqliteDialect));
    },
    logDeliveries: (rows) => logDeliveryRows(run, sqliteDialect, rows),
  };
}

/** The outbox on a transaction's connection (see `transactionRun`). */
function sqliteOutbox(tx: Queryable, client: Client | undefined): OutboxOps {
  return outboxOps(transactionRun(tx, client), sqliteDialect, (count) => takeSeqs(tx, count));
}

const dumped = dumpTablesOf(sqliteSchema);

/** The transfer's statements on a transaction's connection (or the plain one, for counts). */
function sqliteTransfer(q: Queryable): TransferOps {
  return {
    select: (table) => q.select().from(table as SQLiteTable),
    row: (query) => q.get<Record<string, unknown> | undefined>(query),
    deleteAll: async (table) => void (await q.delete(table as SQLiteTable)),
    insert: async (table, rows) => void (await q.insert(table as SQLiteTable).values(rows)),
    // Never backwards: a live stream that saw a seq must not see it handed out again.
    advanceSeq: async (seq) =>
      void (await q
        .insert(notificationSeq)
        .values({ id: 1, last: seq })
        .onConflictDoUpdate({ target: notificationSeq.id, set: { last: sql`max(${notificationSeq.last}, ${seq})` } })),
  };
}

export function sqliteStore(db: LibSQLDatabase & { $client: Client }, { lockKey, writer }: SqliteStoreOptions): Store {
  /**
   * The notification writes (ingest, markRead, prune, leases) run one at a time per database in this process, each
   * as one write transaction, in the queue that the client's statements wait in too (`queuedClient`). That matters
   * because libSQL runs local statements synchronously: were a transaction of this process interleaved with another
   * one, or with a plain write, the latter would wait out the busy timeout on the one thread the transaction needs
   * to finish, then fail with SQLITE_BUSY. Other processes are serialised by SQLite's write lock: BEGIN IMMEDIATE
   * takes it before the first read, waiting up to BUSY_TIMEOUT_MS for it (blocking this thread meanwhile, as any
   * local write does). The transactions run on the dedicated `writer` connection rather than through
   * `db.transaction`, which would take the client's connection away (the client then opens a fresh one without the
   * busy timeout, and the taken one stays open until it is garbage-collected: a file handle per transaction).
   * `work` must use only `tx`: a statement on `db` would wait in the queue behind `work` itself, for ever.
   */
  const transact = <T>(work: (tx: Queryable) => Promise<T>): Promise<T> =>
    serialised(lockKey, async () => {
      if (!writer) return db.transaction(work);
      await writer.run(sql`begin immediate`);
      try {
        const result = await work(writer);
        await writer.run(sql`commit`);
        return result;
      } catch (error) {
        try {
          await writer.run(sql`rollback`);
        } catch {
          // No transaction is active: SQLite already rolled it back (as it does on SQLITE_FULL or SQLITE_BUSY).
        }
        throw error;
      }
    });

  // One statement for any number of leaves; `excluded` is the row the conflict kept out.
  const upsertSettings = (rows: SettingRow[]) => {
    const updatedAt = now();
    return db
      .insert(userSettings)
      .values(rows.map((row) => ({ ...row, updatedAt })))
      .onConflictDoUpdate({
        target: userSettings.key,
        set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
      });
  };
  const projectRow = async (slug: string) => (await db.select().from(projects).where(eq(projects.slug, slug)))[0];
  const metaValue = async (name: string) => (await db.select().from(userSettings).where(eq(userSettings.key, metaKey(name))))[0]?.value;

  return {
    dialect: 'sqlite',

    settings: {
      async get() {
        const [rows, order] = await Promise.all([
          db.select().from(userSettings),
          db.select({ slug: projects.slug }).from(projects).orderBy(...tabOrder),
        ]);
        return settingsFrom(rows, order.map((p) => p.slug));
      },
      async update(update) {
        const order = update.projectOrder ?? [];
        if (order.length > 0) {
          const unknown = unknownSlugs(order, (await db.select({ slug: projects.slug }).from(projects)).map((p) => p.slug));
          if (unknown.length > 0) throw new UnknownProjectsError(unknown);
        }
        const rows = settingRows(update);
        const [first, ...rest] = [
          ...(rows.length > 0 ? [upsertSettings(rows)] : []),
          ...(order.length > 0
            ? [db.update(projects).set({ position: reorderedPosition(projects.slug, projects.position, order) })]
            : []),
        ];
        // One batch runs on the client's own connection as one transaction; an interactive transaction would
        // open a second connection and could hit SQLITE_BUSY against concurrent requests.
        if (first) await db.batch([first, ...rest]);
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
          const [row] = await db
            .insert(projects)
            .values({
              slug: input.slug,
              ...createdValues(input),
              position: sql`(select coalesce(max(${projects.position}), -1) + 1 from ${projects})`,
              createdAt: at,
              updatedAt: at,
            })
            .returning();
          if (!row) throw new Error(`Inserting project "${input.slug}" returned no row`);
          return toProject(row);
        } catch (error) {
          if (isSqliteUniqueViolation(error)) throw new ProjectExistsError(input.slug);
          throw error;
        }
      },
      update: (slug, patch) =>
        patchProject(
          slug,
          patch,
          () => projectRow(slug),
          async (version, values) =>
            (
              await db
                .update(projects)
                .set({ ...values, version: sql`${projects.version} + 1`, updatedAt: now() })
                .where(and(eq(projects.slug, slug), eq(projects.version, version)))
                .returning()
            )[0],
        ),
      async remove(slug) {
        return (await db.delete(projects).where(eq(projects.slug, slug)).returning()).length > 0;
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
        const updatedAt = now();
        await db
          .insert(credentials)
          .values({ key, sealed, updatedAt })
          .onConflictDoUpdate({ target: credentials.key, set: { sealed, updatedAt } });
      },
      async remove(key) {
        return (await db.delete(credentials).where(eq(credentials.key, key)).returning()).length > 0;
      },
    },

    cache: {
      async get(key) {
        const row = (await db.select().from(apiCache).where(eq(apiCache.key, key)))[0];
        return row && { key: row.key, route: row.route, value: row.value, fetchedAt: isoOf(row.fetchedAt), expiresAt: isoOf(row.expiresAt) };
      },
      async put(entry) {
        const { route, value, fetchedAt, expiresAt } = entry;
        await db.insert(apiCache).values(entry).onConflictDoUpdate({ target: apiCache.key, set: { route, value, fetchedAt, expiresAt } });
      },
      async clear(route) {
        return (await db.delete(apiCache).where(route === undefined ? undefined : eq(apiCache.route, route)).returning({ key: apiCache.key })).length;
      },
      async expire(route, part, at) {
        const expiresAt = isoOf(at);
        const expired = await db
          .update(apiCache)
          .set({ expiresAt })
          .where(and(eq(apiCache.route, route), gt(apiCache.expiresAt, expiresAt), keyHoldsPart(apiCache.key, part)))
          .returning({ key: apiCache.key });
        return expired.length;
      },
    },

    auth: {
      async owner() {
        const row = (await db.select().from(authOwner).where(eq(authOwner.id, 1)))[0];
        return row && toOwner(row);
      },
      async createOwner(passwordHash) {
        const at = now();
        // One statement: of concurrent first-run setups, exactly one inserts the row and gets it back.
        const created = await db
          .insert(authOwner)
          .values({ id: 1, passwordHash, createdAt: at, updatedAt: at })
          .onConflictDoNothing({ target: authOwner.id })
          .returning({ id: authOwner.id });
        return created.length > 0;
      },
      async changePassword(passwordHash, keepSessionId, removeDevices) {
        // One batch, so one transaction on the client's connection (see settings.update). The deletes check for the
        // owner inside that transaction, so without an owner nothing goes, even beside a concurrent removeOwner.
        const owned = sql`exists (select 1 from ${authOwner})`;
        const devices = removeDevices ? [db.delete(sqliteSchema.pushSubscriptions).where(owned)] : [];
        const [updated] = await db.batch([
          db.update(authOwner).set({ passwordHash, updatedAt: now() }).returning({ id: authOwner.id }),
          db.delete(authSession).where(and(owned, sessionsBut(keepSessionId))),
          ...devices,
        ]);
        return updated.length > 0;
      },
      async removeOwner() {
        await db.batch([db.delete(authOwner), db.delete(authSession), db.delete(sqliteSchema.pushSubscriptions)]);
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
          return (await db.delete(authSession).where(eq(authSession.id, id)).returning({ id: authSession.id })).length > 0;
        },
        async removeAll(exceptId, removeDevices) {
          const ended = db.delete(authSession).where(sessionsBut(exceptId)).returning({ id: authSession.id });
          if (!removeDevices) return (await ended).length;
          const [sessions] = await db.batch([ended, db.delete(sqliteSchema.pushSubscriptions)]);
          return sessions.length;
        },
        async removeExpired(seenBefore, createdBefore) {
          const expired = or(lt(authSession.lastSeenAt, isoOf(seenBefore)), lt(authSession.createdAt, isoOf(createdBefore)));
          return (await db.delete(authSession).where(expired).returning({ id: authSession.id })).length;
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
          return (await db.delete(apiToken).where(eq(apiToken.id, id)).returning({ id: apiToken.id })).length > 0;
        },
      },
    },

    notifications: {
      // The reads run on the client's connection, each in the queue like any statement of this process.
      ...notificationReads(clientRun(db.$client), sqliteDialect),
      ingest: (events, options) =>
        transact(async (tx) => {
          const result = await ingestEvents(events, options, ingestOps(tx, tx === writer ? writer.$client : undefined));
          const { cursor } = options;
          if (cursor) {
            await tx
              .insert(relayCursor)
              .values({ relayUrl: cursor.relayUrl, since: cursor.since, updatedAt: now() })
              .onConflictDoUpdate({ target: relayCursor.relayUrl, set: { since: cursor.since, updatedAt: now() } });
          }
          return result;
        }),
      outbox: (work) => transact((tx) => work(sqliteOutbox(tx, tx === writer ? writer.$client : undefined))),
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
    },

    emails: emailSends(clientRun(db.$client), sqliteDialect),
    push: pushSubscriptions(clientRun(db.$client), sqliteDialect),
    channels: channelConnections(clientRun(db.$client), sqliteDialect),
    // Puts in the write transaction (BEGIN IMMEDIATE: one writer at a time, across processes too); reads as any statement.
    history: metricHistory(
      {
        run: clientRun(db.$client),
        transaction: (work) => transact((tx) => work(transactionRun(tx, tx === writer ? writer.$client : undefined))),
        packedReads: true,
      },
      sqliteDialect,
    ),
    // Each write one statement on its own, as any statement (a local file's waits for the write lock).
    metricAlerts: metricAlertRules(
      {
        run: clientRun(db.$client),
        write: async ({ sql: text, params }) => (await db.$client.execute({ sql: text, args: params as InValue[] })).rowsAffected,
      },
      sqliteDialect,
    ),
    // Writes as the alert rules' (one statement, waiting for the write lock); `record` in the write transaction.
    deliveries: webhookDeliveries(
      {
        run: clientRun(db.$client),
        write: async ({ sql: text, params }) => (await db.$client.execute({ sql: text, args: params as InValue[] })).rowsAffected,
        transaction: (work) => transact((tx) => work(transactionRun(tx, tx === writer ? writer.$client : undefined))),
      },
      sqliteDialect,
    ),

    leases: {
      acquire(name, holder, ttlMs, at) {
        const nowIso = isoOf(at);
        const expiresAt = new Date(Date.parse(nowIso) + ttlMs).toISOString();
        return transact(async (tx) => {
          // One statement: a lease that is free, expired or already the holder's is (re)taken; any other stays.
          const held = await tx
            .insert(leases)
            .values({ name, holder, expiresAt })
            .onConflictDoUpdate({
              target: leases.name,
              set: { holder, expiresAt },
              setWhere: or(lte(leases.expiresAt, nowIso), eq(leases.holder, holder)),
            })
            .returning({ name: leases.name });
          return held.length > 0;
        });
      },
      async release(name, holder) {
        await transact((tx) => tx.delete(leases).where(and(eq(leases.name, name), eq(leases.holder, holder))));
      },
    },

    meta: {
      get: metaValue,
      async put(name, value) {
        await upsertSettings([{ key: metaKey(name), value }]);
      },
      async claim(name, value) {
        await db.insert(userSettings).values({ key: metaKey(name), value, updatedAt: now() }).onConflictDoNothing({ target: userSettings.key });
        return metaValue(name);
      },
    },

    async lastMigration() {
      const [table] = await db.all<{ name: string }>(sql`select name from sqlite_master where type = 'table' and name = '__drizzle_migrations'`);
      if (!table) return undefined;
      const [row] = await db.all<{ at: number | string | null }>(sql`select max(created_at) as at from __drizzle_migrations`);
      return row?.at == null ? undefined : Number(row.at);
    },

    transfer: {
      // In the write transaction: one consistent moment, serialised with the inbox's writers.
      dump: () => transact((tx) => dumpRows(dumped, sqliteTransfer(tx))),
      counts: () => countRows(dumped, sqliteTransfer(db)),
      restore: (tables) => transact((tx) => restoreRows(dumped, tables, sqliteTransfer(tx))),
    },

    close() {
      db.$client.close();
      writer?.$client.close();
      return Promise.resolve();
    },
  };
}
