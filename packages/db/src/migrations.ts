import { join } from 'node:path';
import { getTableName, is, Table } from 'drizzle-orm';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import type { TablesState } from '@dash/contracts';
import * as pgSchema from './schema/pg.ts';
import type { Store } from './store.ts';

/** Each dialect's folder under the migrations directory (drizzle-kit's `out`). */
const folders: Record<Store['dialect'], string> = { sqlite: 'sqlite', postgres: 'pg', mysql: 'mysql' };

/** A dialect's migrations, oldest first. */
export function migrationsOf(dialect: Store['dialect'], migrationsDir: string): MigrationMeta[] {
  return readMigrationFiles({ migrationsFolder: join(migrationsDir, folders[dialect]) });
}

/** Whether a database whose last migration is `lastMigration` has every table the dashboard needs, as they are now. */
export function tablesState(lastMigration: number | undefined, migrations: readonly MigrationMeta[]): TablesState {
  if (lastMigration === undefined) return 'missing';
  return migrations.every((migration) => migration.folderMillis <= lastMigration) ? 'current' : 'outdated';
}

/**
 * What drizzle's migrator would run on a Postgres or MySQL database whose last migration is `lastMigration`, as
 * statements for someone to paste into Supabase's SQL editor or PlanetScale's console; empty when it is current.
 * Its own bookkeeping comes with them (the table, a row per migration, exactly as the migrator writes them), so
 * the dashboard, and the migrator if it ever runs there, see the tables as current afterwards. On Postgres they run
 * in one transaction, and with `rowLevelSecurity` every table of the dashboard gets row-level security enabled
 * without a policy: Supabase's Data API (PostgREST, the anon key) then reads nothing, while the dashboard's own
 * connection (the tables' owner) goes on as before.
 */
export function migrationStatements(
  dialect: 'postgres' | 'mysql',
  migrationsDir: string,
  lastMigration: number | undefined,
  { rowLevelSecurity = false } = {},
): string[] {
  const pending = migrationsOf(dialect, migrationsDir).filter((migration) => lastMigration === undefined || migration.folderMillis > lastMigration);
  if (pending.length === 0) return [];
  const statement = (text: string) => `${text.trim().replace(/;\s*$/, '')};`;
  const body = pending.flatMap((migration) => [
    ...migration.sql.filter((text) => text.trim() !== '').map(statement),
    dialect === 'postgres'
      ? `INSERT INTO "drizzle"."__drizzle_migrations" ("hash", "created_at") VALUES ('${migration.hash}', ${migration.folderMillis});`
      : `INSERT INTO \`__drizzle_migrations\` (\`hash\`, \`created_at\`) VALUES ('${migration.hash}', ${migration.folderMillis});`,
  ]);
  if (dialect === 'mysql') {
    return ['CREATE TABLE IF NOT EXISTS `__drizzle_migrations` (id serial primary key, hash text not null, created_at bigint);', ...body];
  }
  const security = rowLevelSecurity ? pgTableNames().map((name) => `ALTER TABLE "public"."${name}" ENABLE ROW LEVEL SECURITY;`) : [];
  return [
    'BEGIN;',
    'CREATE SCHEMA IF NOT EXISTS "drizzle";',
    'CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint);',
    ...body,
    ...security,
    'COMMIT;',
  ];
}

/** Every table of the Postgres schema. */
function pgTableNames(): string[] {
  return Object.values(pgSchema as Record<string, unknown>)
    .filter((value): value is Table => is(value, Table))
    .map((table) => getTableName(table))
    .sort();
}
