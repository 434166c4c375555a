import { and, asc, eq, getTableColumns, gt, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { MySqlColumn, MySqlTable } from 'drizzle-orm/mysql-core';
import type { ResultSetHeader } from 'mysql2/promise';
import { toApiToken, toOwner, toSession } from './auth-rows.ts';
import { configQueries } from './common-queries.ts';
import { createdValues, keyHoldsPart, metaKey, patchProject, reorderedPosition, settingRows, settingsFrom, toProject, unknownSlugs, type SettingRow } from './config-rows.ts';
import { mysqlDialect } from './dialects.ts';
import { isMysqlUniqueViolation } from './driver-errors.ts';
import { isoOf, now } from './instants.ts';
import { affected, driverRun, driverTransaction, retriedOnDeadlock, runOn, type Db, type Queryable } from './mysql-driver.ts';
import { lockNotifications, mysqlNotifications, notificationTx } from './mysql-inbox.ts';
import { plainSqlStores } from './plain-stores.ts';
import { rateWindows } from './rates.ts';
import { apiCache, apiToken, authOwner, authSession, credentials, leases, notificationSeq, projects, rateCalls, rateLimits, userSettings } from './schema/mysql.ts';
import * as mysqlSchema from './schema/mysql.ts';
import { ProjectExistsError, UnknownProjectsError, type Store } from './store.ts';
import { countRows, dumpRows, dumpTablesOf, restoreRows, type TransferOps } from './transfer.ts';

/**
 * The store on MySQL: the settings, projects, credentials, cache, auth, leases, rate windows, meta and transfer through
 * drizzle; the inbox in mysql-inbox.ts, the ways statements run in mysql-driver.ts, the plain-SQL aggregates from
 * plain-stores.ts.
 */

const { tabOrder, sessionOrder, tokenOrder, sessionsBut } = configQueries({ projects, authSession, apiToken });

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
          if (isMysqlUniqueViolation(error)) throw new ProjectExistsError(input.slug);
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

    notifications: mysqlNotifications(db),

    ...plainSqlStores(
      {
        sends: runOn(db),
        run: driverRun(db.$client),
        // One statement on its own; should two puts of one id meet in a deadlock, its victim runs again.
        write: ({ sql: text, params }) => retriedOnDeadlock(async () => ((await db.$client.query(text, params)) as unknown as [ResultSetHeader])[0].affectedRows),
        transaction: (work) => retriedOnDeadlock(() => driverTransaction(db.$client, work)),
        history: {
          // REPEATABLE READ, whatever the server's default: a put's locking read takes the rows and the gaps between
          // them, so a put of the same days waits for it, or (both holding a gap) one is a deadlock's victim and runs
          // again, reading what the other committed.
          transaction: (work) => retriedOnDeadlock(() => driverTransaction(db.$client, work)),
          lockingReads: true,
          valuesAsText: true,
        },
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
