import { getTableColumns, getTableName, is, sql, Table, type Column, type SQL } from 'drizzle-orm';
import { dumpTableNames, type DumpTableName, type DumpTables } from '@dash/contracts';
import { chunked } from './dialects.ts';
import { isoOf } from './instants.ts';

/**
 * Moving every stored row out of a store and into another (an export, an import, a copy on a database switch),
 * the same for every dialect: each dialect supplies its tables and a handful of statements inside one transaction.
 * Rows travel as contracts' `DumpTables` have them: drizzle's property names, instants as ISO 8601 text, ms
 * instants as numbers, JSON columns parsed (and JSON kept in text columns as that text).
 */

export type TableCounts = Record<DumpTableName, number>;

/** Each dumped table of a dialect's schema module, by its SQL name. */
export function dumpTablesOf(schema: Record<string, unknown>): Record<DumpTableName, Table> {
  const byName = new Map<string, Table>();
  for (const value of Object.values(schema)) if (is(value, Table)) byName.set(getTableName(value), value);
  return Object.fromEntries(
    dumpTableNames.map((name) => {
      const table = byName.get(name);
      if (!table) throw new Error(`The schema has no table "${name}" to dump`);
      return [name, table];
    }),
  ) as Record<DumpTableName, Table>;
}

/** What a dialect does for a transfer, inside the transaction it runs the transfer in. */
export interface TransferOps {
  select(table: Table): Promise<Record<string, unknown>[]>;
  /** The one row a statement answers (the counts' `select (select count(*) …) as c0, …`). */
  row(query: SQL): Promise<Record<string, unknown> | undefined>;
  deleteAll(table: Table): Promise<void>;
  /** At most `INSERT_ROWS` rows, every column's key present. */
  insert(table: Table, rows: Record<string, unknown>[]): Promise<void>;
  /** Makes the notifications' sequence hand out values above `seq` from now on (it never moves back). */
  advanceSeq(seq: number): Promise<void>;
}

/**
 * Postgres's instant columns answer in its own text form (`2026-11-23 10:00:00+00`); SQLite and MySQL keep the ISO
 * text the store wrote. Every dialect takes ISO text on the way in.
 */
const isPgInstant = (column: Column) => column.columnType === 'PgTimestampString';

/** The columns a dump carries: not the generated ones (MySQL's open-subject key), which the database derives. */
const stored = (columns: Record<string, Column>) => Object.entries(columns).filter(([, column]) => !column.generated);

/** A row as a dialect read it, as the dump carries it. */
function neutral(columns: Record<string, Column>, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, column] of stored(columns)) {
    const value = row[key];
    if (value === null || value === undefined) out[key] = null;
    else if (isPgInstant(column)) out[key] = isoOf(value as string);
    else if (typeof value === 'bigint') out[key] = Number(value);
    else if (column.dataType === 'number' && typeof value === 'string') out[key] = Number(value);
    else out[key] = value;
  }
  return out;
}

/** Primary keys in one order whatever the engine's collation: numbers by value, text by code unit. */
const compareKeys = (a: unknown, b: unknown) =>
  typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;

export async function dumpRows(tables: Record<DumpTableName, Table>, ops: TransferOps): Promise<Required<DumpTables>> {
  const dump: Record<string, unknown[]> = {};
  for (const name of dumpTableNames) {
    const table = tables[name];
    const columns = getTableColumns(table) as Record<string, Column>;
    // In primary-key order, the same on every engine (each would otherwise answer in its own storage order). A table
    // whose key spans columns (metric_points: project, metric, date) declares them first: its rows go in column order.
    const primary = Object.entries(columns).find(([, column]) => column.primary)?.[0];
    const keys = primary === undefined ? stored(columns).map(([key]) => key) : [primary];
    const rows = (await ops.select(table)).map((row) => neutral(columns, row));
    rows.sort((a, b) => {
      for (const key of keys) {
        const order = compareKeys(a[key], b[key]);
        if (order !== 0) return order;
      }
      return 0;
    });
    dump[name] = rows;
  }
  return dump as Required<DumpTables>;
}

/** Every table's count in one statement: one round trip to a remote database, not one per table. */
export async function countRows(tables: Record<DumpTableName, Table>, ops: TransferOps): Promise<TableCounts> {
  const columns = dumpTableNames.map((name, index) => sql`(select count(*) from ${tables[name]}) as ${sql.identifier(`c${index}`)}`);
  const row = (await ops.row(sql`select ${sql.join(columns, sql`, `)}`)) ?? {};
  return Object.fromEntries(dumpTableNames.map((name, index) => [name, Number(row[`c${index}`] ?? 0)])) as TableCounts;
}

/** How much text one insert carries at most (more only when one row alone has more): a few MB of MySQL's 16 MB packet. */
export const INSERT_TEXT = 4 * 1024 * 1024;

/**
 * `rows` in runs whose string values add up to at most `limit` characters each (a row over it goes alone), so that a
 * wide insert of webhook bodies stays under MySQL's packet (16 MB by default on MariaDB; a character is 3 bytes at most).
 */
export function textRuns<T extends object>(rows: readonly T[], limit = INSERT_TEXT): T[][] {
  const runs: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const row of rows) {
    let length = 0;
    for (const value of Object.values(row)) if (typeof value === 'string') length += value.length;
    if (current.length > 0 && size + length > limit) {
      runs.push(current);
      current = [];
      size = 0;
    }
    current.push(row);
    size += length;
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/**
 * Replaces the rows of each table `dump` names with its rows; the tables it leaves out keep theirs. Then the sequence
 * moves past every restored seq.
 */
export async function restoreRows(
  tables: Record<DumpTableName, Table>,
  dump: DumpTables,
  ops: TransferOps,
): Promise<void> {
  let highestSeq = 0;
  for (const name of dumpTableNames) {
    const rows = dump[name] as Record<string, unknown>[] | undefined;
    if (rows === undefined) continue;
    const table = tables[name];
    const columns = getTableColumns(table) as Record<string, Column>;
    await ops.deleteAll(table);
    // Every stored column's key present (absent ones written as null), the generated ones left to the database.
    const values = rows.map((row) => Object.fromEntries(stored(columns).map(([key]) => [key, row[key] ?? null])));
    // The ingest's chunk: well under every engine's limit of bound parameters; and under MySQL's packet, which 250
    // webhook bodies of 256 KB would pass.
    for (const slice of chunked(values)) for (const part of textRuns(slice)) await ops.insert(table, part);
    for (const row of rows) if (typeof row.seq === 'number') highestSeq = Math.max(highestSeq, row.seq);
  }
  if (highestSeq > 0) await ops.advanceSeq(highestSeq);
}
