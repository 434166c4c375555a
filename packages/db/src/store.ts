import type { DumpTableName, DumpTables } from '@dash/contracts';
import type { AuthStore } from './store/auth.ts';
import type { ChannelsStore } from './store/channels.ts';
import type { CacheStore, CredentialsStore, MetaStore, ProjectsStore, SettingsStore } from './store/config.ts';
import type { DeliveriesStore } from './store/deliveries.ts';
import type { EmailsStore } from './store/emails.ts';
import type { HistoryStore } from './store/history.ts';
import type { NotificationsStore } from './store/inbox.ts';
import type { MetricAlertsStore } from './store/metric-alerts.ts';
import type { PushStore } from './store/push.ts';

/**
 * The Store interface, assembled from each aggregate's (under store/: its rows and its part of the interface), and
 * every one of their types, as the package exports them. The aggregates' parts are type literals, as the members
 * were when they were written inline: a stand-in for one (a test's `{ ...store, meta }`) still compares with them.
 */

export * from './store/auth.ts';
export * from './store/channels.ts';
export * from './store/config.ts';
export * from './store/deliveries.ts';
export * from './store/emails.ts';
export * from './store/history.ts';
export * from './store/inbox.ts';
export * from './store/metric-alerts.ts';
export * from './store/notifications.ts';
export * from './store/outbox.ts';
export * from './store/push.ts';

/**
 * Everything the dashboard stores, behind one interface with an implementation per dialect
 * (SQLite/libSQL, Postgres and MySQL). Each method is atomic on its own.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres' | 'mysql';

  settings: SettingsStore;
  projects: ProjectsStore;
  credentials: CredentialsStore;
  cache: CacheStore;
  auth: AuthStore;
  notifications: NotificationsStore;
  emails: EmailsStore;
  push: PushStore;
  channels: ChannelsStore;
  history: HistoryStore;
  metricAlerts: MetricAlertsStore;
  deliveries: DeliveriesStore;

  /** Named leases, so that of several dashboard processes on one database one does a job at a time (the relay poller). */
  leases: {
    /**
     * Takes or renews `name` for `holder` until `now + ttlMs` when it is free, expired (its end <= `now`) or already
     * the holder's, in one atomic statement; false otherwise. `now` is ISO 8601.
     */
    acquire(name: string, holder: string, ttlMs: number, now: string): Promise<boolean>;
    /** Gives it up, when `holder` holds it. */
    release(name: string, holder: string): Promise<void>;
  };

  /**
   * Upstream rate windows shared by every dashboard process on this database: Postgres and MySQL have them, SQLite
   * does not (one process is all there is; its limiters stay in memory). `key` names one upstream account.
   */
  rateWindows?: RateWindows;

  meta: MetaStore;

  /**
   * When drizzle's migrator (or the SQL `migrationStatements` gave someone to run) last brought this database up to
   * date: the newest `created_at` (the migration's folder time, ms) of its bookkeeping table; undefined when none.
   */
  lastMigration(): Promise<number | undefined>;

  /** Every stored row at once: an export, an import, a copy into another database (see contracts' `DumpTables`). */
  transfer: {
    /** The rows of every dumped table, read in one transaction. */
    dump(): Promise<Required<DumpTables>>;
    /** How many rows each dumped table holds. */
    counts(): Promise<Record<DumpTableName, number>>;
    /**
     * Replaces the rows of each table `tables` names with the given ones (the tables it leaves out keep theirs), in
     * one transaction: all or nothing. The notifications' sequence then hands out values above every restored seq.
     */
    restore(tables: DumpTables): Promise<void>;
  };

  close(): Promise<void>;
}

/** A sliding window of calls per key (see `Store.rateWindows`); every method is one transaction. Instants are ms UTC. */
export interface RateWindows {
  /**
   * Counts a call at `now` when fewer than `limit` fall within the last `windowMs` and no pause holds: its turn (to
   * refund); otherwise how long until a place could free, and nothing is counted.
   */
  take(key: string, limit: number, windowMs: number, now: number): Promise<{ turn: number } | { waitMs: number }>;
  /** The upstream said 429: no call until `until`. A later pause wins over an earlier one. */
  pause(key: string, until: number): Promise<void>;
  /** The upstream did not count the call that took `turn`: its place is free again. */
  refund(key: string, turn: number): Promise<void>;
}
