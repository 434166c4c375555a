import { randomUUID } from 'node:crypto';
import { type InterruptChannel, type PolicyDecision, notificationSourceNames } from '@dash/contracts';
import type { DeliveryRow, InterruptMessage, NotificationRow } from '@dash/db';
import type { Fate } from './release.ts';

/** The outbox rows the stages write: which channels an interruption goes on, its message, and the row itself. */

/**
 * The interrupting channels the pipeline can deliver now: the browser always, email once SendGrid is set up, push once
 * a device is subscribed (until then no preference or rule opens them, so no decision claims what nothing would send).
 */
export const deliverableChannels = (emailReady: boolean, pushReady = false, chatReady = false): readonly InterruptChannel[] => [
  'browser',
  ...(emailReady ? (['email'] as const) : []),
  ...(pushReady ? (['push'] as const) : []),
  ...(chatReady ? (['chat'] as const) : []),
];

const serviceOf = (integration: string) => (notificationSourceNames as Record<string, string>)[integration] ?? integration;

export const messageOf = (row: NotificationRow, patch: Partial<InterruptMessage> = {}): InterruptMessage => ({
  title: row.title,
  body: [row.projectSlug, serviceOf(row.integration)].filter(Boolean).join(' · '),
  severity: row.severity,
  tag: row.subjectKey ?? row.id,
  url: row.url,
  renotify: true,
  requireInteraction: row.severity === 'error',
  ...patch,
});

/** A new outbox row about `row` (and the event `eventId`, when an event's decision made it) on one channel. */
export function delivery(
  about: { row: NotificationRow; eventId: string | null },
  channel: InterruptChannel,
  purpose: DeliveryRow['purpose'],
  fate: Fate,
  message: InterruptMessage,
  now: number,
): DeliveryRow {
  return {
    id: randomUUID(),
    notificationId: about.row.id,
    eventId: about.eventId,
    subjectKey: about.row.subjectKey,
    channel,
    purpose,
    status: fate.status,
    reason: fate.reason,
    heldFor: fate.heldFor ?? null,
    dueAt: fate.dueAt ?? null,
    message,
    seq: null,
    digestId: null,
    createdAt: now,
    sentAt: fate.status === 'sent' ? now : null,
  };
}

/**
 * The interrupting channels a tick's reminder or notice about a row goes to: those its stored decision opened that can
 * deliver now; the browser when it opened none (a recovery's own decision, at `success`, opens nothing).
 */
export function channelsOf(row: NotificationRow, available: readonly InterruptChannel[]): InterruptChannel[] {
  const opened = (row.decision?.channels ?? []).filter((channel): channel is InterruptChannel => (available as readonly string[]).includes(channel));
  return opened.length > 0 ? opened : ['browser'];
}

/** The channels a decision interrupts on (the in-app inbox and toast always come). */
export const interruptingChannels = (decision: PolicyDecision) => decision.channels.filter((channel): channel is InterruptChannel => channel !== 'inApp');
