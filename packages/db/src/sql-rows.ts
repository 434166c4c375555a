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
