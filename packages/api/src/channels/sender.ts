import type { Clock } from '@dash/connectors';
import type { ChannelSendOutcome, ChannelSendRow, DeliveryRow, Store } from '@dash/db';
import type { Logger } from '../logger.ts';
import { deliveryKind } from '../notifications/delivery-kind.ts';
import { OutboxSender, type OwnFields, type SendResult } from '../notifications/outbox-sender.ts';
import type { ChannelMessage, ChannelOutcome } from './channel.ts';
import type { ChannelConnections } from './connections.ts';

const MINUTE = 60_000;
/** After a 429, a 5xx or an unreachable service: tried again after at least 30 s, 2, 10 and 30 minutes (or the service's own hint), then failed. */
export const CHAT_RETRY_MS: readonly number[] = [30_000, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE];

/** A released chat delivery as the adapters take it; `recovers` is filled in per connection. */
export function channelMessageOf(delivery: DeliveryRow, origin: string | undefined): ChannelMessage {
  const { message } = delivery;
  return {
    id: delivery.id,
    kind: deliveryKind(delivery),
    title: message.title,
    body: message.body,
    severity: message.severity,
    url: origin === undefined ? null : delivery.notificationId === null ? `${origin}/` : `${origin}/?notification=${encodeURIComponent(delivery.notificationId)}`,
    tag: message.tag,
    project: null,
    at: delivery.sentAt ?? delivery.createdAt,
  };
}

export interface ChatSenderOptions {
  store: Store;
  connections: ChannelConnections;
  clock: Clock;
  log: Logger;
  retryMs?: readonly number[];
}

/** A claim's threads and projects, read once: a delivery goes to each connection. */
type Threads = Map<string, Promise<Pick<ChannelMessage, 'thread' | 'project'>>>;

/**
 * Sends the chat interruptions the policy released (the store queued one per connection in the ingest's or tick's
 * transaction): claims due ones with a lease, 20 at a time for two minutes (one process sends each: `OutboxSender`),
 * sends each once and settles it: delivered (with the service's message id, which the thread's recovery edits or
 * replies to); queued again after a 429, 5xx or unreachable service, not before the service's own hint; on a refusal
 * for good the connection needs attention and what waited for it goes nowhere. A recovery goes only where its outage
 * went.
 */
export class ChatSender extends OutboxSender<ChannelSendRow, ChannelSendOutcome, Threads> {
  constructor(private readonly options: ChatSenderOptions) {
    super({
      clock: options.clock,
      log: options.log,
      name: 'chat notifications',
      queue: options.store.channels.sends,
      leaseMs: 2 * MINUTE,
      batch: 20,
      retryMs: options.retryMs ?? CHAT_RETRY_MS,
    });
  }

  protected override claimContext(): Promise<Threads> {
    return Promise.resolve<Threads>(new Map());
  }

  /** The thread as it stands now, and its project's name (the message's Project field). */
  private async threadOf(notificationId: string): Promise<Pick<ChannelMessage, 'thread' | 'project'>> {
    const { store } = this.options;
    const [thread] = await store.notifications.read((ops) => ops.rows([notificationId]));
    if (!thread) return { thread: null, project: null };
    const project = thread.projectSlug ? ((await store.projects.get(thread.projectSlug))?.name ?? thread.projectSlug) : null;
    return { thread: { id: thread.id, status: thread.status, eventCount: thread.eventCount, decision: thread.decision }, project };
  }

  /** The message a recovery (its outage) or a flap's end (the flap's start) answers on a connection, if it went there. */
  private async answered(connectionId: string, delivery: DeliveryRow): Promise<ChannelSendRow | undefined> {
    const { sends } = this.options.store.channels;
    if (delivery.purpose === 'flap_end') return delivery.subjectKey === null ? undefined : sends.flapStart(connectionId, delivery.subjectKey);
    return delivery.notificationId === null ? undefined : sends.outage(connectionId, delivery.notificationId);
  }

  protected async send(send: ChannelSendRow, threads: Threads): Promise<SendResult<OwnFields<ChannelSendOutcome>>> {
    const { store, connections, log } = this.options;
    const none = { status: null, providerId: null };
    const connection = await store.channels.get(send.connectionId);
    if (!connection) return { kind: 'gone', reason: 'The connection was removed before it was sent', fields: none };
    if (connection.attentionAt !== null) {
      return { kind: 'refused', reason: `Not sent: the connection needs attention (${connection.attention ?? 'refused'})`, fields: { status: send.status, providerId: null } };
    }
    const { delivery } = send;
    const message = channelMessageOf(delivery, connections.origin);
    // A digest tells a connection only what reaches its floor (its floor changed since it was queued: maybe nothing).
    const { floors } = delivery.message;
    if (delivery.purpose === 'digest' && floors !== undefined) {
      const words = floors[connection.minSeverity];
      if (!words) return { kind: 'skipped', reason: 'Nothing in the digest reaches this connection’s floor', fields: none };
      Object.assign(message, words);
    }
    const { notificationId } = delivery;
    if (notificationId !== null) {
      if (!threads.has(notificationId)) threads.set(notificationId, this.threadOf(notificationId));
      Object.assign(message, await threads.get(notificationId));
    }
    // A recovery goes only where its outage went, and a flap's end ("stable again" or "still down") only where the
    // flap's start went (on whichever of the subject's rows it is filed: another outage may have come during the flap).
    if (message.kind === 'resolve' || delivery.purpose === 'flap_end') {
      const outage = await this.answered(connection.id, delivery);
      if (!outage) {
        return { kind: 'skipped', reason: `Its ${delivery.purpose === 'flap_end' ? '"flapping" notice' : 'outage'} was not sent to this connection`, fields: none };
      }
      // A recovery names (or edits, or replies to) the outage's message there.
      if (message.kind === 'resolve') {
        message.recovers = {
          title: outage.delivery.message.title,
          // From when the outage came in (not when a hold let it out) to when its recovery did.
          lastedMs: Math.max(0, delivery.createdAt - outage.delivery.createdAt),
          providerId: outage.providerId,
        };
      }
    }
    const outcome: ChannelOutcome = await connections.send(connection, message);
    switch (outcome.kind) {
      case 'sent':
        return { kind: 'sent', fields: { status: outcome.status, providerId: outcome.providerId } };
      case 'retry':
        return {
          kind: 'retry',
          afterMs: outcome.afterMs,
          reason: outcome.reason,
          fields: { status: outcome.status, providerId: null },
          gaveUp: (attempts) => log.warn(`chat: to "${connection.name}" (${connection.kind}) failed after ${attempts} tries: ${outcome.reason}`),
        };
      case 'gone':
      case 'refused':
        // The connection is marked (connections.send did); this one, and what else waited, go nowhere.
        return { kind: outcome.kind, reason: outcome.reason, fields: { status: outcome.status, providerId: null } };
    }
  }
}
