import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { drizzle as drizzleSqlite } from 'drizzle-orm/libsql';
import { migrate as migrateSqlite } from 'drizzle-orm/libsql/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/postgres-js';
import { migrate as migratePg } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { isLoopbackHost } from '@dash/contracts';
import { mysqlStore } from './mysql.ts';
import { pgStore } from './pg.ts';
import { BUSY_TIMEOUT_MS, queuedClient } from './sqlite-connections.ts';
import { sqliteStore } from './sqlite.ts';
import type { Store } from './store.ts';

export * from './store.ts';

export interface StoreOptions {
  /** `file:`, `libsql://`, `http(s)://`, `ws(s)://` (SQLite/libSQL), `postgres(ql)://` (Postgres) or `mysql://` (MySQL). */
  url: string;
  /** libSQL's token for a remote database. */
  authToken?: string;
  /** Holds the drizzle-kit migrations: `sqlite/` and `pg/`. */
  migrationsDir: string;
  /** False: open without migrating; the tables must be current already (a database whose SQL someone runs by hand). */
  migrate?: boolean;
  /** Postgres: prepared statements; off for a transaction-mode pooler (Supabase's on port 6543 has none). Default on. */
  prepare?: boolean;
  /** Postgres: TLS, as postgres.js's `ssl` (`'require'` encrypts without verifying); the URL's `sslmode` when absent. */
  ssl?: 'require' | false;
}

const sqliteSchemes = ['file:', 'libsql:', 'http:', 'https:', 'ws:', 'wss:'];
const postgresSchemes = ['postgres:', 'postgresql:'];

/** Connects to the database the URL names and brings its schema up to date. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const { url, authToken, migrationsDir, migrate = true } = options;
  // Only the scheme goes into the error: the rest of the URL may hold a password.
  const scheme = /^[a-z][a-z\d+.-]*:/i.exec(url)?.[0].toLowerCase() ?? '';
  if (postgresSchemes.includes(scheme)) return openPostgres(url, migrate ? join(migrationsDir, 'pg') : undefined, options);
  if (sqliteSchemes.includes(scheme)) return openSqlite(url, authToken, migrate ? join(migrationsDir, 'sqlite') : undefined);
  if (scheme === 'mysql:') return openMysql(url, migrate ? join(migrationsDir, 'mysql') : undefined);
  throw new Error(
    `Unsupported database URL scheme ${scheme ? `"${scheme}"` : '(none)'}: use file:, libsql://, http(s):// or ws(s):// ` +
      'for SQLite/libSQL, postgres:// or postgresql:// for Postgres, or mysql:// for MySQL',
  );
}

async function openSqlite(url: string, authToken: string | undefined, migrationsFolder: string | undefined): Promise<Store> {
  const local = url.toLowerCase().startsWith('file:');
  if (local) mkdirSync(dirname(filePath(url)), { recursive: true });
  const client = createClient({ url, authToken });
  // A local database gets a second connection for the store's read-then-write transactions (see writeTransactions in sqlite-connections.ts).
  let writer: Client | undefined;
  try {
    if (local) {
      // WAL lets readers run beside the writer; the timeout makes another process wait for the write lock
      // instead of failing with SQLITE_BUSY. The timeout comes first: switching to WAL takes a lock too, and
      // processes that open the file at the same instant (with no connection open yet) can meet there.
      await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      await client.execute('PRAGMA journal_mode = WAL');
    }
    // Stores of one file share the in-process queue however its URL is spelt.
    const lockKey = local ? `file:${resolve(filePath(url))}` : url;
    // Remote statements are not queued: they do not block this thread, and a queue would cost round trips.
    const db = drizzleSqlite(local ? queuedClient(client, lockKey) : client);
    if (migrationsFolder) await migrateSqlite(db, { migrationsFolder });
    if (local) {
      writer = createClient({ url });
      await writer.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
    return sqliteStore(db, { lockKey, writer: writer && drizzleSqlite(writer) });
  } catch (error) {
    client.close();
    writer?.close();
    throw error;
  }
}

/** The migrations' lock (an arbitrary number; Postgres advisory locks are per database, MySQL's named ones per server). */
const MIGRATIONS_LOCK = 4_610_993_183_517_283;

async function openPostgres(url: string, migrationsFolder: string | undefined, { prepare, ssl }: Pick<StoreOptions, 'prepare' | 'ssl'>): Promise<Store> {
  const client = postgres(url, {
    onnotice: () => {},
    ...(prepare === undefined ? {} : { prepare }),
    ...(ssl === undefined ? {} : { ssl }),
  });
  try {
    const db = drizzlePg(client);
    // Several processes starting at once on a fresh database: one migrates while the others wait in this lock (held
    // by a transaction, so a transaction-mode pooler keeps it on one connection), then find nothing left to do.
    if (migrationsFolder) await client.begin(async (lock) => {
      await lock`select pg_advisory_xact_lock(${MIGRATIONS_LOCK})`;
      await migratePg(db, { migrationsFolder });
    });
    return pgStore(db);
  } catch (error) {
    await client.end();
    throw error;
  }
}

/**
 * MySQL (PlanetScale) over mysql2: TLS with the server's certificate verified against the system's roots (PlanetScale
 * refuses plaintext), except on this machine (the tests' MariaDB has no TLS).
 */
async function openMysql(url: string, migrationsFolder: string | undefined): Promise<Store> {
  // Loaded only for a MySQL database, as most dashboards never open one (mysql2 is a tenth of the start-up's loading).
  const [{ createPool }, { drizzle: drizzleMysql }, { migrate: migrateMysql }] = await Promise.all([
    import('mysql2/promise'),
    import('drizzle-orm/mysql2'),
    import('drizzle-orm/mysql2/migrator'),
  ]);
  const parsed = new URL(url);
  const pool = createPool({
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.slice(1)) || undefined,
    ...(isLoopbackHost(parsed.hostname) ? {} : { ssl: { rejectUnauthorized: true } }),
    timezone: 'Z',
    connectionLimit: 5,
    connectTimeout: 10_000,
  });
  try {
    const db = drizzleMysql(pool);
    if (migrationsFolder) {
      // As on Postgres: one process migrates at a time, the others wait for its named lock (on a connection of its own).
      const lock = await pool.getConnection();
      try {
        await lock.query('select get_lock(?, 300)', [`dash:${MIGRATIONS_LOCK}`]);
        await migrateMysql(db, { migrationsFolder });
      } finally {
        await lock.query('select release_lock(?)', [`dash:${MIGRATIONS_LOCK}`]).catch(() => undefined);
        lock.release();
      }
    }
    return mysqlStore(db);
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** The path of a `file:` URL the way libSQL reads it: `file:relative.db`, `file:/abs.db` or `file:///abs.db`. */
function filePath(url: string): string {
  return decodeURIComponent(
    url
      .slice('file:'.length)
      .replace(/[?#].*$/s, '')
      .replace(/^\/\/[^/]*/, ''),
  );
}

/** The URL with its password and any `authToken`/`password` query parameter masked, for logs. */
export function redactDatabaseUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z\d+.-]*:\/\/[^/?#@:]*:)[^/?#]*@/i, '$1***@')
    .replace(/([?&](?:authToken|password)=)[^&#]*/gi, '$1***');
}
export { reachesConnection } from './channels.ts';
export { memoizeReads } from './memo.ts';
export { MetricAlertRuleError } from './metric-alerts.ts';
export { foldEvents } from './fold.ts';
export { migrationsOf, migrationStatements, tablesState } from './migrations.ts';
