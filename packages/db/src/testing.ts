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
 * instead of being dropped (dropping and creating a database cost more than the test); a reset that answers false
 * turns the copy down, and it is dropped.
 */
function lazyTemplate<T>(
  make: () => Promise<T>,
  copy: (template: T) => Promise<Copy>,
  dropTemplate: (template: T) => Promise<void>,
  reset?: (copy: Copy) => Promise<boolean | void>,
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
      async (reused) => {
        // A copy its reset turned down (a test changed more than rows) goes; the next test gets a new one.
        if (reused !== false) return used;
        await dropCopy(used);
        return newCopy();
      },
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
 * reset, and then, when its catalog is still the template's (`catalogSignature`: what most tests leave, only rows),
 * its rows: every table emptied, the migrations' rows put back and each sequence set where the template has it;
 * otherwise every schema dropped, `public` made again as the template has it, and the migrations' SQL run
 * (migrationStatements, exactly what the migrator runs). The first is a few statements, the second some 40 tables,
 * their keys and indexes made again (about 0.17 CPU-s of the server's, and seconds on a loaded machine, for each of
 * the ~140 Postgres tests of the unit project). testing.test.ts holds a copy reset each way, after a test wrote
 * rows, or rows, a schema, a function and a trigger and a setting, to be what the migrations make on a blank database.
 */
export function postgresTemplate(migrationsDir: string): MigratedTemplate {
  const admin = <T>(work: (sql: postgres.Sql) => Promise<T>) => withPostgres(`${PG_SERVER}/postgres`, work);
  let migrations: string[] | undefined;
  /** How a reset makes `public` again: as the template has it (its owner, comment and grants differ between versions). */
  let publicSchema: string[] = [];
  /** The template's catalog signature, and how a copy with that catalog gets the template's rows back. */
  let pristine: { signature: string; restore: string } | undefined;
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
        pristine = await withPostgres(`${PG_SERVER}/${name}`, pristineOf);
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
      await withPostgres(url, async (sql) => {
        // Only rows written (the catalog as the template's): the rows go and the template's come back.
        if (pristine && (await catalogSignature(sql)) === pristine.signature) {
          await sql.unsafe(['BEGIN;', `ALTER DATABASE "${name}" RESET ALL;`, pristine.restore, 'COMMIT;'].join('\n'));
          return;
        }
        migrations ??= migrationStatements('postgres', migrationsDir, undefined).filter((statement) => statement !== 'BEGIN;' && statement !== 'COMMIT;');
        await sql.unsafe(
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
        );
      });
    },
  );
}

/** Where a test's own objects may be: every schema but the server's. */
const USER_SCHEMAS = `n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`;

/**
 * A digest of everything in a Postgres database that is not rows: schemas, tables and views (their columns, defaults,
 * keys, checks, indexes, grants, comments, row security), sequences' definitions, types, functions, triggers, rules,
 * policies, extensions, casts, event triggers, large objects and the other namespaced objects. By name, never by
 * oid, so a copy made again by the migrations has the template's. Two databases with one signature differ only in
 * their rows, their sequences' positions and their settings, which a reset restores (see postgresTemplate).
 */
async function catalogSignature(sql: postgres.Sql): Promise<string> {
  const [row] = await sql.unsafe<{ signature: string }[]>(`
    select md5(coalesce(string_agg(line, E'\n' order by line), '')) as signature from (
      select concat_ws(' ', 'schema', n.nspname, n.nspowner::regrole::text, n.nspacl::text, obj_description(n.oid, 'pg_namespace')) as line
        from pg_namespace n where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'relation', c.oid::regclass::text, c.relkind, c.relpersistence, c.relowner::regrole::text, c.relacl::text,
          c.relrowsecurity, c.relforcerowsecurity, c.reloptions::text, obj_description(c.oid, 'pg_class'),
          case when c.relkind in ('v', 'm') then pg_get_viewdef(c.oid) end)
        from pg_class c join pg_namespace n on n.oid = c.relnamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'column', a.attrelid::regclass::text, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
          a.attisdropped, a.attidentity, a.attgenerated, a.attcollation, a.attacl::text, pg_get_expr(d.adbin, d.adrelid), col_description(a.attrelid, a.attnum))
        from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where ${USER_SCHEMAS} and a.attnum > 0
      union all select concat_ws(' ', 'constraint', co.conrelid::regclass::text, co.contypid::regtype::text, co.conname, pg_get_constraintdef(co.oid))
        from pg_constraint co join pg_namespace n on n.oid = co.connamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'index', pg_get_indexdef(i.indexrelid))
        from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'sequence', s.seqrelid::regclass::text, s.seqtypid::regtype::text, s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle)
        from pg_sequence s
      union all select concat_ws(' ', 'type', t.oid::regtype::text, t.typtype, t.typowner::regrole::text,
          (select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid))
        from pg_type t join pg_namespace n on n.oid = t.typnamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'routine', p.oid::regprocedure::text, p.prokind, p.prorettype::regtype::text, p.prosecdef, p.provolatile, p.proacl::text, md5(p.prosrc))
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'trigger', t.tgrelid::regclass::text, t.tgenabled, pg_get_triggerdef(t.oid)) from pg_trigger t where not t.tgisinternal
      union all select concat_ws(' ', 'rule', r.ev_class::regclass::text, r.rulename, pg_get_ruledef(r.oid)) from pg_rewrite r
        join pg_class c on c.oid = r.ev_class join pg_namespace n on n.oid = c.relnamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'policy', p.polrelid::regclass::text, p.polname, p.polcmd, p.polpermissive, p.polroles::text,
          pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)) from pg_policy p
      union all select concat_ws(' ', 'extension', extname, extversion) from pg_extension
      union all select concat_ws(' ', 'cast', castsource::regtype::text, casttarget::regtype::text, castcontext, castmethod) from pg_cast where oid >= 16384
      union all select concat_ws(' ', 'event trigger', evtname, evtevent, evtenabled) from pg_event_trigger
      union all select concat_ws(' ', 'large object', count(*)) from pg_largeobject_metadata
      union all select concat_ws(' ', 'default acl', defaclrole::regrole::text, defaclnamespace, defaclobjtype, defaclacl::text) from pg_default_acl
      union all select concat_ws(' ', 'statistics', n.nspname, s.stxname) from pg_statistic_ext s join pg_namespace n on n.oid = s.stxnamespace
      union all select concat_ws(' ', 'operator', n.nspname, o.oprname) from pg_operator o join pg_namespace n on n.oid = o.oprnamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'collation', n.nspname, c.collname) from pg_collation c join pg_namespace n on n.oid = c.collnamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'text search', n.nspname, c.cfgname) from pg_ts_config c join pg_namespace n on n.oid = c.cfgnamespace where ${USER_SCHEMAS}
      union all select concat_ws(' ', 'publication', pubname) from pg_publication
      union all select concat_ws(' ', 'foreign server', srvname) from pg_foreign_server
    ) lines`);
  if (!row) throw new Error('The catalog signature query answered nothing');
  return row.signature;
}

/**
 * The template's catalog signature, and the SQL that gives a copy with that catalog the template's rows back: every
 * table emptied (triggers and foreign keys not fired: `session_replication_role`), the rows the migrations wrote put
 * back (their journal, seeds), each sequence set where the template has it.
 */
async function pristineOf(sql: postgres.Sql): Promise<{ signature: string; restore: string }> {
  const tables = await sql.unsafe<{ name: string }[]>(`
    select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where ${USER_SCHEMAS} and c.relkind in ('r', 'p') order by 1`);
  const restore = ['SET LOCAL session_replication_role = replica;', ...tables.map(({ name }) => `DELETE FROM ${name};`)];
  for (const { name } of tables) {
    const [{ rows } = { rows: null }] = await sql.unsafe<{ rows: string | null }[]>(`select json_agg(t)::text as rows from ${name} t`);
    if (rows === null) continue;
    const columns = await sql.unsafe<{ name: string }[]>(
      `select format('%I', attname) as name from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
      [name],
    );
    const list = columns.map((column) => column.name).join(', ');
    restore.push(`INSERT INTO ${name} (${list}) OVERRIDING SYSTEM VALUE SELECT ${list} FROM json_populate_recordset(null::${name}, ${quoteLiteral(rows)});`);
  }
  const sequences = await sql.unsafe<{ name: string; last_value: string; is_called: boolean }[]>(`
    select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where ${USER_SCHEMAS} and c.relkind = 'S' order by 1`);
  for (const { name } of sequences) {
    const [state] = await sql.unsafe<{ last_value: string; is_called: boolean }[]>(`select last_value::text, is_called from ${name}`);
    if (state) restore.push(`SELECT setval(${quoteLiteral(name)}, ${state.last_value}, ${state.is_called});`);
  }
  return { signature: await catalogSignature(sql), restore: restore.join('\n') };
}

/** A string as a Postgres literal (E'' style not needed: standard_conforming_strings is on since 9.1). */
const quoteLiteral = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * MySQL has no database templates: a clone is the template's tables made again `like` theirs (columns, keys, checks),
 * with the rows the migrations wrote (the migrations' journal, seeds), in one round trip. A template with anything a
 * table copy would miss (a view, a trigger, a routine, an event) is refused rather than copied in part. A copy given
 * back whose tables are still the template's (`mysqlSignature`: what most tests leave, only rows) is reset for a later
 * test: its connections ended, every table emptied, the migrations' rows copied back and each counter a test moved set
 * again, in one round trip (a new copy and a drop cost the server ~85 ms of CPU and half a second on a loaded machine, for each of
 * the ~140 MySQL tests of the unit project); any other is dropped, and the next test gets a new copy.
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
  /** Each table's AUTO_INCREMENT counter, by table name. */
  const countersOf = async (connection: Connection, database: string) => {
    const [rows] = await connection.query(`select table_name as name, auto_increment as counter from information_schema.tables where table_schema = ?`, [database]);
    return new Map((rows as { name: string; counter: number | null }[]).map((row) => [row.name, row.counter === null ? null : String(row.counter)]));
  };
  /** A new copy's counters (the first copy's), which a reset puts back where a test moved them. */
  let freshCounters: Promise<Map<string, string | null>> | undefined;
  const lazy = lazyTemplate(
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
          return { name, tables, filled, signature: await mysqlSignature(connection, name) };
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
        freshCounters ??= admin((connection) => countersOf(connection, name));
        await freshCounters;
      } catch (error) {
        await drop();
        throw error;
      }
      return { url: `${MYSQL_SERVER}/${name}`, drop };
    },
    (template) => admin((connection) => connection.query(`drop database if exists ${quote(template.name)}`)).then(() => undefined),
    async ({ url }) => {
      const name = new URL(url).pathname.slice(1);
      const made = await lazy.made();
      return admin(async (connection) => {
        // What a test left connected (a store it did not close) goes, as a drop would end it.
        const [left] = await connection.query(`select id from information_schema.processlist where db = ? and id <> connection_id()`, [name]);
        for (const { id } of left as { id: number }[]) await connection.query(`kill ${Number(id)}`).catch(() => undefined);
        // Not the template's tables any more: dropped, and the next test gets a new copy.
        if ((await mysqlSignature(connection, name)) !== made.signature) return false;
        // Only the counters a test moved are set again: an ALTER TABLE costs the server ~6 ms, a DELETE next to nothing.
        const [now, fresh] = await Promise.all([countersOf(connection, name), freshCounters]);
        const moved = made.tables.filter((table) => now.get(table) !== fresh?.get(table));
        await connection.query(
          [
            'set foreign_key_checks = 0',
            ...made.tables.map((table) => `delete from ${quote(name)}.${quote(table)}`),
            ...made.filled.map((table) => `insert into ${quote(name)}.${quote(table)} select * from ${quote(made.name)}.${quote(table)}`),
            // A counter goes back to the rows' highest + 1, as a new copy's is.
            ...moved.map((table) => `alter table ${quote(name)}.${quote(table)} auto_increment = 1`),
            'set foreign_key_checks = 1',
          ]
            .map((statement) => `${statement};`)
            .join('\n'),
        );
        return true;
      });
    },
  );
  return lazy;
}

/**
 * Everything in a MySQL database that is not rows, as text: its tables and their columns, keys, checks, references,
 * indexes and options, its triggers, routines, views and events, and its character set. By name within the database,
 * so a copy's is its template's as long as a test changed only rows.
 */
async function mysqlSignature(connection: Connection, database: string): Promise<string> {
  const parts = [
    `select concat_ws(' ', 'table', table_name, table_type, engine, row_format, table_collation, create_options, table_comment) as line from information_schema.tables where table_schema = ?`,
    `select concat_ws(' ', 'column', table_name, ordinal_position, column_name, column_type, is_nullable, ifnull(column_default, '<none>'), extra, collation_name, column_comment, generation_expression) from information_schema.columns where table_schema = ?`,
    `select concat_ws(' ', 'index', table_name, index_name, non_unique, seq_in_index, column_name, sub_part, index_type, collation) from information_schema.statistics where table_schema = ?`,
    `select concat_ws(' ', 'constraint', table_name, constraint_name, constraint_type) from information_schema.table_constraints where constraint_schema = ?`,
    `select concat_ws(' ', 'check', table_name, constraint_name, check_clause) from information_schema.check_constraints where constraint_schema = ?`,
    `select concat_ws(' ', 'reference', table_name, constraint_name, referenced_table_name, update_rule, delete_rule) from information_schema.referential_constraints where constraint_schema = ?`,
    `select concat_ws(' ', 'key', table_name, constraint_name, column_name, ordinal_position, referenced_table_name, referenced_column_name) from information_schema.key_column_usage where table_schema = ?`,
    `select concat_ws(' ', 'trigger', trigger_name) from information_schema.triggers where trigger_schema = ?`,
    `select concat_ws(' ', 'routine', routine_name) from information_schema.routines where routine_schema = ?`,
    `select concat_ws(' ', 'view', table_name) from information_schema.views where table_schema = ?`,
    `select concat_ws(' ', 'event', event_name) from information_schema.events where event_schema = ?`,
    `select concat_ws(' ', 'schema', default_character_set_name, default_collation_name) from information_schema.schemata where schema_name = ?`,
  ];
  const [rows] = await connection.query(parts.join(' union all '), parts.map(() => database));
  return (rows as { line: string }[])
    .map((row) => row.line)
    .sort()
    .join('\n');
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

/** One engine a test file runs on: its template (migrated once for the file), and what keeps it from running, if anything. */
export interface TestEngine {
  name: string;
  template: MigratedTemplate;
  problem: string | undefined;
}

/**
 * SQLite, Postgres and MariaDB, each with a template the migrations make once for the file; an unreachable server is
 * named (and, outside CI, warned about with `what` it keeps from running). The file drops the templates after all.
 */
export async function migratedEngines(migrationsDir: string, what: string): Promise<TestEngine[]> {
  const inCI = process.env.CI === 'true';
  const [pgProblem, myProblem] = await Promise.all([postgresProblem(), mysqlProblem()]);
  if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): ${what} does not run on it. ***\n`);
  if (myProblem && !inCI) console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): ${what} does not run on MySQL. ***\n`);
  return [
    { name: 'SQLite', template: sqliteTemplate(migrationsDir), problem: undefined },
    { name: 'Postgres', template: postgresTemplate(migrationsDir), problem: pgProblem },
    { name: 'MySQL (MariaDB)', template: mysqlTemplate(migrationsDir), problem: myProblem },
  ];
}
