import { randomBytes } from 'node:crypto';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';
import { decryptPushMessage, DecryptError, newSubscriberKeys, type SubscriberKeys } from './ece.ts';
import { verifyVapid, type VapidClaims } from './vapid.ts';

export { decryptPushMessage, DecryptError, newSubscriberKeys, type SubscriberKeys } from './ece.ts';
export { parseVapidAuthorization, verifyVapid, type VapidCheck, type VapidClaims } from './vapid.ts';

/** A browser's `PushSubscription.toJSON()`. */
export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime: number | null;
  keys: { p256dh: string; auth: string };
}

/** One message as the fake push service received it, decrypted with the subscriber's keys. */
export interface ReceivedPush {
  subscriptionId: string;
  /** The decrypted payload, as UTF-8 text. */
  payload: string;
  ttl: number;
  urgency: string;
  topic: string | undefined;
  /** The VAPID key the request was signed with (base64url) and its JWT's claims. */
  vapid: { publicKey: string; claims: VapidClaims };
  at: number;
}

interface Subscription {
  keys: SubscriberKeys;
  /** The `applicationServerKey` the browser subscribed with: only it may push (RFC 8292 §4). */
  applicationServerKey: string | undefined;
  gone: boolean;
}

export interface SubscribeOptions {
  applicationServerKey?: string | undefined;
  keys?: SubscriberKeys | undefined;
}

/** The fake push service: its `SandboxService`, what it received, and the browser's side of subscribing. */
export interface FakePushService extends SandboxService {
  received: ReceivedPush[];
  /**
   * Plays a browser subscribing at this push service (served at `origin`): a new P-256 key pair and auth secret,
   * and an endpoint for them. With `applicationServerKey`, only pushes signed by that VAPID key are accepted; `keys`
   * stand in for fresh ones (a test replaying RFC 8291's worked example).
   */
  subscribe(origin: string, options?: SubscribeOptions): PushSubscriptionJson & { id: string };
  /** The browser unsubscribed (or the user revoked the permission): its endpoint answers 410 Gone from now on. */
  unsubscribe(id: string): void;
}

const URGENCIES = ['very-low', 'low', 'normal', 'high'];
/** RFC 8030 §5.4: a Topic is at most 32 characters of the URL- and filename-safe base64 alphabet. */
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;
/** RFC 8291 §4: a push message's body is at most 4096 octets. */
const MAX_BODY = 4096;

const problem = (status: number, reason: string, headers: Record<string, string> = {}): SandboxReply => ({ status, headers, body: { code: status, reason } });

/**
 * A Web Push service (RFC 8030) as browsers' push services answer an application server: `POST /push/:id` with an
 * `aes128gcm` body (RFC 8291), a `TTL` and a VAPID `Authorization` (RFC 8292) whose `aud` is this origin. It
 * decrypts each message with the subscriber's keys (it plays the browser too) and records it; 201 with a
 * `Location` for the message. A bad request is refused as the RFCs say: 400 (no TTL, a bad Topic or Urgency,
 * another encoding, a body that does not decrypt), 401/403 (VAPID), 404 (no such subscription), 410 (unsubscribed),
 * 413 (over 4096 bytes), 429 with `Retry-After` over its rate limit. A test injects other answers (5xx) as faults.
 */
export function pushService(now: number): FakePushService {
  void now;
  const received: ReceivedPush[] = [];
  const subscriptions = new Map<string, Subscription>();

  const deliver = (request: SandboxRequest): SandboxReply => {
    const id = request.params.id ?? '';
    const subscription = subscriptions.get(id);
    if (!subscription) return problem(404, 'No such subscription');
    if (subscription.gone) return problem(410, 'The subscription has expired or been unsubscribed');
    const vapid = verifyVapid(header(request, 'authorization'), request.origin, request.now);
    if (!vapid.ok) return problem(401, `VAPID: ${vapid.reason}`);
    if (subscription.applicationServerKey !== undefined && vapid.publicKey !== subscription.applicationServerKey) {
      return problem(403, 'VAPID: k is not the applicationServerKey this subscription was made with');
    }
    const ttl = header(request, 'ttl');
    if (ttl === undefined || !/^\d+$/.test(ttl)) return problem(400, 'TTL header is required (RFC 8030 §5.2)');
    const urgency = header(request, 'urgency') ?? 'normal';
    if (!URGENCIES.includes(urgency)) return problem(400, `Urgency is one of ${URGENCIES.join(', ')}`);
    const topic = header(request, 'topic');
    if (topic !== undefined && !TOPIC.test(topic)) return problem(400, 'Topic is at most 32 base64url characters');
    const body = request.rawBody ?? Buffer.alloc(0);
    if (body.length > MAX_BODY) return problem(413, `Payload over ${MAX_BODY} bytes`);
    let payload = '';
    if (body.length > 0) {
      if (header(request, 'content-encoding') !== 'aes128gcm') return problem(400, 'Content-Encoding must be aes128gcm (RFC 8291)');
      try {
        payload = decryptPushMessage(body, subscription.keys).toString('utf8');
      } catch (error) {
        if (error instanceof DecryptError) return problem(400, `The payload does not decrypt: ${error.message}`);
        throw error;
      }
    }
    received.push({ subscriptionId: id, payload, ttl: Number(ttl), urgency, topic, vapid: { publicKey: vapid.publicKey, claims: vapid.claims }, at: request.now });
    return { status: 201, headers: { location: `${request.origin}/message/${randomBytes(12).toString('base64url')}` }, body: '' };
  };

  return {
    name: 'push',
    basePath: '',
    received,
    // A push service authorizes per subscription (the VAPID check in the route), not with one token.
    authorize: () => true,
    unauthorized: () => problem(401, 'Unauthorized'),
    rateLimit: {
      limit: 1000,
      windowMs: 60_000,
      tooMany: (retryAfterMs) => problem(429, 'Too many messages', { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) }),
    },
    routes: [{ method: 'POST', path: '/push/:id', handle: deliver }],
    subscribe(origin, { applicationServerKey, keys = newSubscriberKeys() } = {}) {
      const id = randomBytes(16).toString('base64url');
      subscriptions.set(id, { keys, applicationServerKey, gone: false });
      return { id, endpoint: `${origin}/push/${id}`, expirationTime: null, keys: { p256dh: keys.publicKey.toString('base64url'), auth: keys.authSecret.toString('base64url') } };
    },
    unsubscribe(id) {
      const subscription = subscriptions.get(id);
      if (subscription) subscription.gone = true;
    },
    reset() {
      received.length = 0;
    },
  };
}

function header(request: SandboxRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
