import { createHash } from 'node:crypto';
import { threadPath, type PushPayload, type PushPointer } from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { DeliveryRow, PushSendOutcome, PushSendRow, Store } from '@dash/db';
import type { Logger } from '../logger.ts';
import { deliveryKind } from '../notifications/delivery-kind.ts';
import { OutboxSender, type OwnFields, type SendResult } from '../notifications/outbox-sender.ts';
import { pushServiceOf, type PushMessage, type PushOutcome } from './adapter.ts';
import type { PushDevices } from './devices.ts';

const MINUTE = 60_000;
/** After a 429, a 5xx or an unreachable push service: tried again after at least 30 s, 2, 10 and 30 minutes (or its Retry-After), then failed. */
export const PUSH_RETRY_MS: readonly number[] = [30_000, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE];
/**
 * The largest payload a push carries whole: a push message is at most 4096 bytes (RFC 8291 §4), and `aes128gcm` adds
 * an 86-byte header, a padding delimiter and a 16-byte tag. A larger one goes as a pointer the worker fetches.
 */
export const MAX_PUSH_PAYLOAD = 4096 - 86 - 1 - 16;

/**
 * How long a push service may keep a message for a device that is offline (its TTL, seconds): an outage, a failed
 * deploy or a recovery an hour late is noise (the dashboard says it better then); a digest may wait half a day.
 */
export function pushTtl(purpose: DeliveryRow['purpose']): number {
  return purpose === 'digest' ? 12 * 3600 : 3600;
}

/**
 * The push `Topic` for a notification tag (RFC 8030 §5.4: at most 32 base64url characters): the same tag, the same
 * topic, so a push service still holding an outage for an offline device replaces it with its recovery.
 */
export function pushTopic(tag: string): string {
  return createHash('sha256').update(tag).digest('base64url').slice(0, 32);
}

/** What a released push delivery carries to the service worker. */
export function pushPayloadOf(delivery: DeliveryRow): PushPayload {
  const { message } = delivery;
  return {
    kind: deliveryKind(delivery),
    notificationId: delivery.notificationId,
    title: message.title,
    body: message.body,
    severity: message.severity,
    tag: message.tag,
    url: threadPath(delivery.notificationId),
    renotify: message.renotify,
    requireInteraction: message.requireInteraction,
  };
}

/** The push for one delivery: its payload (or a pointer to it, when too large), with the headers RFC 8030 gives. */
function pushMessageOf(delivery: DeliveryRow, pointer: boolean): PushMessage {
  const payload = pushPayloadOf(delivery);
  const whole = JSON.stringify(payload);
  const short: PushPointer = { fetch: delivery.id, tag: payload.tag, url: payload.url };
  return {
    payload: pointer || Buffer.byteLength(whole) > MAX_PUSH_PAYLOAD ? JSON.stringify(short) : whole,
    ttl: pushTtl(delivery.purpose),
    urgency: payload.severity === 'error' ? 'high' : 'normal',
    topic: pushTopic(payload.tag),
  };
}

export interface PushSenderOptions {
  store: Store;
  devices: PushDevices;
  clock: Clock;
  log: Logger;
  retryMs?: readonly number[];
}

/**
 * Sends the push interruptions the policy released (the store queued one per device in the ingest's or tick's
 * transaction): claims due ones with a lease, 20 at a time for a minute (one process sends each: `OutboxSender`), sends
 * each once, and settles it: delivered; queued again after a 429, 5xx or unreachable push service (not before its
 * Retry-After, and no other push goes to that service meanwhile); `gone` on 404 or 410, which removes the device
 * (Settings says so); failed on any other refusal, or once it would arrive later than its TTL. A push too large for the
 * service (413) goes again as a pointer the service worker fetches. What each device last answered is written on it.
 */
export class PushSender extends OutboxSender<PushSendRow, PushSendOutcome> {
  constructor(private readonly options: PushSenderOptions) {
    super({
      clock: options.clock,
      log: options.log,
      name: 'push notifications',
      queue: options.store.push.sends,
      leaseMs: MINUTE,
      batch: 20,
      retryMs: options.retryMs ?? PUSH_RETRY_MS,
    });
  }

  protected async send(send: PushSendRow): Promise<SendResult<OwnFields<PushSendOutcome>>> {
    const { store, devices, clock, log } = this.options;
    const device = await store.push.get(send.subscriptionId);
    if (!device || device.removedAt !== null) return { kind: 'gone', reason: 'The device was removed before it was sent', fields: { status: null } };
    const { delivery } = send;
    const expiresAt = (delivery.sentAt ?? send.createdAt) + pushTtl(delivery.purpose) * 1000;
    if (clock.now() >= expiresAt) {
      return {
        kind: 'refused',
        reason: `Not sent: it would arrive after its ${pushTtl(delivery.purpose) / 60} minutes${send.error ? ` (last try: ${send.error})` : ''}`,
        fields: { status: send.status },
      };
    }
    const waiting = await devices.waitingFor(device.endpoint);
    // The push service asked for a pause: this one waits for it without using up a try.
    if (waiting !== undefined) return { kind: 'wait', until: waiting, fields: { status: send.status } };
    let outcome: PushOutcome;
    try {
      outcome = await devices.deliver(device, pushMessageOf(delivery, false));
      // Too large for this push service (some take less than 4 KB): the pointer, which the worker follows.
      if (outcome.kind === 'refused' && outcome.status === 413) outcome = await devices.deliver(device, pushMessageOf(delivery, true));
    } catch (error) {
      // Its keys cannot be opened (another credentials key) or the VAPID keys cannot be read: trying again will not help.
      outcome = { kind: 'refused', status: null, reason: `The push could not be made: ${(error as Error).message}` };
    }
    const now = clock.now();
    const service = pushServiceOf(device.endpoint);
    const fields = { status: outcome.status };
    switch (outcome.kind) {
      case 'sent':
        await store.push.succeeded(device.id, now);
        return { kind: 'sent', fields };
      case 'gone':
        // The device's row says so in Settings; what else waited for it goes nowhere.
        return {
          kind: 'gone',
          reason: outcome.reason,
          fields,
          settled: async () => {
            await store.push.gone(device.id, now, outcome.reason);
            log.info(`push: "${device.name}" (${service}) is gone: ${outcome.reason}`);
          },
        };
      case 'retry': {
        await store.push.failed(device.id, now, outcome.reason);
        const { status, afterMs } = outcome;
        return {
          kind: 'retry',
          afterMs,
          reason: outcome.reason,
          fields,
          // The service's own pause holds for every push to it, from every process.
          retrying: async () => {
            if (status === 429 || (status !== null && status >= 500)) await devices.holdBack(device.endpoint, now + afterMs);
          },
          gaveUp: (attempts) => log.warn(`push to "${device.name}" (${service}) failed after ${attempts} tries: ${outcome.reason}`),
        };
      }
      case 'refused':
        await store.push.failed(device.id, now, outcome.reason);
        return { kind: 'refused', reason: outcome.reason, fields, settled: () => log.warn(`push to "${device.name}" (${service}) refused: ${outcome.reason}`) };
    }
  }
}
