import { z } from 'zod';
import { isLoopbackHost, ownerPasswordSchema } from './auth.ts';

/** How many bytes a base64url string (padded or not) holds, or -1 when it is not base64url. */
export function base64urlBytes(text: string): number {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return -1;
  const bare = text.replace(/=+$/, '');
  if (bare.length % 4 === 1) return -1;
  return Math.floor((bare.length * 3) / 4);
}

/** `GET /api/push/key`: the VAPID public key, base64url, as `pushManager.subscribe({ applicationServerKey })` takes it. */
export const pushKeySchema = z.object({ publicKey: z.string() });
export type PushKey = z.infer<typeof pushKeySchema>;

/** Why an endpoint may not be one, or undefined: https anywhere, plain http only to a loopback address (a push service under test). */
export function pushEndpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint is not a URL';
  }
  if (url.username || url.password) return 'endpoint carries credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? undefined : 'endpoint must be https (plain http only to a loopback address)';
  return `endpoint must be https, not ${url.protocol.replace(/:$/, '')}`;
}

/**
 * `POST /api/push/subscriptions`: the browser's `PushSubscription.toJSON()` and a name for the device. `p256dh` is an
 * uncompressed P-256 point (65 bytes), `auth` a 16-byte secret, both base64url; whether the point is on the curve is
 * checked where the key is used. `password` confirms it once a password is set: a new device is where our data goes.
 */
export const pushSubscribeSchema = z.object({
  endpoint: z
    .string()
    .max(2048)
    .superRefine((endpoint, check) => {
      const problem = pushEndpointProblem(endpoint);
      if (problem) check.addIssue({ code: 'custom', message: problem });
    }),
  expirationTime: z.number().int().nonnegative().nullable().optional(),
  keys: z.object({
    p256dh: z.string().refine((key) => base64urlBytes(key) === 65, 'keys.p256dh is an uncompressed P-256 point: 65 bytes, base64url'),
    auth: z.string().refine((key) => base64urlBytes(key) === 16, 'keys.auth is 16 bytes, base64url'),
  }),
  name: z.string().trim().min(1, 'Name the device (“Phone”, “Work laptop”)').max(80),
  password: ownerPasswordSchema,
});
export type PushSubscribe = z.infer<typeof pushSubscribeSchema>;

/**
 * Where the contact push services may write to about our pushes (RFC 8292's `sub`) comes from, first found first:
 * `env` VAPID_SUBJECT, `saved` the address saved in Settings → Notifications → Devices, `alert_email` the first alert
 * address, `origin` the dashboard's https ORIGIN.
 */
export const pushContactSources = ['env', 'saved', 'alert_email', 'origin'] as const;
export type PushContactSource = (typeof pushContactSources)[number];

/**
 * `GET /api/push/contact`: whether push services have a contact (without one every push is refused, so Settings asks
 * for one before a device subscribes) and where it comes from. The addresses are the owner's: null for an API token.
 */
export const pushContactSchema = z.object({
  configured: z.boolean(),
  source: z.enum(pushContactSources).nullable(),
  /** The subject sent with each push: `mailto:…` or `https://…`. */
  subject: z.string().nullable(),
  /** The address saved in Settings (kept while VAPID_SUBJECT overrides it). */
  saved: z.string().nullable(),
  /** The first alert address, offered for the field while none is saved. */
  suggestion: z.string().nullable(),
});
export type PushContact = z.infer<typeof pushContactSchema>;

/** `PUT /api/push/contact`: an email address for push services to write to (the owner's), or null to remove the saved one. */
export const pushContactSaveSchema = z.strictObject({
  email: z
    .string({ error: 'email is an email address (you@example.com), or null to remove the saved one' })
    .trim()
    .max(254, 'An email address is at most 254 characters')
    .check(z.email({ error: 'An email address, such as you@example.com' }))
    .nullable(),
});
export type PushContactSave = z.infer<typeof pushContactSaveSchema>;

const instant = z.iso.datetime().nullable();

/** A device as Settings lists it: never its keys, and of its endpoint only the push service's host. */
export const pushDeviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The browser, as its user agent names it. */
  browser: z.string().nullable(),
  /** The push service the device is reached through (`fcm.googleapis.com`, `updates.push.services.mozilla.com`…). */
  pushService: z.string(),
  createdAt: z.iso.datetime(),
  /** When the browser said the subscription ends, if it did. */
  expiresAt: instant,
  lastSuccessAt: instant,
  lastFailureAt: instant,
  /** The push service's status and (a known service's) own error; the owner's only: null for an API token. */
  lastFailure: z.string().nullable(),
  /** When the push service said the subscription is gone (404, 410): the device gets nothing more; subscribe it again. */
  removedAt: instant,
});
export type PushDevice = z.infer<typeof pushDeviceSchema>;

export const pushDevicesSchema = z.object({ devices: z.array(pushDeviceSchema) });

export const pushDeviceIdInput = z.object({ id: z.string().min(1).max(64) });

/** `POST /api/push/test`: `{}` for every device, `{ id }` for one. */
export const pushTestSchema = z.strictObject({ id: z.string().min(1).max(64).optional() });

/**
 * How one device's test push went: `sent` (the push service took it), `retry` (429 or 5xx: not before `retryAt`),
 * `gone` (404/410: the device was removed), `refused` (another answer, or unreachable: the device's last failure).
 */
export const pushTestResultSchema = z.object({
  id: z.string(),
  name: z.string(),
  outcome: z.enum(['sent', 'retry', 'gone', 'refused']),
  /** The push service's HTTP status, when it answered. */
  status: z.number().int().nullable(),
  /** For `retry`: when the push service takes messages again (its Retry-After, else a minute). */
  retryAt: instant,
  message: z.string(),
});
export type PushTestResult = z.infer<typeof pushTestResultSchema>;

export const pushTestResultsSchema = z.object({ results: z.array(pushTestResultSchema) });

/**
 * What a push carries to the service worker (encrypted end to end: the push service sees only its size). `kind`:
 * an interruption (`alert`), the recovery that replaces its outage (`resolve`), a digest, or a test. The worker
 * shows it with `tag` (the page's own desktop notification and the toast use the same tag, so a device shows one),
 * and a click opens `url` (`/?notification=<id>`, the thread).
 */
export const pushPayloadSchema = z.object({
  kind: z.enum(['alert', 'resolve', 'digest', 'test']),
  /** The inbox row (thread) it is about; null for a digest or a test. */
  notificationId: z.string().nullable(),
  title: z.string(),
  body: z.string(),
  severity: z.enum(['info', 'success', 'warning', 'error']),
  tag: z.string(),
  /** A path on the dashboard's origin: where a click goes. */
  url: z.string(),
  /** Alert again even though a notification with this tag is showing (a recovery replaces its outage quietly). */
  renotify: z.boolean(),
  requireInteraction: z.boolean(),
});
export type PushPayload = z.infer<typeof pushPayloadSchema>;

/**
 * What a push carries when the whole message was too large for the push service (413: a push service takes at most
 * 4 KB): the worker asks `GET /api/push/messages/:id` for the message (signed in, same origin) and shows it as above;
 * `tag` and `url` let it show something if that fails.
 */
export const pushPointerSchema = z.object({ fetch: z.string(), tag: z.string(), url: z.string() });
export type PushPointer = z.infer<typeof pushPointerSchema>;
