import { isoOf, isoOrNull } from './instants.ts';
import type { IncomingEvent, NotificationRow, StoredDecision } from './store.ts';

/** The inbox's rows as the dialects read and write them: `notifications`, `notification_events`, `notification_dedup`. */

/** A `notifications` row as a dialect reads it: `snoozed_until` in ms, `decision` and `refs` as JSON text. */
export type NotificationRecord = Omit<NotificationRow, 'snoozedUntil' | 'decision' | 'refs'> & {
  snoozedUntil: number | string | null;
  decision: string | StoredDecision | null;
  refs: string | null;
};

export const toNotification = (row: NotificationRecord): NotificationRow => ({
  id: row.id,
  seq: Number(row.seq),
  createdSeq: Number(row.createdSeq),
  integration: row.integration,
  type: row.type,
  subjectKey: row.subjectKey,
  status: row.status,
  severity: row.severity,
  title: row.title,
  url: row.url,
  projectSlug: row.projectSlug,
  eventCount: row.eventCount,
  firstAt: isoOf(row.firstAt),
  lastAt: isoOf(row.lastAt),
  resolvedAt: isoOrNull(row.resolvedAt),
  receivedAt: isoOf(row.receivedAt),
  readAt: isoOrNull(row.readAt),
  snoozedUntil: snoozedOf(row.snoozedUntil),
  decision: storedDecisionOf(row.decision),
  refs: refsOf(row.refs),
});

/** A `refs` column (JSON text of an array of strings), or null. */
export const refsOf = (value: unknown): string[] | null => (typeof value === 'string' ? (JSON.parse(value) as string[]) : null);

/** `snoozed_until` (ms UTC, as a number or Postgres's bigint text) as ISO 8601. */
function snoozedOf(value: unknown): string | null {
  return value === null || value === undefined ? null : typeof value === 'string' && value.includes('T') ? isoOf(value) : new Date(Number(value)).toISOString();
}

/** A `decision` column (JSON text), or a decision already parsed. */
function storedDecisionOf(value: unknown): StoredDecision | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? (JSON.parse(value) as StoredDecision) : (value as StoredDecision);
}

/** A row as the `notifications` table's columns hold it (for `insertStatement`). */
export const notificationValues = (row: NotificationRow) => ({
  ...row,
  snoozedUntil: row.snoozedUntil === null ? null : Date.parse(row.snoozedUntil),
  decision: row.decision === null ? null : JSON.stringify(row.decision),
  refs: row.refs === null ? null : JSON.stringify(row.refs),
});

/** A `notification_events` row. */
export type NotificationEventValues = Omit<IncomingEvent, 'decision'> & {
  id: string;
  notificationId: string;
  /** JSON of its `StoredDecision`, or null. */
  decision: string | null;
};

/** A `notification_dedup` row as a batch claims it. */
export interface DedupClaim {
  sourceEventId: string;
  /** The inbox row the event folds into. */
  notificationId: string;
  firstSeenAt: string;
  expiresAt: string;
  /** 1, plus the event's copies later in the same batch. */
  hits: number;
}
