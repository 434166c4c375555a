import type { Client } from '@libsql/client';
import { and, asc, desc, eq, lt, ne, or, sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { apiCache, apiToken, authOwner, authSession, credentials, projects, userSettings } from './schema/sqlite.ts';
import {
  createdValues,
  isoOf,
  isSqliteUniqueViolation,
  metaKey,
  now,
  patchProject,
  reorderedPosition,
  settingRows,
  settingsFrom,
  toApiToken,
  toOwner,
  toProject,
  toSession,
  unknownSlugs,
  type SettingRow,
} from './shared.ts';
import { ProjectExistsError, UnknownProjectsError, type Store } from './store.ts';

const tabOrder = [asc(projects.position), asc(projects.createdAt), asc(projects.slug)];
const sessionOrder = [desc(authSession.lastSeenAt), desc(authSession.createdAt), asc(authSession.id)];
const tokenOrder = [desc(apiToken.createdAt), asc(apiToken.id)];
/** Every session but `exceptId` (every session when it is undefined). */
const sessionsBut = (exceptId: string | undefined) => (exceptId === undefined ? undefined : ne(authSession.id, exceptId));

export function sqliteStore(db: LibSQLDatabase & { $client: Client }): Store {
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
      async changePassword(passwordHash, keepSessionId) {
        // One batch, so one transaction on the client's connection (see settings.update). The delete checks for the
        // owner inside that transaction, so without an owner nothing goes, even beside a concurrent removeOwner.
        const [updated] = await db.batch([
          db.update(authOwner).set({ passwordHash, updatedAt: now() }).returning({ id: authOwner.id }),
          db.delete(authSession).where(and(sql`exists (select 1 from ${authOwner})`, sessionsBut(keepSessionId))),
        ]);
        return updated.length > 0;
      },
      async removeOwner() {
        await db.batch([db.delete(authOwner), db.delete(authSession)]);
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
        async removeAll(exceptId) {
          return (await db.delete(authSession).where(sessionsBut(exceptId)).returning({ id: authSession.id })).length;
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

    meta: {
      async get(name) {
        return (await db.select().from(userSettings).where(eq(userSettings.key, metaKey(name))))[0]?.value;
      },
      async put(name, value) {
        await upsertSettings([{ key: metaKey(name), value }]);
      },
    },

    close() {
      db.$client.close();
      return Promise.resolve();
    },
  };
}
