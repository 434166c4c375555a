import { type ChannelFloor, type DecisionTraceEntry, type InterruptChannel, type NotificationPolicy, type NotificationSeverity, severityRank } from '@dash/contracts';
import type { DeliveryRow } from '@dash/db';
import { localTime, quietAt, type QuietState } from '../quiet-hours.ts';
import { step } from './trace.ts';

/**
 * What becomes of an interruption let out now: sent, or deferred to the digest while quiet hours or the pause hold
 * it back (`release`), and the words its row and its "Why?" line say about where it went.
 */

/** "07:00" in the quiet hours' zone, or "Tue 07:00" beyond a day away. */
export function wall(instant: number, now: number, zone: string): string {
  const local = localTime(instant, zone);
  return instant - now < 86_400_000 ? local.hhmm : `${local.weekday.charAt(0).toUpperCase()}${local.weekday.slice(1)} ${local.hhmm}`;
}

/** An instant with whether it is quiet, worked out once for all the events of a batch (or a tick). */
export interface Moment {
  now: number;
  zone: string;
  quiet: QuietState;
  /** What `release` answers at this moment, by whether the decision bypasses quiet hours: the same for every event. */
  released: Map<boolean, Released>;
}

export const momentOf = (now: number, policy: NotificationPolicy): Moment => ({ now, zone: policy.quietHours.timezone, quiet: quietAt(now, policy.quietHours), released: new Map() });

/** Where a push and a chat message released now go: the devices' names, and the connections with their floors. */
export interface Recipients {
  devices: readonly string[];
  connections: readonly { name: string; minSeverity: ChannelFloor }[];
}

export const noRecipients: Recipients = { devices: [], connections: [] };

/** The connections whose floor a severity reaches, by name. */
export const connectionsReached = (connections: Recipients['connections'], severity: NotificationSeverity): string[] =>
  connections.filter((connection) => severityRank[severity] >= severityRank[connection.minSeverity]).map((connection) => connection.name);

/** "Phone", "Phone and Laptop", "Phone, Tablet, and Laptop". */
const listed = (names: readonly string[]) => new Intl.ListFormat('en', { type: 'conjunction' }).format(names);

/** What an email or push row's reason says when it goes out or waits (a browser row says what `release` does). */
export const channelWhy: Record<Exclude<InterruptChannel, 'browser'>, (status: DeliveryRow['status']) => string> = {
  email: (status) => (status === 'sent' ? 'queued for SendGrid' : 'kept for the digest email'),
  push: (status) => (status === 'sent' ? 'queued for each subscribed device' : 'kept for the digest push'),
  chat: (status) => (status === 'sent' ? 'queued for each chat and webhook connection' : 'kept for the digest message'),
};

/** What becomes of an interruption: its status, why, and for one that waits, until when and for what. */
export interface Fate {
  status: DeliveryRow['status'];
  reason: string;
  dueAt?: number | null;
  heldFor?: DeliveryRow['heldFor'];
}

export type Released = Fate & { status: 'sent' | 'deferred'; entry: DecisionTraceEntry };

/**
 * Where an interruption sent now went, channel by channel, for its "Why?" line: the open tabs (when the browser is
 * among them), the email, each device and each chat connection its severity reaches. The same words whether it went
 * at once or when its hold ended.
 */
export function sentTo(out: Released, channels: readonly InterruptChannel[], recipients: Recipients, severity: NotificationSeverity): string {
  const { devices, connections } = recipients;
  const reached = connectionsReached(connections, severity);
  const also = [
    ...(channels.includes('email') ? ['queued for email (SendGrid)'] : []),
    ...(channels.includes('push') ? [`pushed to ${devices.length > 0 ? listed(devices) : 'each subscribed device'}`] : []),
    ...(channels.includes('chat') ? [reached.length > 0 ? `sent to ${listed(reached)}` : `no chat connection takes ${severity}`] : []),
  ];
  return [...(channels.includes('browser') || also.length === 0 ? [out.entry.why] : []), ...also].join('; ');
}

/**
 * Sent now, or deferred to the digest when quiet hours or the pause hold interruptions back. Worked out once per
 * moment and bypass (its wording reads the zone's wall clock, which is not cheap on every event of a batch).
 */
export function release(moment: Moment, bypass: boolean): Released {
  let out = moment.released.get(bypass);
  if (!out) moment.released.set(bypass, (out = releaseAt(moment, bypass)));
  return out;
}

function releaseAt({ now, zone, quiet }: Moment, bypass: boolean): Released {
  if (!quiet.quiet) {
    const why = 'sent to the open dashboard tabs: a browser notification where the dashboard is hidden, a toast where it is in view';
    return { status: 'sent', reason: why, entry: step('delivery', 'sent', why) };
  }
  const stage = quiet.reason === 'pause' ? 'pause' : 'quiet_hours';
  const until = quiet.endsAt === undefined ? 'until the settings change' : `until ${wall(quiet.endsAt, now, zone)}`;
  if (bypass) {
    const why = `${stage === 'pause' ? 'paused' : 'quiet hours'} ${until}, but this one goes through (critical, or a rule says so)`;
    return { status: 'sent', reason: why, entry: step(stage, 'sent', why) };
  }
  const why = `${stage === 'pause' ? 'notifications are paused' : 'quiet hours'} ${until}: kept for the digest`;
  return { status: 'deferred', reason: why, heldFor: stage, dueAt: quiet.endsAt ?? null, entry: step(stage, 'deferred', why) };
}
