import { createHmac, randomBytes } from 'node:crypto';
import {
  destinationUrl,
  answerReason,
  refusalOutcome,
  sendRequest,
  type ChannelAdapter,
  type ChannelAdapterOptions,
  type ChannelMessage,
  type ChannelOutcome,
} from '../channel.ts';

/** Where the signed webhook goes: the owner's receiver and the secret it verifies with (`whsec_<base64>`). */
export interface SignedWebhookDestination {
  url: string;
  secret: string;
}

const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks: a symmetric secret is at least 24 bytes (192 bits) and at most 64 (512 bits). */
const SECRET_BYTES = { min: 24, max: 64 } as const;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A fresh signing secret in Standard Webhooks' form: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key a secret stands for (the base64 after `whsec_`), or undefined when it is not a Standard Webhooks secret. */
export function webhookSecretKey(secret: string): Buffer | undefined {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  // Buffer.from skips what is not base64; a strict check keeps a mistyped secret from signing with other bytes.
  if (encoded === '' || !BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= SECRET_BYTES.min && key.length <= SECRET_BYTES.max ? key : undefined;
}

/** The `webhook-signature` value: `v1,` and the base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` (Standard Webhooks). */
export function webhookSignature(key: Uint8Array, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/**
 * The payload Standard Webhooks recommends: `type` (full-stop delimited), `timestamp` (when the event occurred, so
 * every try carries the same body) and `data`. Strangers' text is JSON string data, escaped by JSON alone.
 */
export function webhookPayload(message: ChannelMessage): string {
  return JSON.stringify({
    type: `notification.${message.kind}`,
    timestamp: new Date(message.at).toISOString(),
    data: {
      id: message.id,
      title: message.title,
      body: message.body,
      severity: message.severity,
      url: message.url,
      tag: message.tag,
      project: message.project,
      at: new Date(message.at).toISOString(),
      recovers: message.recovers ?? null,
      thread: message.thread ?? null,
    },
  });
}

/**
 * Sends the signed webhook, per the Standard Webhooks specification: a JSON POST with `webhook-id` (the delivery's
 * id, the same on every try so the receiver dedupes), `webhook-timestamp` (this try, in seconds) and
 * `webhook-signature`. 2xx is sent; 410 (the receiver asks to be disabled) and 404 are gone; 429 and 5xx retry.
 */
export class SignedWebhookAdapter implements ChannelAdapter<SignedWebhookDestination> {
  constructor(private readonly options: ChannelAdapterOptions) {}

  send(destination: SignedWebhookDestination, message: ChannelMessage): Promise<ChannelOutcome> {
    return this.sendRaw(destination, { id: message.id, body: webhookPayload(message) });
  }

  /**
   * Posts a body rendered elsewhere (the briefing's `briefing.ready`) as `send` posts its own: the same address and
   * secret checks, the same Standard Webhooks headers (`id` is its `webhook-id`: the same on every try) and answers.
   */
  async sendRaw(destination: SignedWebhookDestination, payload: { id: string; body: string }): Promise<ChannelOutcome> {
    // The receiver's host is what a reason may name: the URL's path is often the receiver's own secret.
    const target = destinationUrl(destination.url, 'The webhook URL', 'loopback');
    if ('refused' in target) return { kind: 'refused', status: null, reason: target.refused };
    const key = webhookSecretKey(destination.secret);
    if (!key) return { kind: 'refused', status: null, reason: `The webhook secret is not a ${SECRET_PREFIX} secret of ${SECRET_BYTES.min} to ${SECRET_BYTES.max} bytes` };
    const { id, body } = payload;
    const service = `The webhook at ${target.host}`;
    const now = this.options.clock.now();
    const timestamp = Math.floor(now / 1000);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignature(key, id, timestamp, body),
    };
    const response = await sendRequest(this.options, target.url.href, { method: 'POST', headers, body }, service);
    if ('kind' in response) return response;
    if (response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'sent', status: response.status, providerId: null };
    }
    // Any receiver at all: its status only, never its words (ARCHITECTURE.md, Outgoing channels).
    await response.body?.cancel().catch(() => undefined);
    const hint = response.status >= 300 && response.status < 400 ? ' (a redirect: set the webhook to the address it points to)' : response.status === 410 ? ' (the receiver asks to stop)' : '';
    return refusalOutcome(response, `${answerReason(service, response.status)}${hint}`, now);
  }
}
