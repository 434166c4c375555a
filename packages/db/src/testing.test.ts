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
    const tables = schema.flatMap(({ type, name, sql }) => (type === 'table' && typeof name === 'string' ? [{ name, sql: typeof sql === 'string' ? sql : '' }] : []));
    // A WITHOUT ROWID table (metric_points) has no rowid to order by: it answers in its key's order.
    const order = (sql: string) => (/without rowid\s*$/i.test(sql) ? '' : ' order by rowid');
    const data = Object.fromEntries(await Promise.all(tables.map(async ({ name, sql }) => [name, await rows(`select * from "${name}"${order(sql)}`)] as const)));
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
    // What else a database holds: its schemas as they are owned, granted and described, the functions and triggers
    // in them, and its own settings (`alter database … set`).
    const namespaces = await sql`select nspname, nspowner::regrole::text as owner, nspacl::text as acl, obj_description(oid, 'pg_namespace') as comment
      from pg_namespace where nspname not like 'pg\_temp%' and nspname not like 'pg\_toast\_temp%' order by 1`;
    const routines = await sql`select n.nspname, p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname not in ('pg_catalog', 'information_schema') order by 1, 2`;
    const triggers = await sql`select tgrelid::regclass::text as on, tgname from pg_trigger where not tgisinternal order by 1, 2`;
    const settings = await sql`select setconfig from pg_db_role_setting where setdatabase = (select oid from pg_database where datname = current_database())`;
    return { columns, indexes, constraints, sequences, others, data, namespaces, routines, triggers, settings };
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
  /** What a test might leave in its database besides rows, done to the one at `url`. */
  mess: (url: string) => Promise<void>;
  /** Whether a copy given back after a test wrote rows goes to a later test (reset) rather than being dropped. */
  reuses: boolean;
  /** The same for a copy whose schema a test changed too (`mess`). */
  reusesChanged: boolean;
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
    mess: async (url) => {
      const client = createClient({ url });
      try {
        await client.execute('create table other (a integer)');
      } finally {
        client.close();
      }
    },
    reuses: false,
    reusesChanged: false,
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
    mess: (url) =>
      withPostgres(url, async (sql) => {
        // As store.test.ts and database-hosted.test.ts do: a setting of the database, a trigger that refuses rows.
        await sql`alter database ${sql(new URL(url).pathname.slice(1))} set default_transaction_isolation = 'repeatable read'`;
        await sql.unsafe(`create function refuse() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$;
          create trigger refuse before insert on credentials for each row execute function refuse();
          create schema other; create table other.t (a int); create sequence public.extra;
          revoke usage on schema public from public; comment on schema public is 'changed'`);
      }),
    reuses: true,
    reusesChanged: true,
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
    mess: (url) => withMysql((connection) => connection.query('create table other (a int)'), new URL(url).pathname.slice(1)).then(() => undefined),
    reuses: true,
    reusesChanged: false,
  },
];

describe.for(dialects)('a migrated template on $name', ({ problem, template: makeTemplate, migratedBlank, fingerprint, exists, mess, reuses, reusesChanged }) => {
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

  // Several databases created, cloned and dropped: DROP DATABASE waits for a checkpoint, which a machine busy with the
  // whole suite has made take over 20 s in all (the unit project's default).
  it.skipIf(skip)('gives each test a database of its own, which a later test gets back as the migrations make it, or dropped', async () => {
    const blank = await fingerprint(await migratedBlank());
    const [first, second] = [await template.clone(), await template.clone()];
    expect(first.url).not.toBe(second.url);
    const store = await openStore({ url: first.url, migrationsDir });
    try {
      await store.projects.create({ slug: 'mine', name: 'Mine' });
      await store.notifications.ingest(
        [
          {
            sourceEventId: 'github:1',
            integration: 'github',
            type: 'pr.merged',
            subjectKey: null,
            transition: null,
            severity: 'info',
            title: 'Merged',
            url: null,
            projectSlug: 'mine',
            occurredAt: '2026-11-23T10:00:00.000Z',
            receivedAt: '2026-11-23T10:00:00.000Z',
            relayEventId: null,
          },
        ],
        { now: '2026-11-23T10:00:00.000Z', dedupWindowMs: 60_000 },
      );
    } finally {
      await store.close();
    }
    await mess(first.url);
    expect(await fingerprint(second.url)).toEqual(blank);
    // Given back, once however often; a give-back left running is waited for by the template's drop.
    const givingBack = [first.drop(), first.drop()];
    await second.drop();
    // The next copies: a spare made meanwhile, then (where copies are reused) the two given back, each again exactly
    // what the migrations make: the rows, the schema, the function and trigger, the setting are gone.
    const later = [await template.clone(), await template.clone(), await template.clone()];
    for (const copy of later) expect(await fingerprint(copy.url)).toEqual(blank);
    const urls = later.map((copy) => copy.url);
    expect({ changed: urls.includes(first.url), clean: urls.includes(second.url) }).toEqual({ changed: reusesChanged, clean: reuses });
    // A copy that is not reused is gone once its give-back ends (not before: on a loaded machine the first's was still
    // running here).
    await Promise.all(givingBack);
    if (!reusesChanged) expect(await exists(first.url)).toBe(false);
    if (!reuses) expect(await exists(second.url)).toBe(false);
    // The template's drop removes every copy it made, given back or not, and the spare it was making.
    await template.drop();
    for (const url of [first.url, second.url, ...urls]) expect(await exists(url), url).toBe(false);
  }, 60_000);

  // Most tests write rows and nothing else: on Postgres their copy comes back by its rows alone (the catalog checked
  // against the template's), not by the migrations run again; the test above gives one back with a schema changed too.
  it.skipIf(skip)('gives a copy a test only wrote rows to back to a later test as the migrations make it, sequences and settings too', async () => {
    const blank = await fingerprint(await migratedBlank());
    const used = await template.clone();
    const store = await openStore({ url: used.url, migrationsDir });
    try {
      for (const slug of ['one', 'two', 'three']) await store.projects.create({ slug, name: slug });
      // Turns move a counter (MySQL's AUTO_INCREMENT, Postgres's sequence) that a new copy has at its start; SQLite's
      // store keeps no rate windows.
      const windows = store.rateWindows;
      if (windows) for (const now of [1_000, 2_000]) expect(await windows.take('revenue', 5, 60_000, now)).toHaveProperty('turn');
      await store.notifications.ingest(
        ['1', '2'].map((n) => ({
          sourceEventId: `github:${n}`,
          integration: 'github',
          type: 'pr.merged',
          subjectKey: null,
          transition: null,
          severity: 'info' as const,
          title: `Merged ${n}`,
          url: null,
          projectSlug: 'one',
          occurredAt: '2026-11-23T10:00:00.000Z',
          receivedAt: '2026-11-23T10:00:00.000Z',
          relayEventId: null,
        })),
        { now: '2026-11-23T10:00:00.000Z', dedupWindowMs: 60_000 },
      );
    } finally {
      await store.close();
    }
    expect(await fingerprint(used.url)).not.toEqual(blank);
    await used.drop();
    const later = [await template.clone(), await template.clone()];
    for (const copy of later) expect(await fingerprint(copy.url)).toEqual(blank);
    expect(later.some((copy) => copy.url === used.url)).toBe(reuses);
    await Promise.all(later.map((copy) => copy.drop()));
  }, 60_000);
});
