import { createConnection, type Connection } from 'mysql2/promise';
import { MYSQL_SERVER } from './servers.ts';
import type { MysqlTemplateMade } from './template-made.ts';
import { runTemplate } from './run-template.ts';
import { lazyTemplate, migrateOnce, uniqueName, type MigratedTemplate } from './template.ts';

/** MySQL's template: a migrated database whose tables are made again `like` theirs for each test, and a copy reset for a later test. */

/**
 * MySQL has no database templates: a clone is the template's tables made again `like` theirs (columns, keys, checks),
 * with the rows the migrations wrote (the migrations' journal, seeds), in one round trip. A template with anything a
 * table copy would miss (a view, a trigger, a routine, an event) is refused rather than copied in part. A copy given
 * back whose tables are still the template's (`mysqlSignature`: what most tests leave, only rows) is reset for a later
 * test: its connections ended, every table emptied, the migrations' rows copied back and each counter a test moved set
 * again, in one round trip (a new copy and a drop cost the server ~85 ms of CPU and half a second on a loaded machine, for each of
 * the ~140 MySQL tests of the unit project); any other is dropped, and the next test gets a new copy.
 */
export function mysqlTemplate(migrationsDir: string, shared = runTemplate('mysql', migrationsDir)): MigratedTemplate {
  /** Each table's AUTO_INCREMENT counter, by table name. */
  const countersOf = async (connection: Connection, database: string) => {
    const [rows] = await connection.query(`select table_name as name, auto_increment as counter from information_schema.tables where table_schema = ?`, [database]);
    return new Map((rows as { name: string; counter: number | null }[]).map((row) => [row.name, row.counter === null ? null : String(row.counter)]));
  };
  /** A new copy's counters (the first copy's), which a reset puts back where a test moved them. */
  let freshCounters: Promise<Map<string, string | null>> | undefined;
  const lazy = lazyTemplate(
    // The run's (made once by the unit tests' global set-up), or the file's own; only the file's own is dropped after.
    async () => shared ?? (await makeMysqlTemplate(migrationsDir)),
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
    (template) => (shared ? Promise.resolve() : dropMysqlTemplate(template.name)),
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

/** Makes a database and runs the migrations on it, once; what it answers describes it (see MysqlTemplateMade). */
export async function makeMysqlTemplate(migrationsDir: string): Promise<MysqlTemplateMade> {
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
    await dropMysqlTemplate(name);
    throw error;
  }
}

export const dropMysqlTemplate = (name: string): Promise<void> => admin((connection) => connection.query(`drop database if exists ${quote(name)}`)).then(() => undefined);

/** A connection of the server's root, for `work` (several statements in one query allowed). */
async function admin<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', connectTimeout: 5_000, multipleStatements: true });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``;

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
