import type { Clock } from '@dash/connectors';
import type { EmailOutcome, EmailSendRow, Store } from '@dash/db';
import { notificationEmail, type Alerts } from '../alerts/index.ts';
import { EmailRefusedError, sendEmail } from '../alerts/sender.ts';
import type { Logger } from '../logger.ts';
import { OutboxSender, type OwnFields, type SendResult } from './outbox-sender.ts';

const HOUR = 3_600_000;
/** After a 429, a 5xx or an unreachable SendGrid: tried again after 1, 5, 15 and 60 minutes, then failed. */
export const EMAIL_RETRY_MS: readonly number[] = [60_000, 5 * 60_000, 15 * 60_000, HOUR];
/** At most this many notification emails an hour; the rest wait for a place (an outage storm is not a mail storm). */
export const EMAILS_PER_HOUR = 20;

export interface EmailSenderOptions {
  store: Store;
  alerts: Alerts;
  clock: Clock;
  log: Logger;
  perHour?: number;
  retryMs?: readonly number[];
}

/**
 * Sends the email interruptions the policy released (the store queued them in the ingest's or tick's transaction):
 * claims due ones with a lease, 10 at a time for a minute (one process sends each: `OutboxSender`), sends each through
 * SendGrid once, and settles it: delivered with SendGrid's message id; queued again at growing intervals after a 429,
 * 5xx or unreachable SendGrid; failed at once on any other refusal (a wrong key, an unverified sender) with SendGrid's
 * reason. Never more than `perHour` in an hour. Everything it did is in `Store.emails` (Settings → Refresh & alerts
 * lists it).
 */
export class EmailSender extends OutboxSender<EmailSendRow, EmailOutcome, Awaited<ReturnType<Alerts['config']>>> {
  constructor(private readonly options: EmailSenderOptions) {
    super({
      clock: options.clock,
      log: options.log,
      name: 'notification emails',
      queue: options.store.emails,
      leaseMs: 60_000,
      batch: 10,
      retryMs: options.retryMs ?? EMAIL_RETRY_MS,
    });
  }

  /** What the hourly cap leaves now. */
  protected override async room(now: number): Promise<number> {
    return (this.options.perHour ?? EMAILS_PER_HOUR) - (await this.options.store.emails.deliveredSince(now - HOUR));
  }

  protected override async capFreesAt(): Promise<number | undefined> {
    const { store, clock } = this.options;
    const now = clock.now();
    if ((await store.emails.deliveredSince(now - HOUR)) < (this.options.perHour ?? EMAILS_PER_HOUR)) return undefined;
    return ((await store.emails.oldestDeliveredSince(now - HOUR)) ?? now) + HOUR;
  }

  /** SendGrid's configuration, read once per claim. */
  protected override claimContext(): ReturnType<Alerts['config']> {
    return this.options.alerts.config();
  }

  protected async send(send: EmailSendRow, config: Awaited<ReturnType<Alerts['config']>>): Promise<SendResult<OwnFields<EmailOutcome>>> {
    const { store, clock, log } = this.options;
    const none = { providerId: null };
    if (!config) return { kind: 'refused', reason: 'Email alerts are not set up (SendGrid): nothing was sent.', fields: none };
    const { delivery } = send;
    const thread =
      delivery.purpose === 'resolve' && delivery.notificationId ? await store.emails.threadOf(delivery.notificationId) : undefined;
    const email = notificationEmail(delivery, thread?.delivery);
    try {
      const { id } = await sendEmail(config, email, { clock, attempts: 1 });
      return { kind: 'sent', fields: { providerId: id } };
    } catch (error) {
      if (!(error instanceof EmailRefusedError)) throw error;
      const failed = () => log.warn(`notification email "${email.subject}" failed: ${error.message}`);
      if (error.retryable) return { kind: 'retry', afterMs: 0, reason: error.message, fields: none, gaveUp: failed };
      return { kind: 'refused', reason: error.message, fields: none, settled: failed };
    }
  }
}
