import type { Client } from '@libsql/client';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { apiCache, credentials, projects, userSettings } from './schema/sqlite.ts';
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
  toProject,
  unknownSlugs,
  type SettingRow,
} from './shared.ts';
import { ProjectExistsError, UnknownProjectsError, type Store } from './store.ts';

const tabOrder = [asc(projects.position), asc(projects.createdAt), asc(projects.slug)];

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
