import type { DeliveryRow } from './outbox.ts';

/** The email sends: their rows, how a send ends, and the queue's interface. */

/** An email interruption on its way to SendGrid, with the outbox row it sends. Instants are ms UTC. */
export interface EmailSendRow {
  id: string;
  state: 'queued' | 'delivered' | 'failed';
  attempts: number;
  /** When a queued one is next tried. */
  dueAt: number;
  /** SendGrid's X-Message-Id once delivered. */
  providerId: string | null;
  /** The last refusal, in SendGrid's words. */
  error: string | null;
  createdAt: number;
  sentAt: number | null;
  delivery: DeliveryRow;
}

/** How a claimed send ended (or when it is tried again). */
export interface EmailOutcome {
  state: EmailSendRow['state'];
  attempts: number;
  dueAt: number;
  providerId: string | null;
  error: string | null;
  sentAt: number | null;
}

/**
 * Email interruptions: queued when the outbox releases an email delivery (in that transaction), claimed with a
 * lease by the sender of one process, settled as delivered, failed, or queued again for later.
 */
export type EmailsStore = {
  /** Claims up to `limit` queued sends due by `now` for `holder` until `now + leaseMs`, soonest due first. */
  claim(holder: string, now: number, leaseMs: number, limit: number): Promise<EmailSendRow[]>;
  /**
   * Renews `holder`'s claim on one send until `now + leaseMs`, just before it is sent: false when the claim is lost
   * (its lease ran out mid-batch and another process claimed it, or it was settled), and then it must not be sent.
   */
  hold(id: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
  /** Writes how a claimed send ended, and gives its lease up; nothing when `holder` no longer holds it. */
  settle(id: string, holder: string, outcome: EmailOutcome): Promise<void>;
  /** The newest sends first. */
  recent(limit: number): Promise<EmailSendRow[]>;
  /** How many were delivered after `since` (the hourly cap: the last hour is after `now - 1 h`). */
  deliveredSince(since: number): Promise<number>;
  /** The earliest delivery after `since`, or null: when the hourly cap frees a place. */
  oldestDeliveredSince(since: number): Promise<number | null>;
  /** The first delivered email about a notification: the thread its recovery answers. */
  threadOf(notificationId: string): Promise<EmailSendRow | undefined>;
  /** When the next queued send is due, or null. */
  nextDue(): Promise<number | null>;
};
