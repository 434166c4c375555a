import { randomUUID } from 'node:crypto';
import type { Clock } from '@dash/connectors';
import type { EmailSendRow, Store } from '@dash/db';
import { notificationEmail, type Alerts } from '../alerts/index.ts';
import { EmailRefusedError, sendEmail } from '../alerts/sender.ts';
import type { Logger } from '../logger.ts';
import { DrainLoop, sendWhileHeld } from './drain-loop.ts';

const HOUR = 3_600_000;
/** A claim lasts this long: a process that dies mid-send leaves the email to another after it. */
const LEASE_MS = 60_000;
const BATCH = 10;
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
 * claims due ones with a lease (one process sends each), sends each through SendGrid once, and settles it:
 * delivered with SendGrid's message id; queued again at growing intervals after a 429, 5xx or unreachable SendGrid;
 * failed at once on any other refusal (a wrong key, an unverified sender) with SendGrid's reason. Never more than
 * `perHour` in an hour. Everything it did is in `Store.emails` (Settings → Refresh & alerts lists it).
 */
export class EmailSender extends DrainLoop {
  constructor(private readonly options: EmailSenderOptions) {
    super({ clock: options.clock, log: options.log, name: 'notification emails' });
  }

  protected async nextAt(): Promise<number> {
    const [due, blocked] = await Promise.all([this.options.store.emails.nextDue(), this.capFreesAt()]);
    return Math.max(due ?? Infinity, blocked ?? 0);
  }

  /** When the hourly cap lets the next one go, or undefined when it does not hold anything back. */
  private async capFreesAt(): Promise<number | undefined> {
    const { store, clock } = this.options;
    const now = clock.now();
    if ((await store.emails.deliveredSince(now - HOUR)) < (this.options.perHour ?? EMAILS_PER_HOUR)) return undefined;
    return ((await store.emails.oldestDeliveredSince(now - HOUR)) ?? now) + HOUR;
  }

  protected async drainAll(): Promise<void> {
    const { store, clock, alerts } = this.options;
    for (;;) {
      const now = clock.now();
      const room = (this.options.perHour ?? EMAILS_PER_HOUR) - (await store.emails.deliveredSince(now - HOUR));
      if (room <= 0) return;
      // Each claim has its own holder: two drains (two processes, or two at once in one) never share a row.
      const holder = randomUUID();
      const claimed = await store.emails.claim(holder, now, LEASE_MS, Math.min(BATCH, room));
      if (claimed.length === 0) return;
      const config = await alerts.config();
      await sendWhileHeld(store.emails, claimed, { holder, clock, leaseMs: LEASE_MS }, (send) => this.sendOne(send, holder, config));
      if (claimed.length < Math.min(BATCH, room)) return;
    }
  }

  private async sendOne(send: EmailSendRow, holder: string, config: Awaited<ReturnType<Alerts['config']>>): Promise<void> {
    const { store, clock, log } = this.options;
    const attempts = send.attempts + 1;
    const settle = (outcome: { state: EmailSendRow['state']; dueAt?: number; providerId?: string | null; error?: string | null }) =>
      store.emails.settle(send.id, holder, {
        state: outcome.state,
        attempts,
        dueAt: outcome.dueAt ?? send.dueAt,
        providerId: outcome.providerId ?? null,
        error: outcome.error ?? null,
        sentAt: outcome.state === 'delivered' ? clock.now() : null,
      });
    if (!config) {
      await settle({ state: 'failed', error: 'Email alerts are not set up (SendGrid): nothing was sent.' });
      return;
    }
    const { delivery } = send;
    const thread =
      delivery.purpose === 'resolve' && delivery.notificationId ? await store.emails.threadOf(delivery.notificationId) : undefined;
    const email = notificationEmail(delivery, thread?.delivery);
    try {
      const { id } = await sendEmail(config, email, { clock, attempts: 1 });
      await settle({ state: 'delivered', providerId: id });
    } catch (error) {
      if (!(error instanceof EmailRefusedError)) throw error;
      const retry = this.options.retryMs ?? EMAIL_RETRY_MS;
      const later = error.retryable ? retry[attempts - 1] : undefined;
      if (later === undefined) {
        await settle({ state: 'failed', error: error.message });
        log.warn(`notification email "${email.subject}" failed: ${error.message}`);
      } else {
        await settle({ state: 'queued', dueAt: clock.now() + later, error: error.message });
      }
    }
  }
}
