import { channelConnections } from './channels.ts';
import { webhookDeliveries } from './deliveries.ts';
import type { RawStatement, SqlDialect } from './dialects.ts';
import { emailSends } from './emails.ts';
import { metricHistory, type HistoryEngine } from './history.ts';
import { metricAlertRules } from './metric-alerts.ts';
import { pushSubscriptions } from './push.ts';
import type { RunStatement } from './sql-rows.ts';
import type { Store } from './store.ts';

/**
 * The aggregates written as plain SQL that every dialect runs (the email sends, the Web Push devices, the chat
 * connections, the metric history, its alert rules, the webhook deliveries log), put together from what a dialect
 * gives them: how it runs a statement, a write that counts its rows, and its transactions.
 */

export interface PlainSqlEngine {
  /** Plain statements of the sends: the email sends, the push devices, the chat connections. */
  sends: RunStatement;
  /** Plain statements of the history, the alert rules and the deliveries log. */
  run: RunStatement;
  /**
   * One statement on its own (autocommit), answering how many rows it wrote (libSQL's `rowsAffected`, postgres.js's
   * `count`, mysql2's `affectedRows`): the alert rules' and the log's writes.
   */
  write: (statement: RawStatement) => Promise<number>;
  /** The transaction the log's `record` writes its rows in, together or not at all. */
  transaction: <T>(work: (run: RunStatement) => Promise<T>) => Promise<T>;
  /** The metric history's write transaction and how it reads (see HistoryEngine). */
  history: Omit<HistoryEngine, 'run'>;
}

export type PlainSqlStores = Pick<Store, 'emails' | 'push' | 'channels' | 'history' | 'metricAlerts' | 'deliveries'>;

export function plainSqlStores(engine: PlainSqlEngine, dialect: SqlDialect): PlainSqlStores {
  const { sends, run, write, transaction } = engine;
  return {
    emails: emailSends(sends, dialect),
    push: pushSubscriptions(sends, dialect),
    channels: channelConnections(sends, dialect),
    history: metricHistory({ run, ...engine.history }, dialect),
    metricAlerts: metricAlertRules({ run, write }, dialect),
    deliveries: webhookDeliveries({ run, write, transaction }, dialect),
  };
}
