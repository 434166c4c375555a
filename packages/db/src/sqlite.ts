import type { InValue } from '@libsql/client';
import { and, asc, eq, gt, lt, lte, or, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { toApiToken, toOwner, toSession } from './auth-rows.ts';
import { configQueries } from './common-queries.ts';
import { createdValues, keyHoldsPart, metaKey, patchProject, reorderedPosition, settingRows, settingsFrom, toProject, unknownSlugs, type SettingRow } from './config-rows.ts';
import { sqliteDialect } from './dialects.ts';
import { isSqliteUniqueViolation } from './driver-errors.ts';
import { isoOf, now } from './instants.ts';
import { plainSqlStores } from './plain-stores.ts';
import { apiCache, apiToken, authOwner, authSession, credentials, leases, notificationSeq, projects, userSettings } from './schema/sqlite.ts';
import * as sqliteSchema from './schema/sqlite.ts';
import { clientRun, writeTransactions, type Queryable, type SqliteDb, type SqliteStoreOptions } from './sqlite-connections.ts';
import { sqliteNotifications } from './sqlite-inbox.ts';
import { ProjectExistsError, UnknownProjectsError, type Store } from './store.ts';
import { countRows, dumpRows, dumpTablesOf, restoreRows, type TransferOps } from './transfer.ts';

/**
 * The store on SQLite and libSQL: the settings, projects, credentials, cache, auth, leases, meta and transfer through
 * drizzle; the inbox in sqlite-inbox.ts, the plain-SQL aggregates from plain-stores.ts, the connections and write
 * transactions in sqlite-connections.ts.
 */

const { tabOrder, sessionOrder, tokenOrder, sessionsBut } = configQueries({ projects, authSession, apiToken });




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

export function sqliteStore(db: SqliteDb, options: SqliteStoreOptions): Store {
  const transactions = writeTransactions(db, options);
  const { transact, writeTransaction } = transactions;

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

    notifications: sqliteNotifications(db, transactions),

    ...plainSqlStores(
      {
        sends: clientRun(db.$client),
        run: clientRun(db.$client),
        // Each write one statement on its own, as any statement (a local file's waits for the write lock).
        write: async ({ sql: text, params }) => (await db.$client.execute({ sql: text, args: params as InValue[] })).rowsAffected,
        // The history's puts and the log's `record` in the write transaction (BEGIN IMMEDIATE: one writer at a time,
        // across processes too); reads as any statement.
        transaction: writeTransaction,
        history: { transaction: writeTransaction, packedReads: true },
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
      options.writer?.$client.close();
      return Promise.resolve();
    },
  };
}
