import type postgres from 'postgres';
import { migrationStatements } from '../index.ts';
import { PG_SERVER, withPostgres } from './servers.ts';
import type { PostgresTemplateMade } from './template-made.ts';
import { runTemplate } from './run-template.ts';
import { lazyTemplate, migrateOnce, uniqueName, type MigratedTemplate } from './template.ts';

/** Postgres's template: a migrated database copied by `create database … template`, and a copy reset for a later test. */

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
export function postgresTemplate(migrationsDir: string, shared = runTemplate('postgres', migrationsDir)): MigratedTemplate {
  const admin = <T>(work: (sql: postgres.Sql) => Promise<T>) => withPostgres(`${PG_SERVER}/postgres`, work);
  let migrations: string[] | undefined;
  /** How a reset makes `public` again, and gives a copy with the template's catalog the template's rows back. */
  let made: PostgresTemplateMade | undefined;
  return lazyTemplate(
    async () => {
      // The run's (made once by the unit tests' global set-up), or the file's own; only the file's own is dropped after.
      made = shared ?? (await makePostgresTemplate(migrationsDir));
      return made.name;
    },
    async (template) => {
      const name = uniqueName('dash_test');
      await admin((sql) => sql`create database ${sql(name)} template ${sql(template)}`);
      return {
        url: `${PG_SERVER}/${name}`,
        drop: () => admin((sql) => sql`drop database if exists ${sql(name)} with (force)`).then(() => undefined),
      };
    },
    (template) => (shared ? Promise.resolve() : dropPostgresTemplate(template)),
    async ({ url }) => {
      const name = new URL(url).pathname.slice(1);
      // What a test left connected (a store it did not close, a poller) goes, as a drop with (force) would end it.
      await admin((sql) => sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name}`);
      await withPostgres(url, async (sql) => {
        // Only rows written (the catalog as the template's): the rows go and the template's come back.
        if (made && (await catalogSignature(sql)) === made.pristine.signature) {
          await sql.unsafe(['BEGIN;', `ALTER DATABASE "${name}" RESET ALL;`, made.pristine.restore, 'COMMIT;'].join('\n'));
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
            ...(made?.publicSchema ?? []),
            ...(migrations ?? []),
            'COMMIT;',
          ].join('\n'),
        );
      });
    },
  );
}

/** Makes a database and runs the migrations on it, once; what it answers describes it (see PostgresTemplateMade). */
export async function makePostgresTemplate(migrationsDir: string): Promise<PostgresTemplateMade> {
  const admin = <T>(work: (sql: postgres.Sql) => Promise<T>) => withPostgres(`${PG_SERVER}/postgres`, work);
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
    const publicSchema = [
      `CREATE SCHEMA public AUTHORIZATION "${schema.owner}";`,
      ...(schema.comment === null ? [] : [`COMMENT ON SCHEMA public IS '${schema.comment.replaceAll("'", "''")}';`]),
      ...(schema.grants === null ? [] : [`GRANT ${schema.grants} ON SCHEMA public TO PUBLIC;`]),
    ];
    return { name, publicSchema, pristine: await withPostgres(`${PG_SERVER}/${name}`, pristineOf) };
  } catch (error) {
    await dropPostgresTemplate(name);
    throw error;
  }
}

export const dropPostgresTemplate = (name: string): Promise<void> =>
  withPostgres(`${PG_SERVER}/postgres`, (sql) => sql`drop database if exists ${sql(name)} with (force)`).then(() => undefined);

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
