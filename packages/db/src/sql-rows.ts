import type { RawStatement, SqlDialect } from './dialects.ts';
import type { DeliveryRow } from './store.ts';

/** The rows the outbox and the email sends share (a delivery, as SQL answers it) and the helpers that read them. */

/** Runs one statement in the transaction and answers its rows, with the column names as the database spells them. */
export type RunStatement = (statement: RawStatement) => Promise<Record<string, unknown>[]>;

export const num = (value: unknown): number => Number(value);
export const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
export const parseJson = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));

export function rawDelivery(r: Record<string, unknown>): DeliveryRow {
  return {
    id: String(r.id),
    notificationId: (r.notification_id as string | null) ?? null,
    eventId: (r.event_id as string | null) ?? null,
    subjectKey: (r.subject_key as string | null) ?? null,
    channel: r.channel as DeliveryRow['channel'],
    purpose: r.purpose as DeliveryRow['purpose'],
    status: r.status as DeliveryRow['status'],
    reason: String(r.reason),
    heldFor: (r.held_for as DeliveryRow['heldFor']) ?? null,
    dueAt: numOrNull(r.due_at),
    message: parseJson(r.message),
    seq: numOrNull(r.seq),
    digestId: (r.digest_id as string | null) ?? null,
    createdAt: num(r.created_at),
    sentAt: numOrNull(r.sent_at),
  };
}

export const DELIVERY_COLUMNS = ['id', 'notification_id', 'event_id', 'subject_key', 'channel', 'purpose', 'status', 'reason', 'held_for', 'due_at', 'message', 'seq', 'digest_id', 'created_at', 'sent_at'];

/** The delivery's columns of a send table's select, each as `d_<column>` (see `joinedDelivery`). */
export const DELIVERY_PREFIXED = DELIVERY_COLUMNS.map((column) => `d.${column} as d_${column}`).join(', ');

/** The outbox row a send was selected with (its `d_*` columns). */
export function joinedDelivery(r: Record<string, unknown>): DeliveryRow {
  const delivery: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(r)) if (name.startsWith('d_')) delivery[name.slice(2)] = value;
  return rawDelivery(delivery);
}

/** `text` with each `?` replaced by the dialect's placeholder, in order. */
export function bind({ placeholder }: SqlDialect, text: string, params: unknown[]): RawStatement {
  let index = 0;
  return { sql: text.replace(/\?/g, () => placeholder(index++)), params };
}

export type SendTable = 'email_sends' | 'push_sends' | 'channel_sends';

/** Per send table: the column that names its outbox row, and the one that names its destination (email has one address). */
const SEND_TABLES: Record<SendTable, { delivery: string; destination: string | null }> = {
  email_sends: { delivery: 'id', destination: null },
  push_sends: { delivery: 'delivery_id', destination: 'subscription_id' },
  channel_sends: { delivery: 'delivery_id', destination: 'connection_id' },
};

/** How a claimed send ended, as every send table has it (a table adds its own fields: a status, the provider's id). */
interface SettledSend {
  state: string;
  attempts: number;
  dueAt: number;
  error: string | null;
  sentAt: number | null;
}

/**
 * The condition on a send `s` of `table` that its thread's outage notice (first, reminder, flapping) to the same
 * destination is still queued (due, or to be tried again after a 429 or a 5xx), binding the thread's notification id
 * (`thread`, a column or a placeholder) and, where `destination` is given, the destination (a column or placeholder).
 */
function outageQueued(table: SendTable, thread: string, destination: string | null): string {
  const columns = SEND_TABLES[table];
  return `exists (select 1 from ${table} o join notification_deliveries od on od.id = o.${columns.delivery}
    where o.state = 'queued' and od.notification_id = ${thread} and od.purpose in ('first', 'repeat', 'flap_start')${columns.destination && destination ? ` and o.${columns.destination} = ${destination}` : ''})`;
}

/**
 * A queued send of `table` (aliased `s`) that is not to go yet: a recovery whose outage notice to the same destination
 * has not gone (it waits for a retry). A claim passes it by and the next due time leaves it out, so the destination
 * gets the outage first and the recovery after it, and its last word on the thread is the thread's current state;
 * once the outage is settled (delivered, or failed for good) the recovery is due again.
 */
function behindItsOutage(table: SendTable): string {
  const { delivery, destination } = SEND_TABLES[table];
  return `exists (select 1 from notification_deliveries r where r.id = s.${delivery} and r.purpose = 'resolve' and ${outageQueued(table, 'r.notification_id', destination && `s.${destination}`)})`;
}

/**
 * Leases up to `limit` queued rows of a send table (`email_sends`, `push_sends`, `channel_sends`) due by `now` to `holder` until
 * `now + leaseMs`, soonest due first (passing by a recovery behind its outage: `behindItsOutage`), each row by one
 * statement that takes it only where no live lease is, so two processes never both win one. Answers the lease's end
 * (the caller reads back what `holder` won with it), or undefined when nothing was due.
 */
export async function leaseDue(
  exec: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>,
  table: SendTable,
  holder: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<number | undefined> {
  const free = (row = '') => `(${row}lease_until is null or ${row}lease_until <= ?)`;
  const due = await exec(`select s.id from ${table} s where s.state = 'queued' and s.due_at <= ? and ${free('s.')} and not ${behindItsOutage(table)} order by s.due_at, s.id limit ?`, [now, now, limit]);
  if (due.length === 0) return undefined;
  const until = now + leaseMs;
  for (const { id } of due) await exec(`update ${table} set lease_until = ?, lease_holder = ? where id = ? and state = 'queued' and ${free()}`, [until, holder, id, now]);
  return until;
}

/** Whether a thread's outage notice to one chat connection is still queued: its recovery will go there after it. */
export async function outageQueuedFor(
  exec: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>,
  connectionId: string,
  notificationId: string,
): Promise<boolean> {
  const [row] = await exec(`select case when ${outageQueued('channel_sends', '?', '?')} then 1 else 0 end as queued`, [notificationId, connectionId]);
  return Number(row?.queued) === 1;
}

/**
 * What every send table's sender does the same way: claim what is due under a lease (`leaseDue`, then what this holder
 * won), renew the claim on one before sending it, settle it, list the newest, and say when the next queued one is due.
 * `select` selects a send (`s`) joined with its outbox row (`d`); `read` turns one of its rows into the table's row
 * type; `O` is how the table's sends end, and `own` names the column of each of its fields not every table has.
 */
export function sendQueue<T, O extends SettledSend>(
  exec: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>,
  table: SendTable,
  select: string,
  read: (r: Record<string, unknown>) => T,
  own: Record<string, Exclude<keyof O, keyof SettledSend>>,
): {
  claim(holder: string, now: number, leaseMs: number, limit: number): Promise<T[]>;
  hold(id: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
  settle(id: string, holder: string, outcome: O): Promise<void>;
  recent(limit: number): Promise<T[]>;
  nextDue(): Promise<number | null>;
} {
  const columns = Object.entries(own);
  return {
    async claim(holder, now, leaseMs, limit) {
      const until = await leaseDue(exec, table, holder, now, leaseMs, limit);
      if (until === undefined) return [];
      // What this holder won (another process may have taken some first).
      return (await exec(`${select} where s.lease_holder = ? and s.lease_until = ? and s.state = 'queued' order by s.due_at, s.id`, [holder, until])).map(read);
    },
    async hold(id, holder, now, leaseMs) {
      // Still this holder's and still to send: nobody else has taken it (a claim replaces the holder) nor settled it, so
      // renewing is safe even when the lease has just run out. The read after the write says whether it matched (one
      // statement would need UPDATE ... RETURNING, which MySQL lacks); a later claim by another needs the new end to pass.
      const until = now + leaseMs;
      await exec(`update ${table} set lease_until = ? where id = ? and lease_holder = ? and state = 'queued'`, [until, id, holder]);
      const [row] = await exec(`select lease_until from ${table} where id = ? and lease_holder = ? and state = 'queued'`, [id, holder]);
      return row !== undefined && Number(row.lease_until) === until;
    },
    async settle(id, holder, outcome) {
      // Only the holder's claim settles it (and gives its lease up): one that lost it writes nothing.
      await exec(
        `update ${table} set state = ?, attempts = ?, due_at = ?, ${columns.map(([column]) => `${column} = ?, `).join('')}error = ?, sent_at = ?, lease_until = null, lease_holder = null where id = ? and lease_holder = ?`,
        [outcome.state, outcome.attempts, outcome.dueAt, ...columns.map(([, field]) => outcome[field]), outcome.error, outcome.sentAt, id, holder],
      );
    },
    async recent(limit) {
      return (await exec(`${select} order by s.created_at desc, s.id desc limit ?`, [limit])).map(read);
    },
    async nextDue() {
      const [row] = await exec(`select min(s.due_at) as at from ${table} s where s.state = 'queued' and not ${behindItsOutage(table)}`);
      return numOrNull(row?.at);
    },
  };
}
