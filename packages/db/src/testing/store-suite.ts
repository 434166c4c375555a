import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, beforeEach, describe, onTestFinished } from 'vitest';
import { openStore, type Store } from '../index.ts';
import { migratedEngines, type TestEngine } from '../testing.ts';
import { MYSQL_SERVER, PG_SERVER, scratchMysql, scratchPostgres, withMysql, withPostgres } from './servers.ts';
import type { MigratedTemplate } from './template.ts';

/** The store's tests on every engine (store*.test.ts): a database of its own for each test, and the store opened on it. */

export const migrationsDir = fileURLToPath(new URL('../../../../drizzle', import.meta.url));
const inCI = process.env.CI === 'true';

/** What a test of the store has on one engine: its database (a copy of the file's migrated template) and stores opened on it. */
export interface StoreUnderTest {
  dialect: Store['dialect'];
  /** The file's migrated template on this engine, which each test's database is a copy of. */
  template: MigratedTemplate;
  /** A store on the test's database, closed once the test ends. */
  open: () => Promise<Store>;
  /** The rows of a plain query on the test's database: what the store does not answer (claims, events). */
  query: (text: string) => Promise<Record<string, unknown>[]>;
  /** A store on the test's database with these projects. */
  withProjects: (...slugs: string[]) => Promise<Store>;
  /** Moves the test to a blank database (nothing migrated), for a test of the migrations themselves. */
  blank: () => Promise<void>;
}

/** Makes a database for one test; what it hands `after` runs once the test's stores are closed. */
type MakeDatabase = (after: (cleanup: () => void | Promise<void>) => void) => string | Promise<string>;

/** Each engine's describe: its name in the tests' names, its dialect, and for a server its name and its blank databases. */
const ENGINES: Record<string, { title: string; dialect: Store['dialect']; server?: { name: string; scratch: () => Promise<{ url: string; drop: () => Promise<void> }> } }> = {
  SQLite: { title: 'SQLite store', dialect: 'sqlite' },
  Postgres: { title: 'Postgres store', dialect: 'postgres', server: { name: `Postgres at ${PG_SERVER}`, scratch: scratchPostgres } },
  'MySQL (MariaDB)': { title: 'MySQL store (on MariaDB)', dialect: 'mysql', server: { name: `MariaDB at ${MYSQL_SERVER}`, scratch: scratchMysql } },
};

/**
 * Defines `tests` in a describe per engine, named as the store's tests always were ('SQLite store', 'Postgres store',
 * 'MySQL store (on MariaDB)'): every test starts from a migrated database of its own (a copy of a template the
 * migrations made once for the file, see MigratedTemplate). A server that does not answer skips its engine, and
 * fails it in CI. `what` names the tests in the warning about an unreachable server. Answers the engines.
 */
export async function describeStores(what: string, tests: (store: StoreUnderTest) => void): Promise<TestEngine[]> {
  const engines = await migratedEngines(migrationsDir, what);
  for (const { name, template, problem } of engines) {
    const engine = ENGINES[name];
    if (!engine) throw new Error(`describeStores knows no engine named ${name}`);
    describe.skipIf(problem !== undefined && !inCI)(engine.title, () => {
      beforeAll(() => {
        if (problem) throw new Error(`CI=true needs ${engine.server?.name ?? name}, which is unreachable: ${problem}`);
      });
      afterAll(() => template.drop(), 60_000);
      tests(storeUnderTest(engine.dialect, template, engine.server ? scratchOn(engine.server.scratch) : sqliteBlanks()));
    });
  }
  return engines;
}

/** Blank databases on a server: a scratch database each, dropped once the test's stores are closed. */
function scratchOn(scratch: () => Promise<{ url: string; drop: () => Promise<void> }>): MakeDatabase {
  return async (after) => {
    const database = await scratch();
    after(database.drop);
    return database.url;
  };
}

/** Blank SQLite databases, in a directory of the describe's that does not exist yet: openStore has to create it. */
function sqliteBlanks(): MakeDatabase {
  let dir = '';
  let count = 0;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-db-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return () => `file:${path.join(dir, String(++count), 'dashboard.db')}`;
}

/** The test's database and what it does with it, on one engine (called inside that engine's describe). */
function storeUnderTest(dialect: Store['dialect'], template: MigratedTemplate, blankDatabase: MakeDatabase): StoreUnderTest {
  let url = '';
  let after: (cleanup: () => void | Promise<void>) => void = () => {};
  beforeEach(async (context) => {
    // Registered before the test opens its stores: run after their closes (onTestFinished runs in reverse order).
    after = (cleanup) => context.onTestFinished(cleanup, 30_000);
    const database = await template.clone();
    // Dropped beside the next test; the template's drop waits for it.
    after(() => void database.drop());
    url = database.url;
  });

  async function open() {
    const store = await openStore({ url, migrationsDir });
    onTestFinished(() => store.close());
    return store;
  }

  async function query(text: string): Promise<Record<string, unknown>[]> {
    if (dialect === 'sqlite') {
      const client = createClient({ url });
      try {
        const { columns, rows } = await client.execute(text);
        return rows.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
      } finally {
        client.close();
      }
    }
    if (dialect === 'mysql') {
      const database = new URL(url).pathname.slice(1);
      return withMysql(async (connection) => {
        const [rows] = await connection.query(text);
        // Counts are bigints, which mysql2 answers as numbers here.
        return (rows as Record<string, unknown>[]).map((row) => ({ ...row }));
      }, database);
    }
    // Counts are bigints, which postgres.js answers as text.
    return withPostgres(url, async (sql) =>
      (await sql.unsafe(text)).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, k === 'n' ? Number(v) : v]))),
    );
  }

  async function withProjects(...slugs: string[]) {
    const store = await open();
    for (const slug of slugs) await store.projects.create({ slug, name: slug.toUpperCase() });
    return store;
  }

  async function blank() {
    url = await blankDatabase(after);
  }

  return { dialect, template, open, query, withProjects, blank };
}
