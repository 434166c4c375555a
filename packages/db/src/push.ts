import { bind, DELIVERY_COLUMNS, DELIVERY_PREFIXED, joinedDelivery, numOrNull, rawDelivery, sendQueue, type RunStatement } from './sql-rows.ts';
import type { SqlDialect } from './dialects.ts';
import type { DeliveryRow, PushSendOutcome, PushSendRow, PushSubscriptionRow, Store } from './store.ts';

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

/** A send joined with the outbox row it sends (`d_*` columns are the delivery's). */
function rawSend(r: Record<string, unknown>): PushSendRow {
  return {
    id: String(r.id),
    subscriptionId: String(r.subscription_id),
    state: r.state as PushSendRow['state'],
    attempts: Number(r.attempts),
    dueAt: Number(r.due_at),
    status: numOrNull(r.status),
    error: (r.error as string | null) ?? null,
    createdAt: Number(r.created_at),
    sentAt: numOrNull(r.sent_at),
    delivery: joinedDelivery(r),
  };
}

const SEND = `select s.id, s.subscription_id, s.state, s.attempts, s.due_at, s.status, s.error, s.created_at, s.sent_at, ${DELIVERY_PREFIXED} from push_sends s join notification_deliveries d on d.id = s.delivery_id`;

/**
 * The push sends of an outbox's push deliveries, once released (`sent`): one per device subscribed now (not removed),
 * queued in the same transaction. A device subscribed later never gets what was released before it; and a recovery
 * goes only to the devices its outage went to (sent, or still being tried), as a chat recovery goes only where its
 * outage went: a laptop subscribed at 02:05 is not woken at 02:10 by "up again" about an outage it never showed.
 */
export async function enqueuePushes(run: RunStatement, dialect: SqlDialect, rows: readonly DeliveryRow[], now: number): Promise<void> {
  const pushes = rows.filter((row) => row.channel === 'push' && row.status === 'sent');
  if (pushes.length === 0) return;
  const devices = (await run(bind(dialect, 'select id from push_subscriptions where removed_at is null order by created_at, id', []))).map((device) => String(device.id));
  const told = await toldOfOutage(run, dialect, pushes);
  const sends = pushes.flatMap((row) =>
    devices
      .filter((device) => row.purpose !== 'resolve' || told.has(`${row.notificationId ?? ''}\0${device}`))
      .map((device) => [`${row.id}:${device}`, row.id, device, row.sentAt ?? now, now]),
  );
  // A row is released once; should it come again, the sends it has stay as they are.
  for (let i = 0; i < sends.length; i += 200) {
    const slice = sends.slice(i, i + 200);
    const tuples = slice.map(() => "(?, ?, ?, 'queued', 0, ?, ?)").join(', ');
    await run(bind(dialect, `insert into push_sends (id, delivery_id, subscription_id, state, attempts, due_at, created_at) values ${tuples} ${dialect.upsert('id', ['id'])}`, slice.flat()));
  }
}

/**
 * Which devices were told of the outages these recoveries end, as `notificationId\0subscriptionId`: each with a push
 * send of an outage notice of theirs (first, repeat, flapping), or of the digest it went out in, delivered or still
 * being tried.
 */
async function toldOfOutage(run: RunStatement, dialect: SqlDialect, rows: readonly Pick<DeliveryRow, 'purpose' | 'notificationId'>[]): Promise<Set<string>> {
  const threads = [...new Set(rows.filter((row) => row.purpose === 'resolve' && row.notificationId !== null).map((row) => row.notificationId as string))];
  if (threads.length === 0) return new Set();
  const told = await run(
    bind(
      dialect,
      // Its own push, or the digest push it went out in (quiet hours, a pause).
      `select o.notification_id, s.subscription_id from notification_deliveries o join push_sends s on s.delivery_id = o.id or s.delivery_id = o.digest_id
       where o.notification_id in (${threads.map(() => '?').join(', ')}) and o.channel = 'push' and o.purpose in ('first', 'repeat', 'flap_start') and s.state in ('queued', 'delivered')`,
      threads,
    ),
  );
  return new Set(told.map((row) => `${String(row.notification_id)}\0${String(row.subscription_id)}`));
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
      // The same browser subscribing again has the same endpoint, so the same reference: its old row goes (a reference
      // is too long for a portable unique index on MySQL).
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
    async removeEndpoint(endpoint) {
      const [found] = (await exec('select name from push_subscriptions where endpoint = ?', [endpoint])) as { name: string }[];
      if (found) await exec('delete from push_subscriptions where endpoint = ?', [endpoint]);
      return found?.name;
    },
    async reseal(id, from, endpoint, sealedKeys) {
      await exec('update push_subscriptions set endpoint = ?, sealed_keys = ? where id = ? and endpoint = ?', [endpoint, sealedKeys, id, from]);
    },
    async succeeded(id, at) {
      await exec('update push_subscriptions set last_success_at = ? where id = ?', [at, id]);
    },
    async failed(id, at, reason) {
      await exec('update push_subscriptions set last_failure_at = ?, last_failure = ? where id = ?', [at, reason, id]);
    },
    async gone(id, at, reason) {
      await exec("update push_subscriptions set removed_at = ?, last_failure_at = ?, last_failure = ?, sealed_keys = '' where id = ?", [at, at, reason, id]);
      // What still waited for it never goes.
      await exec("update push_sends set state = 'gone', lease_until = null, lease_holder = null where subscription_id = ? and state = 'queued'", [id]);
    },
    sends: {
      ...sendQueue<PushSendRow, PushSendOutcome>(exec, 'push_sends', SEND, rawSend, { status: 'status' }),
      async toldOf(notificationId) {
        const told = await toldOfOutage(run, dialect, [{ purpose: 'resolve', notificationId }]);
        return [...told].map((key) => key.slice(key.indexOf('\0') + 1));
      },
      async delivery(id) {
        const [row] = await exec(`select ${DELIVERY_COLUMNS.join(', ')} from notification_deliveries where id = ? and channel = 'push' and status = 'sent'`, [id]);
        return row ? rawDelivery(row) : undefined;
      },
    },
  };
}
