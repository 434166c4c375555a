import { randomBytes } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';
import postgres from 'postgres';

/** The test Postgres and MariaDB servers: whether each answers, scratch databases on them, plain connections. */

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
