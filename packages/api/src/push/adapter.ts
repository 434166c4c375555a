import { createHash } from 'node:crypto';
import { refusedBaseUrl, type AddressScope } from '@dash/connectors';
import webpush from 'web-push';
import { answerReason, knownError, refusalOutcome, sendRequest, type ChannelAdapterOptions, type ChannelOutcome } from '../channels/channel.ts';
import type { VapidKeyPair } from './vapid-keys.ts';

/** Where a push goes: the device's endpoint and its keys (in clear only here, for the encryption). */
export interface PushDestination {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** One push: its payload and the headers RFC 8030 gives the push service. */
export interface PushMessage {
  payload: string;
  /** Seconds the push service may hold it for an unreachable device. */
  ttl: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  /** A message with the same topic replaces one still held (at most 32 base64url characters). */
  topic?: string | undefined;
}

/**
 * How a push went, in the shape every outgoing channel answers (ARCHITECTURE.md, Outgoing channels; channels/channel.ts):
 * `sent`; `retry` after `afterMs` (429 with its Retry-After, 5xx, unreachable); `gone` (404, 410: the subscription no
 * longer exists); `refused` (another answer, or a destination the address guard refuses). `reason` never holds the keys.
 */
export type PushOutcome = ChannelOutcome;

/** The push service's host: what a log line or an answer may say of an endpoint (its path is the device's capability). */
export const pushServiceOf = (endpoint: string): string => {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'an invalid endpoint';
  }
};

/**
 * What the store keeps of a device's endpoint: its push service's origin and a SHA-256 of the whole endpoint
 * (`https://fcm.googleapis.com/#<digest>`). The endpoint is a capability (whoever holds it and the keys pushes to the
 * device), so it is sealed with the keys; this finds the device again (the same browser subscribing again, or signing
 * out) and names its push service, and a digest cannot be turned back into the endpoint.
 */
export function endpointRef(endpoint: string): string {
  const digest = createHash('sha256').update(endpoint).digest('base64url');
  try {
    return `${new URL(endpoint).origin}/#${digest}`;
  } catch {
    return `invalid:#${digest}`;
  }
}

/** Whether a stored `endpoint` is a reference (`endpointRef`), not an endpoint kept in clear before they were sealed. */
export const isEndpointRef = (stored: string): boolean => /^(?:https?:\/\/[^/]+\/|invalid:)#[\w-]{43}$/.test(stored);

/**
 * A known push service's documented error in its answer, or undefined (the status alone is kept): Mozilla's autopush
 * answers JSON with `errno` and `message`; Apple's web push JSON with `reason`. FCM's web push endpoint documents no
 * error body, and any other host is not a push service we know: their answers stay unread.
 */
export function pushServiceError(endpoint: string, said: string): string | undefined {
  const host = pushServiceOf(endpoint).toLowerCase();
  if (host === 'push.services.mozilla.com' || host.endsWith('.push.services.mozilla.com')) {
    return knownError(said, [{ field: 'message' }, { field: 'errno', label: 'errno' }]);
  }
  if (host === 'push.apple.com' || host.endsWith('.push.apple.com')) return knownError(said, [{ field: 'reason' }]);
  return undefined;
}

/**
 * Sends Web Push: web-push encrypts the payload (RFC 8291 `aes128gcm`) and signs the VAPID JWT (RFC 8292) for the
 * endpoint's origin; the request itself goes through our guarded fetch (web-push's own sender takes only an https
 * Agent and no fetch), so a link-local or metadata address is refused at connect time, as for every upstream.
 */
export class WebPushAdapter {
  /**
   * `scope`: which addresses an endpoint may have (`public` unless PUSH_ALLOW_PRIVATE_ENDPOINTS): checked here on a
   * literal IP; `fetch` must check the same at connect time (`publicOnlyFetch` for `public`), for a name resolving to one.
   */
  constructor(private readonly options: ChannelAdapterOptions & { scope: AddressScope }) {}

  async send(destination: PushDestination, message: PushMessage, vapid: VapidKeyPair & { subject: string }): Promise<PushOutcome> {
    const refused = refusedBaseUrl(destination.endpoint, this.options.scope);
    if (refused) return { kind: 'refused', status: null, reason: refused };
    let request: ReturnType<typeof webpush.generateRequestDetails>;
    try {
      request = webpush.generateRequestDetails(destination, message.payload, {
        vapidDetails: vapid,
        TTL: message.ttl,
        urgency: message.urgency,
        contentEncoding: 'aes128gcm',
        ...(message.topic ? { topic: message.topic } : {}),
      });
    } catch (error) {
      // web-push refuses what it cannot encrypt or sign (a subject that is not mailto:/https:, a bad Topic): its words, no keys.
      return { kind: 'refused', status: null, reason: `The push was not made: ${(error as Error).message.split('\n')[0]?.slice(0, 200) ?? ''}` };
    }
    const service = `The push service ${pushServiceOf(destination.endpoint)}`;
    // A push service answers; it does not redirect (sendRequest follows none: one would carry the message elsewhere).
    const response = await sendRequest(
      this.options,
      request.endpoint,
      {
        method: 'POST',
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        body: request.body ? new Uint8Array(request.body) : null,
      },
      service,
    );
    if ('kind' in response) return response;
    const said = await response.text().catch(() => '');
    if (response.ok) return { kind: 'sent', status: response.status, providerId: null };
    const outcome = refusalOutcome(response, answerReason(service, response.status, pushServiceError(destination.endpoint, said)), this.options.clock.now());
    return outcome.kind === 'gone' ? { ...outcome, reason: `${outcome.reason} (the subscription no longer exists)` } : outcome;
  }
}
