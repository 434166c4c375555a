import { bind, numOrNull, type RunStatement } from './sql-rows.ts';
import type { SqlDialect } from './shared.ts';
import type { PushSubscriptionRow, Store } from './store.ts';

const COLUMNS = ['id', 'name', 'browser', 'endpoint', 'sealed_keys', 'expiration_time', 'created_at', 'last_success_at', 'last_failure_at', 'last_failure', 'removed_at'];

function rawSubscription(r: Record<string, unknown>): PushSubscriptionRow {
  return {
    id: String(r.id),
    name: String(r.name),
    browser: (r.browser as string | null) ?? null,
    endpoint: String(r.endpoint),
    sealedKeys: String(r.sealed_keys),
    expirationTime: numOrNull(r.expiration_time),
    createdAt: Number(r.created_at),
    lastSuccessAt: numOrNull(r.last_success_at),
    lastFailureAt: numOrNull(r.last_failure_at),
    lastFailure: (r.last_failure as string | null) ?? null,
    removedAt: numOrNull(r.removed_at),
  };
}

/** The Web Push devices, as plain SQL every dialect runs (as the email sends are). */
export function pushSubscriptions(run: RunStatement, dialect: SqlDialect): Store['push'] {
  const exec = (text: string, params: unknown[] = []) => run(bind(dialect, text, params));
  const select = `select ${COLUMNS.join(', ')} from push_subscriptions`;
  return {
    async list() {
      return (await exec(`${select} order by created_at, id`)).map(rawSubscription);
    },
    async get(id) {
      const [row] = await exec(`${select} where id = ?`, [id]);
      return row ? rawSubscription(row) : undefined;
    },
    async add(row) {
      // The same browser subscribing again has the same endpoint: its old row goes (an endpoint is too long for a
      // portable unique index on MySQL).
      await exec('delete from push_subscriptions where endpoint = ?', [row.endpoint]);
      await exec(`insert into push_subscriptions (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`, [
        row.id,
        row.name,
        row.browser,
        row.endpoint,
        row.sealedKeys,
        row.expirationTime,
        row.createdAt,
        row.lastSuccessAt,
        row.lastFailureAt,
        row.lastFailure,
        row.removedAt,
      ]);
    },
    async remove(id) {
      const existed = (await exec('select id from push_subscriptions where id = ?', [id])).length > 0;
      if (existed) await exec('delete from push_subscriptions where id = ?', [id]);
      return existed;
    },
    async succeeded(id, at) {
      await exec('update push_subscriptions set last_success_at = ? where id = ?', [at, id]);
    },
    async failed(id, at, reason) {
      await exec('update push_subscriptions set last_failure_at = ?, last_failure = ? where id = ?', [at, reason, id]);
    },
    async gone(id, at, reason) {
      await exec("update push_subscriptions set removed_at = ?, last_failure_at = ?, last_failure = ?, sealed_keys = '' where id = ?", [at, at, reason, id]);
    },
  };
}
