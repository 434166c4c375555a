import type { RawStatement, SqlDialect } from './shared.ts';
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

/** `text` with each `?` replaced by the dialect's placeholder, in order. */
export function bind({ placeholder }: SqlDialect, text: string, params: unknown[]): RawStatement {
  let index = 0;
  return { sql: text.replace(/\?/g, () => placeholder(index++)), params };
}

/**
 * Leases up to `limit` queued rows of a send table (`email_sends`, `push_sends`, `channel_sends`) due by `now` to `holder` until
 * `now + leaseMs`, soonest due first, each row by one statement that takes it only where no live lease is, so two
 * processes never both win one. Answers the lease's end (the caller reads back what `holder` won with it), or
 * undefined when nothing was due.
 */
export async function leaseDue(
  exec: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>,
  table: 'email_sends' | 'push_sends' | 'channel_sends',
  holder: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<number | undefined> {
  const free = '(lease_until is null or lease_until <= ?)';
  const due = await exec(`select id from ${table} where state = 'queued' and due_at <= ? and ${free} order by due_at, id limit ?`, [now, now, limit]);
  if (due.length === 0) return undefined;
  const until = now + leaseMs;
  for (const { id } of due) await exec(`update ${table} set lease_until = ?, lease_holder = ? where id = ? and state = 'queued' and ${free}`, [until, holder, id, now]);
  return until;
}
