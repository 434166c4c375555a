import type { Client, InValue, ResultSet } from '@libsql/client';
import { sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { rawSql } from './dialects.ts';
import type { RunStatement } from './sql-rows.ts';

/**
 * The SQLite store's connections: the in-process queue every statement of a local file waits in, the write
 * transactions on the dedicated writer connection, and raw statements on either.
 */

/** How long a local connection waits for another process's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** The writer connection inside its BEGIN IMMEDIATE, or a libSQL transaction: what the notification writes run on. */
export type Queryable = BaseSQLiteDatabase<'async', ResultSet>;

/** A libSQL database as drizzle wraps it, with its client. */
export type SqliteDb = LibSQLDatabase & { $client: Client };

export interface SqliteStoreOptions {
  /** Names the database for the in-process queue: every store on one database in this process shares it. */
  lockKey: string;
  /**
   * For a local file: a second connection, with a busy timeout, on which the store runs its read-then-write
   * transactions (BEGIN IMMEDIATE … COMMIT) in the queue; `db`'s client must then be `queuedClient(…, lockKey)`.
   * Without it (a remote libSQL database) they use `db.transaction`.
   */
  writer?: SqliteDb | undefined;
}

/** The tail of each database's queue in this process. */
const queues = new Map<string, Promise<void>>();

/** Runs `task` once every earlier task queued under `key` in this process has settled. */
function serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
  const result = (queues.get(key) ?? Promise.resolve()).then(task);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return result;
}

const queuedMethods = new Set<PropertyKey>(['execute', 'batch', 'migrate', 'executeMultiple']);

/**
 * A local client whose every statement (and batch) waits in the database's queue, behind any notification
 * transaction of this process (see `writeTransactions`). libSQL runs local statements synchronously on this thread: a
 * write started while such a transaction held the write lock would wait out the busy timeout without letting the
 * transaction finish, then fail with SQLITE_BUSY. Reads wait too, which costs nothing, as they too run on this thread.
 * `transaction` is not queued: the store's own transactions call it from inside the queue.
 */
export function queuedClient(client: Client, lockKey: string): Client {
  return new Proxy(client, {
    get(target, property) {
      // The client keeps its connection in private fields: its methods must run on the client itself.
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return queuedMethods.has(property)
        ? (...args: unknown[]) => serialised(lockKey, () => method.apply(target, args) as Promise<unknown>)
        : method.bind(target);
    },
  });
}

/** Raw statements on a client's own connection, rows keyed by column name. */
export const clientRun =
  (client: Client): RunStatement =>
  async ({ sql: text, params }) =>
    (await client.execute({ sql: text, args: params as InValue[] })).rows;

/** Raw statements on the transaction's connection: the local writer's `client` (as they are), or a libSQL transaction. */
export const transactionRun = (tx: Queryable, client: Client | undefined): RunStatement =>
  client ? clientRun(client) : async (statement) => (await tx.run(rawSql(statement))).rows;

/** The write transactions of a store on `db`. */
export function writeTransactions(db: SqliteDb, { lockKey, writer }: SqliteStoreOptions) {
  /**
   * The notification writes (ingest, markRead, prune, leases) run one at a time per database in this process, each
   * as one write transaction, in the queue that the client's statements wait in too (`queuedClient`). That matters
   * because libSQL runs local statements synchronously: were a transaction of this process interleaved with another
   * one, or with a plain write, the latter would wait out the busy timeout on the one thread the transaction needs
   * to finish, then fail with SQLITE_BUSY. Other processes are serialised by SQLite's write lock: BEGIN IMMEDIATE
   * takes it before the first read, waiting up to BUSY_TIMEOUT_MS for it (blocking this thread meanwhile, as any
   * local write does). The transactions run on the dedicated `writer` connection rather than through
   * `db.transaction`, which would take the client's connection away (the client then opens a fresh one without the
   * busy timeout, and the taken one stays open until it is garbage-collected: a file handle per transaction).
   * `work` must use only `tx`: a statement on `db` would wait in the queue behind `work` itself, for ever.
   */
  const transact = <T>(work: (tx: Queryable) => Promise<T>): Promise<T> =>
    serialised(lockKey, async () => {
      if (!writer) return db.transaction(work);
      await writer.run(sql`begin immediate`);
      try {
        const result = await work(writer);
        await writer.run(sql`commit`);
        return result;
      } catch (error) {
        try {
          await writer.run(sql`rollback`);
        } catch {
          // No transaction is active: SQLite already rolled it back (as it does on SQLITE_FULL or SQLITE_BUSY).
        }
        throw error;
      }
    });

  /** The writer's own client when `tx` is the writer: statements on it run as they are (see `transactionRun`). */
  const clientOf = (tx: Queryable) => (tx === writer ? writer.$client : undefined);
  return {
    transact,
    clientOf,
    /** `transact` with raw statements on its connection. */
    writeTransaction: <T>(work: (run: RunStatement) => Promise<T>): Promise<T> => transact((tx) => work(transactionRun(tx, clientOf(tx)))),
  };
}
