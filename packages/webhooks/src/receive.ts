import { notificationSeverities, type RefusalReason } from '@dash/contracts';
import { z } from 'zod';
import { providerOf, providers, relayIntegrations, type RelayIntegration } from './integrations.ts';
import { readJson } from './json.ts';
import type { DeliveryInfo, HeaderBag, ParseResult, RelayEvent } from './types.ts';

/**
 * The limits of receiving a webhook, the relay's and the dashboard's local route's alike (SPEC.md):
 * 256 KB bodies, 100 deliveries a minute per integration and address, a delivery id remembered for
 * 5 minutes, a signed send time at most 5 minutes off.
 */
export const RECEIVE_LIMITS = {
  bodyBytes: 256 * 1024,
  webhooksPerMinute: 100,
  windowMs: 60_000,
  deliveryMemoryMs: 5 * 60_000,
  freshnessMs: 5 * 60_000,
} as const;

/**
 * Reads a request's body while counting its bytes: undefined as soon as it is longer than `limit`, whatever
 * Content-Length said. It stops reading without cancelling the stream, so the 413 can still be sent (with
 * `Connection: close`, which drops the unread rest with the connection).
 */
export async function readBodyWithin(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) return undefined;
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) return undefined;
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks);
}

export const isJsonType = (type: string | null | undefined) => /^application\/json\s*(;|$)/i.test(type ?? '');

/** What a delivery's own checks concluded: pure and local, before the store has its say. */
export interface Judgement {
  integration: RelayIntegration;
  /** The provider's delivery id, or the body's SHA-256: what replay protection remembers. */
  deliveryId: string;
  /** The signed send time is too far from now. */
  stale: boolean;
  /** A configured secret matches (never true when stale). */
  verified: boolean;
  /** The parse of a verified body. */
  parsed: ParseResult | undefined;
  /** The events to store, when the delivery passed every check of its own. */
  events: RelayEvent[] | undefined;
  /** The provider's word for the delivery's kind (`ping`, `issue`), read once its signature passed (see `deliveryKind`). */
  kind: string | undefined;
}

/** The body as UTF-8 text, read in place (Buffer.from of a Uint8Array would copy it first). */
const textOf = (body: Uint8Array) => Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');

/** The JSON body's own `type` (Linear's `Issue`, Vercel's `deployment.created`), when it is a short string. */
function bodyType(body: Uint8Array): string | undefined {
  const json = readJson(body);
  const type = json.ok && typeof json.value === 'object' && json.value !== null ? (json.value as { type?: unknown }).type : undefined;
  return typeof type === 'string' && type.length > 0 && type.length <= 100 ? type : undefined;
}

/**
 * The provider's name for a delivery's kind: GitHub's `X-GitHub-Event`, Sentry's `Sentry-Hook-Resource`, else the
 * body's `type` (Linear, Vercel, Better Stack's).
 */
export function deliveryKind(integration: RelayIntegration, body: Uint8Array, headers: HeaderBag): string | undefined {
  const header = integration === 'code_host' ? headers.get('x-github-event') : integration === 'error_tracker' ? headers.get('sentry-hook-resource') : null;
  if (header) return header.slice(0, 100);
  return bodyType(body);
}

/**
 * Identifies, checks the freshness and the signature, and parses one delivery, in the spec's order. Each event
 * carries its delivery (id, kind) and, with `forwardBody`, the first one the raw body as text.
 */
export function judgeDelivery(
  integration: RelayIntegration,
  body: Uint8Array,
  headers: HeaderBag,
  secrets: readonly string[],
  now: number,
  { forwardBody = false }: { forwardBody?: boolean } = {},
): Judgement {
  const provider = providers[integration];
  const identity = provider.identify(body, headers);
  const stale = identity.timestamp !== undefined && Math.abs(now - identity.timestamp) > RECEIVE_LIMITS.freshnessMs;
  const verified = !stale && provider.verify(body, headers, secrets);
  const receivedAt = new Date(now);
  const parsed = verified ? provider.parse(body, headers, receivedAt) : undefined;
  const received = receivedAt.toISOString();
  const kind = verified ? deliveryKind(integration, body, headers) : undefined;
  let events: RelayEvent[] | undefined;
  if (parsed?.ok) {
    const delivery: DeliveryInfo = { id: identity.deliveryId, ...(kind === undefined ? {} : { kind }) };
    const text = forwardBody ? textOf(body) : undefined;
    events = parsed.events.map((event, index) => ({
      ...event,
      id: crypto.randomUUID(),
      receivedAt: received,
      delivery: index === 0 && text !== undefined ? { ...delivery, body: text } : delivery,
    }));
  }
  return { integration, deliveryId: identity.deliveryId, stale, verified, parsed, events, kind };
}

/** The answer a webhook sender gets: its status and JSON body. */
export interface Answer {
  status: 200 | 400 | 401 | 409 | 429;
  body: { received: true; eventCount: number } | { error: { code: string; message: string } };
  retryAfterMs?: number;
}

/** What the store said about the delivery: over the rate limit, a replay, or admitted (and stored, when it had events). */
export type StoreVerdict = { outcome: 'rate_limited'; retryAfterMs: number } | { outcome: 'duplicate' } | { outcome: 'admitted' } | { outcome: 'stored' };

const error = (status: Answer['status'], code: string, message: string, retryAfterMs?: number): Answer => ({
  status,
  body: { error: { code, message } },
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

/** The verdicts in the spec's order: rate limit, replay, freshness, signature, payload; then the receipt. */
export function answerDelivery(judgement: Judgement, verdict: StoreVerdict): Answer {
  if (verdict.outcome === 'rate_limited') return error(429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded', verdict.retryAfterMs);
  if (verdict.outcome === 'duplicate') return error(409, 'CONFLICT', 'This delivery was already received');
  if (judgement.stale) return error(409, 'CONFLICT', 'The delivery is more than 5 minutes old (or ahead of the clock)');
  if (!judgement.verified) return error(401, 'UNAUTHORIZED', 'The signature or token does not match a configured secret');
  if (!judgement.parsed?.ok) return error(400, 'BAD_REQUEST', judgement.parsed?.error ?? 'Unparseable payload');
  return { status: 200, body: { received: true, eventCount: judgement.events?.length ?? 0 } };
}

/**
 * Why the store's verdict and the delivery's own checks turned a delivery away, in `answerDelivery`'s order (429,
 * 409 replay, 409 stale, 401, 400); `not_handled` when it was taken in but no event came of it (GitHub's `ping`).
 * Undefined when events were stored.
 */
export function refusalOf(judgement: Judgement, verdict: StoreVerdict): RefusalReason | undefined {
  if (verdict.outcome === 'rate_limited') return 'rate_limited';
  if (verdict.outcome === 'duplicate') return 'replayed_delivery';
  if (judgement.stale) return 'stale_timestamp';
  if (!judgement.verified) return 'bad_signature';
  if (!judgement.parsed?.ok) return 'invalid_payload';
  return (judgement.events?.length ?? 0) === 0 ? 'not_handled' : undefined;
}

/** A comma-separated variable as its values (rotation lists). */
export const commaList = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
/** A `true` switch, whatever its case. */
export const isTrue = (value: string | undefined) => value?.trim().toLowerCase() === 'true';
const namesOf = (integration: RelayIntegration) => [integration.toUpperCase(), providerOf[integration].toUpperCase()];

/** Where deliveries are taken from the environment: the signing secrets and the kill switches. */
export interface ReceiveSettings {
  /** RELAY_ENABLED=false stops all ingestion. */
  enabled: boolean;
  /** RELAY_DISABLE_<INTEGRATION>=true stops one. */
  disabled: ReadonlySet<RelayIntegration>;
  /** WEBHOOK_SECRET_<INTEGRATION> (or the provider's name), comma-separated for rotation; both lists are used. */
  secrets: Readonly<Record<RelayIntegration, readonly string[]>>;
}

/** Reads the secrets and switches under the spec's neutral names and the providers' (WEBHOOK_SECRET_GITHUB). */
export function receiveSettingsFrom(env: Readonly<Record<string, string | undefined>>): ReceiveSettings {
  return {
    enabled: env.RELAY_ENABLED?.trim().toLowerCase() !== 'false',
    disabled: new Set(relayIntegrations.filter((i) => namesOf(i).some((n) => isTrue(env[`RELAY_DISABLE_${n}`])))),
    secrets: Object.fromEntries(relayIntegrations.map((i) => [i, namesOf(i).flatMap((n) => commaList(env[`WEBHOOK_SECRET_${n}`]))])) as Record<
      RelayIntegration,
      string[]
    >,
  };
}

const severity = z.enum(notificationSeverities);

/** A relay event as `GET /api/events` serves it: what a dashboard reads back, checked, never cast. */
export const relayEventSchema = z.object({
  id: z.string().min(1),
  integration: z.enum(relayIntegrations),
  type: z.string().min(1),
  sourceEventId: z.string().min(1),
  title: z.string(),
  url: z.string().optional(),
  project: z.string().optional(),
  repo: z.string().optional(),
  severity,
  occurredAt: z.string(),
  receivedAt: z.string(),
  subject: z.string().optional(),
  transition: z.enum(['trigger', 'resolve']).optional(),
  refs: z.array(z.string()).optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
  delivery: z.object({ id: z.string().min(1), kind: z.string().optional(), body: z.string().optional() }).optional(),
}) satisfies z.ZodType<RelayEvent>;
