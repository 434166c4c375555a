import { and, asc, eq, gt, lt, lte, or, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { Sql } from 'postgres';
import { toApiToken, toOwner, toSession } from './auth-rows.ts';
import { configQueries } from './common-queries.ts';
import { createdValues, keyHoldsPart, metaKey, patchProject, reorderedPosition, settingRows, settingsFrom, toProject, unknownSlugs, type SettingRow } from './config-rows.ts';
import { pgDialect } from './dialects.ts';
import { isPgUniqueViolation } from './driver-errors.ts';
import { isoOf, now } from './instants.ts';
import { lockNotifications, notificationTx, pgNotifications, run, type Tx } from './pg-inbox.ts';
import { plainSqlStores } from './plain-stores.ts';
import { rateWindows } from './rates.ts';
import { apiCache, apiToken, authOwner, authSession, credentials, leases, projects, rateCalls, rateLimits, userSettings } from './schema/pg.ts';
import * as pgSchema from './schema/pg.ts';
import { ProjectExistsError, UnknownProjectsError, type Store } from './store.ts';
import { countRows, dumpRows, dumpTablesOf, restoreRows, type TransferOps } from './transfer.ts';

/**
 * The store on Postgres: the settings, projects, credentials, cache, auth, leases, rate windows, meta and transfer
 * through drizzle; the inbox (and the raw statements and transactions every part runs) in pg-inbox.ts, the plain-SQL
 * aggregates from plain-stores.ts.
 */

const { tabOrder, sessionOrder, tokenOrder, sessionsBut } = configQueries({ projects, authSession, apiToken });

/** The metric history's advisory lock key (arbitrary, and not the notifications'). */
const HISTORY_LOCK = sql.raw('7305046152410968394');

const dumped = dumpTablesOf(pgSchema);

/** The transfer's statements on a transaction (or the plain connection, for counts). */
function pgTransfer(q: Pick<Tx, 'select' | 'insert' | 'delete' | 'execute'>): TransferOps {
  return {
    select: (table) => q.select().from(table as PgTable),
    row: async (query) => (await q.execute<Record<string, unknown>>(query))[0],
    deleteAll: async (table) => void (await q.delete(table as PgTable)),
    insert: async (table, rows) => void (await q.insert(table as PgTable).values(rows)),
    // Never backwards: a live stream that saw a seq must not see it handed out again.
    advanceSeq: async (seq) =>
      void (await q.execute(sql`select setval('notification_seq', greatest(${seq}::bigint, (select last_value from notification_seq)))`)),
  };
}

export function pgStore(db: PostgresJsDatabase & { $client: Sql }): Store {
  // One statement for any number of leaves; `excluded` is the row the conflict kept out.
  const upsertSettings = (rows: SettingRow[], q: Pick<PostgresJsDatabase, 'insert'> = db) => {
    const updatedAt = now();
    return q
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
    dialect: 'postgres',

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
        await db.transaction(async (tx) => {
          if (rows.length > 0) await upsertSettings(rows, tx);
          if (order.length > 0) {
            await tx.update(projects).set({ position: reorderedPosition(projects.slug, projects.position, order) });
          }
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
          if (isPgUniqueViolation(error)) throw new ProjectExistsError(input.slug);
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
      changePassword(passwordHash, keepSessionId, removeDevices) {
        // The update locks the owner row first, as removeOwner's delete does, so the two cannot deadlock.
        return db.transaction(async (tx) => {
          const updated = await tx.update(authOwner).set({ passwordHash, updatedAt: now() }).returning({ id: authOwner.id });
          if (updated.length === 0) return false;
          await tx.delete(authSession).where(sessionsBut(keepSessionId));
          if (removeDevices) await tx.delete(pgSchema.pushSubscriptions);
          return true;
        });
      },
      async removeOwner() {
        await db.transaction(async (tx) => {
          await tx.delete(authOwner);
          await tx.delete(authSession);
          await tx.delete(pgSchema.pushSubscriptions);
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
          return (await db.delete(authSession).where(eq(authSession.id, id)).returning({ id: authSession.id })).length > 0;
        },
        removeAll(exceptId, removeDevices) {
          return db.transaction(async (tx) => {
            const ended = await tx.delete(authSession).where(sessionsBut(exceptId)).returning({ id: authSession.id });
            if (removeDevices) await tx.delete(pgSchema.pushSubscriptions);
            return ended.length;
          });
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

    notifications: pgNotifications(db),

    ...plainSqlStores(
      {
        sends: (statement) => run<Record<string, unknown>>(db, statement),
        run: (statement) => run<Record<string, unknown>>(db, statement),
        // postgres.js answers a statement's rows with how many it wrote beside them (`count`).
        write: async (statement) => Number((await run<Record<string, unknown>>(db, statement) as unknown as { count: number }).count),
        transaction: (work) => db.transaction((tx) => work((statement) => run<Record<string, unknown>>(tx, statement))),
        history: {
          // The history's own advisory lock: puts of several processes one after the other, each reading what the
          // previous committed (READ COMMITTED), so that each counts what it created, replaced and left exactly.
          transaction: (work) =>
            db.transaction(async (tx) => {
              await tx.execute(sql`select pg_advisory_xact_lock(${HISTORY_LOCK})`);
              return work((statement) => run<Record<string, unknown>>(tx, statement));
            }, notificationTx),
        },
      },
      pgDialect,
    ),

    leases: {
      async acquire(name, holder, ttlMs, at) {
        const nowIso = isoOf(at);
        const expiresAt = new Date(Date.parse(nowIso) + ttlMs).toISOString();
        // One statement: a lease that is free, expired or already the holder's is (re)taken; any other stays.
        const held = await db
          .insert(leases)
          .values({ name, holder, expiresAt })
          .onConflictDoUpdate({
            target: leases.name,
            set: { holder, expiresAt },
            setWhere: or(lte(leases.expiresAt, nowIso), eq(leases.holder, holder)),
          })
          .returning({ name: leases.name });
        return held.length > 0;
      },
      async release(name, holder) {
        await db.delete(leases).where(and(eq(leases.name, name), eq(leases.holder, holder)));
      },
    },

    rateWindows: rateWindows({
      transaction: (work) =>
        db.transaction((tx) =>
          work({
            async lock(key) {
              const locked = () => tx.select({ pausedUntil: rateLimits.pausedUntil }).from(rateLimits).where(eq(rateLimits.key, key)).for('update');
              let [row] = await locked();
              if (!row) {
                await tx.insert(rateLimits).values({ key, pausedUntil: 0 }).onConflictDoNothing();
                [row] = await locked();
              }
              return row?.pausedUntil ?? 0;
            },
            async prune(key, before) {
              await tx.delete(rateCalls).where(and(eq(rateCalls.key, key), lte(rateCalls.at, before)));
            },
            async window(key) {
              const [row] = await tx.select({ count: sql<number>`count(*)::int`, oldest: sql<number | null>`min(${rateCalls.at})` }).from(rateCalls).where(eq(rateCalls.key, key));
              return { count: row?.count ?? 0, oldest: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
            },
            async record(key, at) {
              const [row] = await tx.insert(rateCalls).values({ key, at }).returning({ id: rateCalls.id });
              return row?.id ?? 0;
            },
          }),
        ),
      async pause(key, until) {
        await db
          .insert(rateLimits)
          .values({ key, pausedUntil: until })
          .onConflictDoUpdate({ target: rateLimits.key, set: { pausedUntil: sql`greatest(${rateLimits.pausedUntil}, excluded.paused_until)` } });
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
        await db.insert(userSettings).values({ key: metaKey(name), value, updatedAt: now() }).onConflictDoNothing({ target: userSettings.key });
        return metaValue(name);
      },
    },

    async lastMigration() {
      // Two statements: Postgres resolves every table a statement names before running it.
      const [table] = await db.execute<{ present: boolean }>(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
      if (!table?.present) return undefined;
      const [row] = await db.execute<{ at: string | null }>(sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`);
      return row?.at == null ? undefined : Number(row.at);
    },

    transfer: {
      // One snapshot: a dump taken while the dashboard runs is still one consistent moment.
      dump: () => db.transaction((tx) => dumpRows(dumped, pgTransfer(tx)), { isolationLevel: 'repeatable read', accessMode: 'read only' }),
      counts: () => countRows(dumped, pgTransfer(db)),
      restore: (tables) =>
        db.transaction(async (tx) => {
          // Serialised with every writer of the inbox and its seqs.
          await lockNotifications(tx);
          await restoreRows(dumped, tables, pgTransfer(tx));
        }, notificationTx),
    },

    async close() {
      await db.$client.end();
    },
  };
}
