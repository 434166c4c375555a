import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import { afterAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { openStore } from './index.ts';
import {
  MYSQL_SERVER,
  mysqlProblem,
  mysqlTemplate,
  PG_SERVER,
  postgresProblem,
  postgresTemplate,
  scratchMysql,
  scratchPostgres,
  sqliteTemplate,
  withMysql,
  withPostgres,
  type MigratedTemplate,
} from './testing.ts';

// The migrated templates the store's tests copy a database from for each test (instead of migrating each one): a copy
// must be exactly what the migrations make on a blank database, and each copy the test's own.

const migrationsDir = fileURLToPath(new URL('../../../drizzle', import.meta.url));
const pgProblem = await postgresProblem();
const myProblem = await mysqlProblem();
const inCI = process.env.CI === 'true';

const dir = mkdtempSync(join(tmpdir(), 'dash-templates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** Everything a database holds that the migrations made: each table's definition (keys, checks) and rows, in order. */
type Fingerprint = Record<string, unknown>;

async function sqliteFingerprint(url: string): Promise<Fingerprint> {
  const client = createClient({ url });
  try {
    const rows = async (text: string) => {
      const { columns, rows } = await client.execute(text);
      return rows.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
    };
    const schema = await rows(`select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by type, name`);
    const tables = schema.flatMap((entry) => (entry['type'] === 'table' && typeof entry['name'] === 'string' ? [entry['name']] : []));
    const data = Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await rows(`select * from "${table}" order by rowid`)] as const)));
    return { schema, data, journalMode: await rows('pragma journal_mode'), userVersion: await rows('pragma user_version') };
  } finally {
    client.close();
  }
}

async function postgresFingerprint(url: string): Promise<Fingerprint> {
  return withPostgres(url, async (sql) => {
    const schemas = ['public', 'drizzle'];
    const columns = await sql`select table_schema, table_name, column_name, ordinal_position, data_type, column_default, is_nullable
      from information_schema.columns where table_schema in ${sql(schemas)} order by table_schema, table_name, ordinal_position`;
    const indexes = await sql`select schemaname, tablename, indexname, indexdef from pg_indexes where schemaname in ${sql(schemas)} order by schemaname, indexname`;
    const constraints = await sql`select conrelid::regclass::text as on, conname, pg_get_constraintdef(oid) as definition
      from pg_constraint where connamespace::regnamespace::text in ${sql(schemas)} order by 1, 2`;
    const sequences = await sql`select schemaname, sequencename, last_value from pg_sequences where schemaname in ${sql(schemas)} order by 1, 2`;
    const others = await sql`select n.nspname, c.relname, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ${sql(schemas)} and c.relkind not in ('r', 'i', 'S') order by 1, 2`;
    const tables = await sql<{ schema: string; name: string }[]>`select table_schema as schema, table_name as name from information_schema.tables
      where table_schema in ${sql(schemas)} and table_type = 'BASE TABLE' order by 1, 2`;
    const data: Record<string, unknown> = {};
    for (const { schema, name } of tables) data[`${schema}.${name}`] = await sql.unsafe(`select * from "${schema}"."${name}" order by 1`);
    return { columns, indexes, constraints, sequences, others, data };
  });
}

async function mysqlFingerprint(database: string): Promise<Fingerprint> {
  return withMysql(async (connection) => {
    const [tables] = (await connection.query(`select table_name as name, table_type as type from information_schema.tables where table_schema = ? order by 1`, [
      database,
    ])) as unknown as [{ name: string; type: string }[]];
    const definitions: Record<string, unknown> = {};
    const data: Record<string, unknown> = {};
    for (const { name } of tables) {
      const [[created]] = (await connection.query(`show create table \`${name}\``)) as unknown as [[Record<string, string>]];
      definitions[name] = created['Create Table'];
      [data[name]] = await connection.query(`select * from \`${name}\` order by 1`);
    }
    const [triggers] = await connection.query(`select trigger_name from information_schema.triggers where trigger_schema = ?`, [database]);
    const [routines] = await connection.query(`select routine_name from information_schema.routines where routine_schema = ?`, [database]);
    return { tables, definitions, data, triggers, routines };
  }, database);
}

const dialects: {
  name: string;
  /** Why its server cannot be used (a failure under CI=true, a skip otherwise). */
  problem: string | undefined;
  template: () => MigratedTemplate;
  /** A blank database, migrated by openStore as a dashboard's first start does. */
  migratedBlank: () => Promise<string>;
  fingerprint: (url: string) => Promise<Fingerprint>;
  /** Whether the database at `url` is still there. */
  exists: (url: string) => Promise<boolean>;
}[] = [
  {
    name: 'SQLite',
    problem: undefined,
    template: () => sqliteTemplate(migrationsDir),
    migratedBlank: async () => {
      const url = `file:${join(dir, String(++files), 'dashboard.db')}`;
      await (await openStore({ url, migrationsDir })).close();
      return url;
    },
    fingerprint: sqliteFingerprint,
    exists: (url) => Promise.resolve(existsSync(url.slice('file:'.length))),
  },
  {
    name: 'Postgres',
    problem: pgProblem && `CI=true needs Postgres at ${PG_SERVER}, which is unreachable: ${pgProblem}`,
    template: () => postgresTemplate(migrationsDir),
    migratedBlank: async () => {
      const database = await scratchPostgres();
      onTestFinished(() => database.drop());
      await (await openStore({ url: database.url, migrationsDir })).close();
      return database.url;
    },
    fingerprint: postgresFingerprint,
    exists: (url) =>
      withPostgres(`${PG_SERVER}/postgres`, async (sql) => (await sql`select 1 from pg_database where datname = ${new URL(url).pathname.slice(1)}`).length === 1),
  },
  {
    name: 'MySQL (MariaDB)',
    problem: myProblem && `CI=true needs MariaDB at ${MYSQL_SERVER}, which is unreachable: ${myProblem}`,
    template: () => mysqlTemplate(migrationsDir),
    migratedBlank: async () => {
      const database = await scratchMysql();
      onTestFinished(() => database.drop());
      await (await openStore({ url: database.url, migrationsDir })).close();
      return database.url;
    },
    fingerprint: (url) => mysqlFingerprint(new URL(url).pathname.slice(1)),
    exists: (url) =>
      withMysql(async (connection) => {
        const [rows] = await connection.query('select 1 from information_schema.schemata where schema_name = ?', [new URL(url).pathname.slice(1)]);
        return (rows as unknown[]).length === 1;
      }),
  },
];

describe.for(dialects)('a migrated template on $name', ({ problem, template: makeTemplate, migratedBlank, fingerprint, exists }) => {
  const skip = problem !== undefined && !inCI;
  const template = makeTemplate();
  beforeEach(() => {
    if (problem) throw new Error(problem);
  });
  afterAll(() => template.drop(), 60_000);

  it.skipIf(skip)('copies exactly what the migrations make on a blank database: the same tables, keys, checks and rows', async () => {
    const clone = await template.clone();
    onTestFinished(() => clone.drop());
    const blank = await migratedBlank();
    const copied = await fingerprint(clone.url);
    expect(copied).toEqual(await fingerprint(blank));
    // Not two empty answers: the journal of the migrations is there, a row per migration.
    expect(JSON.stringify(copied)).toContain('__drizzle_migrations');
    // And a store opened on it finds nothing left to migrate, and is empty.
    const store = await openStore({ url: clone.url, migrationsDir, migrate: false });
    onTestFinished(() => store.close());
    const migrated = await openStore({ url: blank, migrationsDir, migrate: false });
    onTestFinished(() => migrated.close());
    expect(await store.lastMigration()).toBe(await migrated.lastMigration());
    expect(await store.projects.list()).toEqual([]);
  });

  it.skipIf(skip)('gives each test a database of its own, and drops the copies and then itself', async () => {
    const [first, second] = [await template.clone(), await template.clone()];
    expect(first.url).not.toBe(second.url);
    const store = await openStore({ url: first.url, migrationsDir });
    try {
      await store.projects.create({ slug: 'mine', name: 'Mine' });
    } finally {
      await store.close();
    }
    const other = await openStore({ url: second.url, migrationsDir });
    try {
      expect(await other.projects.list()).toEqual([]);
    } finally {
      await other.close();
    }
    // A drop left running is waited for by the template's.
    void first.drop();
    await second.drop();
    expect(await exists(second.url)).toBe(false);
    // Another copy after the others were made: the template itself was never written to.
    const third = await template.clone();
    const fresh = await openStore({ url: third.url, migrationsDir });
    try {
      expect(await fresh.projects.list()).toEqual([]);
    } finally {
      await fresh.close();
    }
    await template.drop();
    expect(await exists(first.url)).toBe(false);
    // The third copy is its test's to drop.
    expect(await exists(third.url)).toBe(true);
    await third.drop();
    expect(await exists(third.url)).toBe(false);
  });
});
