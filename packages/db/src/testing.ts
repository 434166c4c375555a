import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createClient } from '@libsql/client';
import { createConnection, type Connection } from 'mysql2/promise';
import postgres from 'postgres';
import { migrationStatements, openStore } from './index.ts';
import type { PushSubscriptionRow } from './store.ts';

/** The test Postgres: these machines run one on 127.0.0.1 with trust auth; CI starts it when it is not running. */
export const PG_SERVER = 'postgres://postgres@127.0.0.1:5432';
const quiet = { onnotice: () => {}, connect_timeout: 5 };

/** Why the test Postgres cannot be used, or undefined when it answers. */
export async function postgresProblem(): Promise<string | undefined> {
  const sql = postgres(`${PG_SERVER}/postgres`, { ...quiet, max: 1 });
  try {
    await sql`select 1`;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await sql.end();
  }
}

/** A database of its own on the test Postgres, for one test or suite; `drop` removes it (connections and all). */
export async function scratchPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `dash_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(`${PG_SERVER}/postgres`, { ...quiet, max: 1 });
  try {
    await admin`create database ${admin(name)}`;
  } finally {
    await admin.end();
  }
  return {
    url: `${PG_SERVER}/${name}`,
    async drop() {
      const sql = postgres(`${PG_SERVER}/postgres`, { ...quiet, max: 1 });
      try {
        await sql`drop database if exists ${sql(name)} with (force)`;
      } finally {
        await sql.end();
      }
    },
  };
}

/** Runs `work` with a plain connection to a test Postgres database (what a user's SQL editor would do), then closes it. */
export async function withPostgres<T>(url: string, work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { ...quiet, max: 1 });
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/** The test MariaDB standing in for PlanetScale (MySQL protocol): on 127.0.0.1 with root and no password; CI starts it. */
export const MYSQL_SERVER = 'mysql://root@127.0.0.1:3306';

/** Runs `work` with a plain connection to the test MariaDB (in `database` when given), then closes it. */
export async function withMysql<T>(work: (connection: Connection) => Promise<T>, database?: string): Promise<T> {
  const connection = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', connectTimeout: 5_000, ...(database ? { database } : {}) });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** Why the test MariaDB cannot be used, or undefined when it answers. */
export async function mysqlProblem(): Promise<string | undefined> {
  try {
    await withMysql((connection) => connection.query('select 1'));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A database of its own on the test MariaDB, for one test or suite; `drop` removes it. */
export async function scratchMysql(): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `dash_test_${randomBytes(6).toString('hex')}`;
  await withMysql((connection) => connection.query(`create database \`${name}\``));
  return {
    url: `${MYSQL_SERVER}/${name}`,
    name,
    drop: () => withMysql((connection) => connection.query(`drop database if exists \`${name}\``)).then(() => undefined),
  };
}

/** A fresh database for one test, holding what the migrations made and nothing else. */
export interface ClonedDatabase {
  url: string;
  /**
   * Gives it back once the test is done with it (once, however often called): dropped, or on Postgres emptied for a
   * later test. A test may leave this running rather than wait for it: its template's `drop` waits for it, and fails
   * with the first failure of any (this never fails).
   */
  drop: () => Promise<void>;
}

/**
 * A database migrated once, and copies of it: each test gets a database of its own that is exactly what the
 * migrations make, without running every migration again (seconds on Postgres and MySQL, where a test's own work
 * takes milliseconds; and MySQL's migrations wait for every other process's, their lock being per server). The
 * template is made on the first `clone`, under a name of its own (files and runs make theirs at once). While a test
 * runs, the next one's database is being made (a spare), and a test can leave its copy's `drop` running: the
 * server's work of making and dropping databases then passes beside the tests, not between them. `drop` removes
 * the template and every copy it made, once the file's tests are done. A test of the migrations themselves wants a
 * blank database instead (scratchPostgres, scratchMysql, a new file).
 */
export interface MigratedTemplate {
  clone(): Promise<ClonedDatabase>;
  drop(): Promise<void>;
}

/** A database a template made. */
interface Copy {
  url: string;
  drop(): Promise<void>;
}

/**
 * A MigratedTemplate over `make` (the template, made on the first clone), `copy` (a new database from it) and
 * `dropTemplate`. With `reset`, a copy given back is made what the migrations make again and handed to a later test
 * instead of being dropped (on Postgres, dropping and creating a database cost more than the test).
 */
function lazyTemplate<T>(
  make: () => Promise<T>,
  copy: (template: T) => Promise<Copy>,
  dropTemplate: (template: T) => Promise<void>,
  reset?: (copy: Copy) => Promise<void>,
) {
  let made: Promise<T> | undefined;
  const template = (): Promise<T> => (made ??= make());
  /** Every copy made and not dropped yet: what `drop` drops. */
  const kept = new Set<Copy>();
  /** The databases for the next tests, first come first served: a spare being made, or a copy being reset. */
  const ready: Promise<Copy>[] = [];
  /** Drops under way; and every failure of a drop, a reset or a spare, which `drop` reports. */
  const dropping = new Set<Promise<void>>();
  const failures: unknown[] = [];

  const newCopy = async (): Promise<Copy> => {
    const created = await copy(await template());
    kept.add(created);
    return created;
  };
  const dropCopy = (done: Copy): Promise<void> => {
    kept.delete(done);
    const drop = done.drop().catch((error: unknown) => void failures.push(error));
    dropping.add(drop);
    void drop.finally(() => dropping.delete(drop));
    return drop;
  };
  /** A database on its way to a later test; one that failed to be made is handed to no one: its failure is kept. */
  const queue = (coming: Promise<Copy>) => {
    ready.push(coming);
    coming.catch((error: unknown) => {
      failures.push(error);
      const at = ready.indexOf(coming);
      if (at >= 0) void ready.splice(at, 1);
    });
  };
  const giveBack = (used: Copy): Promise<void> => {
    if (!reset) return dropCopy(used);
    const again = reset(used).then(
      () => used,
      async (error: unknown) => {
        // A copy that could not be reset is dropped: the failure is reported, the next test gets a new copy.
        failures.push(error);
        await dropCopy(used);
        return newCopy();
      },
    );
    queue(again);
    // Its failure is the template's to report (see queue).
    return again.then(
      () => undefined,
      () => undefined,
    );
  };

  return {
    made: template,
    async clone(): Promise<ClonedDatabase> {
      const next = ready.shift() ?? newCopy();
      if (ready.length === 0) queue(newCopy());
      const copy = await next;
      let given: Promise<void> | undefined;
      return { url: copy.url, drop: () => (given ??= giveBack(copy)) };
    },
    async drop(): Promise<void> {
      await Promise.allSettled(ready.splice(0));
      await Promise.allSettled([...dropping]);
      // At once: on Postgres each drop waits for a checkpoint, which drops under way together share.
      await Promise.all([...kept].map(dropCopy));
      const pending = made;
      made = undefined;
      // A template that could not be made left nothing behind (its maker cleaned up).
      const madeTemplate = await pending?.catch(() => undefined);
      if (madeTemplate !== undefined) await dropTemplate(madeTemplate);
      const failed = failures.splice(0);
      if (failed.length > 0) throw failed[0];
    },
  };
}

const uniqueName = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

/** Migrates a new database at `url`, then closes every connection to it. */
async function migrateOnce(url: string, migrationsDir: string): Promise<void> {
  await (await openStore({ url, migrationsDir })).close();
}

/**
 * SQLite: the bytes of a migrated file, held in memory (nothing is left on disk to remove), written out for each clone.
 * `copyTo` writes a copy to a path of the caller's choosing (a dashboard's data directory), which must not hold a
 * database yet.
 */
export function sqliteTemplate(migrationsDir: string): MigratedTemplate & { copyTo(file: string): Promise<void> } {
  const template = lazyTemplate(
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dash-template-'));
      try {
        const url = `file:${join(dir, 'dashboard.db')}`;
        await migrateOnce(url, migrationsDir);
        // What the migrations wrote is in the write-ahead log until the last connection has closed, which libSQL does
        // a moment after close(): move it into the file now, so that the file alone is the whole database.
        const client = createClient({ url });
        try {
          const { rows } = await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
          if (rows[0]?.[0] !== 0) throw new Error(`The migrated template ${url} could not be checkpointed: ${JSON.stringify(rows)}`);
        } finally {
          client.close();
        }
        return await readFile(join(dir, 'dashboard.db'));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    async (bytes) => {
      const clone = await mkdtemp(join(tmpdir(), 'dash-clone-'));
      await writeInto(bytes, join(clone, 'dashboard.db'));
      return { url: `file:${join(clone, 'dashboard.db')}`, drop: () => rm(clone, { recursive: true, force: true }) };
    },
    () => Promise.resolve(),
  );
  async function writeInto(bytes: Buffer, file: string) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, bytes, { flag: 'wx' });
  }
  return {
    clone: () => template.clone(),
    drop: () => template.drop(),
    copyTo: async (file) => writeInto(await template.made(), file),
  };
}

/**
 * Postgres: a migrated database, copied by `create database … template` (which needs it to have no connections). A
 * copy given back is not dropped (a drop waits for a checkpoint of the whole server, and a copy writes some 8 MB)
 * but reset for a later test, in one transaction: its connections ended, its settings (`alter database … set`)
 * reset, every schema dropped, `public` made again as the template has it, and the migrations' SQL run
 * (migrationStatements, exactly what the migrator runs). testing.test.ts holds a reset copy, after a test wrote rows,
 * a schema, a function and a trigger and changed a setting, to be what the migrations make on a blank database.
 */
export function postgresTemplate(migrationsDir: string): MigratedTemplate {
  const admin = <T>(work: (sql: postgres.Sql) => Promise<T>) => withPostgres(`${PG_SERVER}/postgres`, work);
  let migrations: string[] | undefined;
  /** How a reset makes `public` again: as the template has it (its owner, comment and grants differ between versions). */
  let publicSchema: string[] = [];
  return lazyTemplate(
    async () => {
      const name = uniqueName('dash_template');
      await admin((sql) => sql`create database ${sql(name)}`);
      try {
        await migrateOnce(`${PG_SERVER}/${name}`, migrationsDir);
        const [schema] = await withPostgres(
          `${PG_SERVER}/${name}`,
          (sql) => sql<{ owner: string; comment: string | null; grants: string | null }[]>`
            select nspowner::regrole::text as owner, obj_description(oid, 'pg_namespace') as comment,
              (select string_agg(privilege_type, ', ') from aclexplode(nspacl) where grantee = 0) as grants
            from pg_namespace where nspname = 'public'`,
        );
        if (!schema) throw new Error(`The migrated template ${name} has no public schema`);
        publicSchema = [
          `CREATE SCHEMA public AUTHORIZATION "${schema.owner}";`,
          ...(schema.comment === null ? [] : [`COMMENT ON SCHEMA public IS '${schema.comment.replaceAll("'", "''")}';`]),
          ...(schema.grants === null ? [] : [`GRANT ${schema.grants} ON SCHEMA public TO PUBLIC;`]),
        ];
      } catch (error) {
        await admin((sql) => sql`drop database if exists ${sql(name)} with (force)`);
        throw error;
      }
      return name;
    },
    async (template) => {
      const name = uniqueName('dash_test');
      await admin((sql) => sql`create database ${sql(name)} template ${sql(template)}`);
      return {
        url: `${PG_SERVER}/${name}`,
        drop: () => admin((sql) => sql`drop database if exists ${sql(name)} with (force)`).then(() => undefined),
      };
    },
    (template) => admin((sql) => sql`drop database if exists ${sql(template)} with (force)`).then(() => undefined),
    async ({ url }) => {
      const name = new URL(url).pathname.slice(1);
      // What a test left connected (a store it did not close, a poller) goes, as a drop with (force) would end it.
      await admin((sql) => sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name}`);
      migrations ??= migrationStatements('postgres', migrationsDir, undefined).filter((statement) => statement !== 'BEGIN;' && statement !== 'COMMIT;');
      await withPostgres(url, (sql) =>
        sql.unsafe(
          [
            'BEGIN;',
            `ALTER DATABASE "${name}" RESET ALL;`,
            `DO $$ DECLARE s name; BEGIN
               FOR s IN SELECT nspname FROM pg_namespace
                 WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\\_toast%' AND nspname NOT LIKE 'pg\\_temp%'
               LOOP EXECUTE format('DROP SCHEMA %I CASCADE', s); END LOOP;
             END $$;`,
            ...publicSchema,
            ...(migrations ?? []),
            'COMMIT;',
          ].join('\n'),
        ),
      );
    },
  );
}

/**
 * MySQL has no database templates: a clone is the template's tables made again `like` theirs (columns, keys, checks),
 * with the rows the migrations wrote (the migrations' journal, seeds), in one round trip. A template with anything a
 * table copy would miss (a view, a trigger, a routine, an event) is refused rather than copied in part.
 */
export function mysqlTemplate(migrationsDir: string): MigratedTemplate {
  const admin = async <T>(work: (connection: Connection) => Promise<T>): Promise<T> => {
    const connection = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', connectTimeout: 5_000, multipleStatements: true });
    try {
      return await work(connection);
    } finally {
      await connection.end();
    }
  };
  const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``;
  return lazyTemplate(
    async () => {
      const name = uniqueName('dash_template');
      await admin((connection) => connection.query(`create database ${quote(name)}`));
      try {
        await migrateOnce(`${MYSQL_SERVER}/${name}`, migrationsDir);
        return await admin(async (connection) => {
          const [others] = await connection.query(
            `select 'view' as kind, table_name as name from information_schema.views where table_schema = ?
             union all select 'trigger', trigger_name from information_schema.triggers where trigger_schema = ?
             union all select 'routine', routine_name from information_schema.routines where routine_schema = ?
             union all select 'event', event_name from information_schema.events where event_schema = ?`,
            [name, name, name, name],
          );
          const found = (others as { kind: string; name: string }[]).map((other) => `${other.kind} ${other.name}`);
          if (found.length > 0) throw new Error(`mysqlTemplate copies tables only, and the migrations made ${found.join(', ')}: copy those too`);
          const [rows] = await connection.query(`select table_name as name from information_schema.tables where table_schema = ? and table_type = 'BASE TABLE'`, [name]);
          const tables = (rows as { name: string }[]).map((row) => row.name).sort();
          const filled: string[] = [];
          for (const table of tables) {
            const [[count]] = (await connection.query(`select count(*) as n from ${quote(name)}.${quote(table)}`)) as unknown as [[{ n: number }]];
            if (Number(count.n) > 0) filled.push(table);
          }
          return { name, tables, filled };
        });
      } catch (error) {
        await admin((connection) => connection.query(`drop database if exists ${quote(name)}`));
        throw error;
      }
    },
    async (template) => {
      const name = uniqueName('dash_test');
      const drop = () => admin((connection) => connection.query(`drop database if exists ${quote(name)}`)).then(() => undefined);
      const statements = [
        `create database ${quote(name)}`,
        ...template.tables.map((table) => `create table ${quote(name)}.${quote(table)} like ${quote(template.name)}.${quote(table)}`),
        ...template.filled.map((table) => `insert into ${quote(name)}.${quote(table)} select * from ${quote(template.name)}.${quote(table)}`),
      ];
      try {
        await admin((connection) => connection.query(statements.map((statement) => `${statement};`).join('\n')));
      } catch (error) {
        await drop();
        throw error;
      }
      return { url: `${MYSQL_SERVER}/${name}`, drop };
    },
    (template) => admin((connection) => connection.query(`drop database if exists ${quote(template.name)}`)).then(() => undefined),
  );
}

/** A Web Push device's row for a test: `id` names it and makes its endpoint and keys; `over` sets anything else. */
export function pushDeviceRow(id: string, over: Partial<PushSubscriptionRow> = {}): PushSubscriptionRow {
  return {
    id,
    name: `Phone ${id}`,
    browser: 'Firefox',
    endpoint: `https://updates.push.services.mozilla.com/wpush/v2/${id}`,
    sealedKeys: `v1.sealed-${id}`,
    expirationTime: null,
    createdAt: 1_000,
    lastSuccessAt: null,
    lastFailureAt: null,
    lastFailure: null,
    removedAt: null,
    ...over,
  };
}
