import { getTableColumns, getTableName, sql, type Column, type SQL, type Table } from 'drizzle-orm';

/**
 * What raw statements need to know of each dialect's SQL (placeholders, quoting, upserts), the multi-row insert built
 * from it, and how many rows a statement takes at once.
 */

/** A statement as text with its parameters, run as it is (drizzle builds nothing). */
export interface RawStatement {
  sql: string;
  params: unknown[];
}

/** A raw statement whose parameters are `?` (SQLite's, MySQL's) as drizzle SQL: each `?` becomes a bound parameter. */
export const rawSql = ({ sql: text, params }: RawStatement): SQL =>
  sql.join(text.split('?').map((part, index) => (index === 0 ? sql.raw(part) : sql`${params[index - 1]}${sql.raw(part)}`)));

/** How a dialect spells the parameter at `index` (from 0). */
export type Placeholder = (index: number) => string;

/** What the raw statements (the ingest's wide inserts, the outbox) need to know of a dialect's SQL. */
export interface SqlDialect {
  placeholder: Placeholder;
  /** An identifier as the dialect quotes it: `"until"`, or MySQL's `` `until` ``. */
  quote: (name: string) => string;
  /** The tail of an insert that updates `columns` of the row whose key the new one collides with. */
  upsert: (key: string, columns: readonly string[]) => string;
}

const standardUpsert = (key: string, columns: readonly string[]) =>
  `on conflict (${key}) do update set ${columns.map((column) => `${column} = excluded.${column}`).join(', ')}`;
export const sqliteDialect: SqlDialect = { placeholder: () => '?', quote: (name) => `"${name}"`, upsert: standardUpsert };
export const pgDialect: SqlDialect = { placeholder: (index) => `$${index + 1}`, quote: (name) => `"${name}"`, upsert: standardUpsert };
/** MariaDB lacks MySQL 8's row alias (`as new`), so the upsert reads the colliding row with `values()`. */
export const mysqlDialect: SqlDialect = {
  placeholder: () => '?',
  quote: (name) => `\`${name}\``,
  upsert: (_key, columns) => `on duplicate key update ${columns.map((column) => `${column} = values(${column})`).join(', ')}`,
};

/**
 * Rows (or keys) per statement of an ingest or a restore: with the widest table's 19 columns, 4,750 bound parameters,
 * well under SQLite's limit (32,766) and Postgres's and MySQL's (65,535).
 */
export const INGEST_CHUNK = 250;

/** `items` in slices of at most `size`. */
export function chunked<T>(items: readonly T[], size = INGEST_CHUNK): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += size) slices.push(items.slice(i, i + size));
  return slices;
}

/** Recent texts of `insertStatement`, by table, row count, tail and placeholder style (at most a few dozen, tens of kB each). */
const insertTexts = new Map<string, string>();
const INSERT_TEXTS_KEPT = 64;

/**
 * One multi-row `insert into <table> (<every column>) values (…), (…) <tail>` of `rows` (which hold every column's
 * key; undefined writes null), its parameters row by row in the table's column order. The ingest's wide writes go
 * this way: drizzle's builder spends more per value than the database does.
 */
export function insertStatement(table: Table, rows: readonly object[], dialect: SqlDialect, tail = ''): RawStatement {
  // A generated column (MySQL's open-subject key) is the database's to write.
  const columns = Object.entries(getTableColumns(table) as Record<string, Column>).filter(([, column]) => !column.generated);
  const { placeholder, quote } = dialect;
  const key = `${getTableName(table)}\0${rows.length}\0${quote('')}${placeholder(1)}\0${tail}`;
  let text = insertTexts.get(key);
  if (text === undefined) {
    let index = 0;
    const tuples = rows.map(() => `(${columns.map(() => placeholder(index++)).join(', ')})`);
    text = `insert into ${quote(getTableName(table))} (${columns.map(([, column]) => quote(column.name)).join(', ')}) values ${tuples.join(', ')}${tail && ` ${tail}`}`;
    if (insertTexts.size >= INSERT_TEXTS_KEPT) insertTexts.clear();
    insertTexts.set(key, text);
  }
  const params: unknown[] = [];
  for (const row of rows) for (const [name] of columns) params.push((row as Record<string, unknown>)[name] ?? null);
  return { sql: text, params };
}
