import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2/promise';
import { rawSql } from './dialects.ts';
import { hasErrno } from './driver-errors.ts';
import type { RunStatement } from './sql-rows.ts';

/**
 * The MySQL store's ways of running statements: through drizzle or straight on mysql2 (raw, in a transaction of a
 * pooled connection), how many rows a write changed, and a deadlock's victim run again.
 */

export type Db = MySql2Database & { $client: Pool };
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Queryable = Pick<Tx, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

/** How many rows a write changed (MySQL has no RETURNING: this is what `returning().length` is on the others). */
export const affected = (result: unknown) => (result as [ResultSetHeader])[0].affectedRows;

/**
 * Runs a statement of its own (no transaction around it) again when InnoDB chose it as a deadlock's victim
 * (ER_LOCK_DEADLOCK): it was rolled back whole, and running it again is MySQL's own advice. Concurrent inserts that
 * read the table they write meet in one: each holds a shared lock on the rows it read and waits to insert among them.
 */
export async function retriedOnDeadlock<T>(statement: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if (attempt === attempts || !hasErrno(error, 1213)) throw error;
      // A moment's jitter, so the statements that met do not meet again the same way.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

export const runOn =
  (q: Pick<Queryable, 'execute'>): RunStatement =>
  async (statement) => {
    const [rows] = (await q.execute(rawSql(statement))) as unknown as [Record<string, unknown>[] | ResultSetHeader];
    return Array.isArray(rows) ? rows : [];
  };

/**
 * Raw statements straight on a mysql2 connection (or the pool), for the metric history's wide ones: drizzle's builder
 * spends some 80 ms turning a 250-row insert's 2,000 parameters into SQL, the server 10 ms running it.
 */
export const driverRun =
  (q: Pick<PoolConnection, 'query'>): RunStatement =>
  async ({ sql: text, params }) => {
    const [rows] = await q.query(text, params);
    return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
  };

/** Runs `work` in a REPEATABLE READ transaction on a connection of the pool, its statements as `driverRun` runs them. */
export async function driverTransaction<T>(pool: Pool, work: (run: RunStatement) => Promise<T>): Promise<T> {
  const connection = await pool.getConnection();
  try {
    await connection.query('set transaction isolation level repeatable read');
    await connection.beginTransaction();
    try {
      const result = await work(driverRun(connection));
      await connection.commit();
      return result;
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw error;
    }
  } finally {
    connection.release();
  }
}
