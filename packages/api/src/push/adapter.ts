import { parseRetryAfter, refusedAddressIn, refusedBaseUrl } from '@dash/connectors';
import webpush from 'web-push';
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
 * How a push went, in the shape every outgoing channel answers (ARCHITECTURE.md, Outgoing channels): `sent`; `retry`
 * after `afterMs` (429 with its Retry-After, 5xx, unreachable); `gone` (404, 410: the subscription no longer exists);
 * `refused` (another answer, or a destination the address guard refuses). `reason` never holds the keys.
 */
export type PushOutcome =
  | { kind: 'sent'; status: number }
  | { kind: 'retry'; status: number | null; afterMs: number; reason: string }
  | { kind: 'gone'; status: number; reason: string }
  | { kind: 'refused'; status: number | null; reason: string };

/** When a push service gives no Retry-After with its 429 or 5xx. */
export const DEFAULT_RETRY_MS = 60_000;
const TIMEOUT_MS = 15_000;

/** The push service's host: what a log line or an answer may say of an endpoint (its path is the device's capability). */
export const pushServiceOf = (endpoint: string): string => {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'an invalid endpoint';
  }
};

/**
 * Sends Web Push: web-push encrypts the payload (RFC 8291 `aes128gcm`) and signs the VAPID JWT (RFC 8292) for the
 * endpoint's origin; the request itself goes through our guarded fetch (web-push's own sender takes only an https
 * Agent and no fetch), so a link-local or metadata address is refused at connect time, as for every upstream.
 */
export class WebPushAdapter {
  constructor(
    private readonly options: { fetch: typeof fetch; now: () => number },
  ) {}

  async send(destination: PushDestination, message: PushMessage, vapid: VapidKeyPair & { subject: string }): Promise<PushOutcome> {
    const refused = refusedBaseUrl(destination.endpoint);
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
    let response: Response;
    try {
      response = await this.options.fetch(request.endpoint, {
        method: 'POST',
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        body: request.body ? new Uint8Array(request.body) : null,
        // A push service answers; it does not redirect. Following one would carry the message elsewhere.
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      const address = refusedAddressIn(error);
      if (address) return { kind: 'refused', status: null, reason: address.message };
      return { kind: 'retry', status: null, afterMs: DEFAULT_RETRY_MS, reason: `The push service ${pushServiceOf(destination.endpoint)} could not be reached` };
    }
    return this.outcomeOf(response, destination.endpoint);
  }

  private async outcomeOf(response: Response, endpoint: string): Promise<PushOutcome> {
    const { status } = response;
    const said = (await response.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 200);
    const service = pushServiceOf(endpoint);
    const because = `The push service ${service} answered ${status}${said ? `: ${said}` : ''}`;
    if (status >= 200 && status < 300) return { kind: 'sent', status };
    if (status === 404 || status === 410) return { kind: 'gone', status, reason: `${because} (the subscription no longer exists)` };
    if (status === 429 || status >= 500) {
      const afterMs = parseRetryAfter(response.headers.get('retry-after'), this.options.now()) ?? DEFAULT_RETRY_MS;
      return { kind: 'retry', status, afterMs, reason: because };
    }
    return { kind: 'refused', status, reason: because };
  }
}
