import { isLoopbackHost, type NotificationSeverity, type StoredDecision } from '@dash/contracts';
import { parseRetryAfter, refusedAddressIn, refusedBaseUrl, type Clock } from '@dash/connectors';
import { formatDuration } from '../notifications/policy/digest.ts';

/**
 * The one message every chat channel (Slack, Discord, Telegram, ntfy, the signed webhook) renders for its medium
 * (ARCHITECTURE.md, Outgoing channels). Every string in it may be a stranger's (a PR title, a review, an error
 * message): each adapter escapes it for its medium, so nothing in it formats, links or mentions anyone.
 */
export interface ChannelMessage {
  /** The delivery's id: the same on every try of it (the signed webhook's `webhook-id`, which receivers dedupe on). */
  id: string;
  /** An interruption, the recovery of one, or the digest of what quiet hours, the pause or a hold kept back. */
  kind: 'alert' | 'resolve' | 'digest';
  title: string;
  body: string;
  severity: NotificationSeverity;
  /** The thread in the dashboard (an absolute URL), or null when the dashboard's public address is not known. */
  url: string | null;
  /** One per thread: an outage and its recovery share it. */
  tag: string;
  /** The project's name, when the notification belongs to one. */
  project: string | null;
  /** When it happened, ms UTC. */
  at: number;
  /**
   * For a recovery: the outage it ends (its title), how long that lasted (ms; null when unknown), and the provider's
   * id of the message that told the outage on this connection (null when none did): Discord edits that message,
   * Telegram replies to it, the others name the outage in a new one.
   */
  recovers?: { title: string; lastedMs: number | null; providerId: string | null } | undefined;
  /**
   * The thread as it stands when the message goes (null for a digest or a test): its id, whether it is still open, how
   * many events it holds, and its latest event's decision (the policy's severity, channels and "Why?" trace). The
   * signed webhook carries it, so a receiver can act on more than the text.
   */
  thread?: { id: string; status: 'open' | 'resolved' | 'info'; eventCount: number; decision: StoredDecision | null } | null | undefined;
}

/**
 * How one send went, the shape every outgoing channel answers: `sent`, with the provider's id of the message where
 * it gives one (for a later edit or reply); `retry` after `afterMs` (a 429 or 5xx, with the service's own hint when
 * it gives one, or unreachable); `gone` (the destination no longer exists: a deleted webhook); `refused` (any other
 * permanent answer, such as a revoked token, or a destination the address guard refuses). A `reason` is the
 * service's own words, never a secret or a secret-bearing URL.
 */
export type ChannelOutcome =
  | { kind: 'sent'; status: number; providerId: string | null }
  | { kind: 'retry'; status: number | null; afterMs: number; reason: string }
  | { kind: 'gone'; status: number; reason: string }
  | { kind: 'refused'; status: number | null; reason: string };

/** A channel's adapter: renders the message for its medium and sends it to one destination (a connection). */
export interface ChannelAdapter<Destination> {
  send(destination: Destination, message: ChannelMessage): Promise<ChannelOutcome>;
}

/**
 * What every adapter is built with: the guarded fetch (the upstream address guard) and the clock (its `sleep` waits
 * out a destination's pace; a test's moves the time at once).
 */
export interface ChannelAdapterOptions {
  fetch: typeof fetch;
  clock: Clock;
}

/** What an adapter that keeps its service's pace is built with besides. */
export interface PacedAdapterOptions extends ChannelAdapterOptions {
  /** The longest a send waits for its destination's pace; past it the send answers `retry` instead. */
  maxPaceWaitMs?: number;
}

/** When a service gives no hint with its 429 or 5xx, or cannot be reached. */
export const DEFAULT_RETRY_MS = 60_000;
/** A send that has not answered by then is tried again later (the service may have taken it: see each adapter). */
export const SEND_TIMEOUT_MS = 15_000;

/**
 * Posts one request for an adapter: no redirects followed (a service that redirects would carry the secret or the
 * message elsewhere), a timeout, and a network failure or a refused address turned into its outcome. `service`
 * names the destination in a reason (a host, never the secret-bearing URL). Tell the two apart with `'kind' in`,
 * never `instanceof Response`: a fetch given in (a test's, a polyfill's) may answer another realm's Response.
 */
export async function sendRequest(
  options: ChannelAdapterOptions,
  url: string,
  init: RequestInit,
  service: string,
): Promise<Response | Extract<ChannelOutcome, { kind: 'retry' | 'refused' }>> {
  try {
    return await options.fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
  } catch (error) {
    const address = refusedAddressIn(error);
    if (address) return { kind: 'refused', status: null, reason: address.message };
    return { kind: 'retry', status: null, afterMs: DEFAULT_RETRY_MS, reason: `${service} could not be reached` };
  }
}

/**
 * A destination URL a user gave (`what` names it in a refusal: "The webhook URL"), or why it cannot be used: http(s)
 * only, no login in it (fetch refuses one, which would read as unreachable and be retried for ever; a login belongs in
 * a header), and an address the upstream guard allows. With `plainHttp: 'loopback'` (a destination that is sent a
 * secret or a signed body: ntfy, the signed webhook) plain http goes only to this machine (`isLoopbackHost`:
 * localhost, 127.0.0.0/8, ::1), never across a network. A refusal never echoes the URL: its path may be a secret.
 */
export function destinationUrl(address: string, what: string, plainHttp: 'anywhere' | 'loopback' = 'anywhere'): { url: URL; host: string } | { refused: string } {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    return { refused: `${what} is not a URL` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { refused: `${what} must start with https:// or http://` };
  if (url.username !== '' || url.password !== '') return { refused: `${what} must not hold a user or password` };
  const guard = refusedBaseUrl(url.href);
  if (guard) return { refused: guard };
  if (plainHttp === 'loopback' && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return { refused: `${what} must use https (plain http only to this machine: localhost, 127.0.0.1 or [::1])` };
  return { url, host: url.host };
}

/** A reply's JSON body, or undefined when it has none (a 204, a proxy's HTML page). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A destination's answer as a reason (what is kept as a channel's or a device's `lastFailure`): its status, and only
 * `serviceError`, a known service's own documented error code or description that the adapter parsed from its answer
 * (`knownError` and the adapters' schemas). Never the body itself: a destination may be anything the server reaches, and
 * its answer (an internal service's page) is not ours to keep or show. The words are folded and cut to 200 characters,
 * each of `secrets` the destination holds blanked out (a proxy in front of a service may echo the request).
 */
export function answerReason(service: string, status: number, serviceError?: string, secrets: readonly string[] = []): string {
  const blanked = secrets.filter((secret) => secret !== '').reduce((text, secret) => text.replaceAll(secret, '[redacted]'), serviceError ?? '');
  const words = blanked.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `${service} answered ${status}${words ? `: ${words}` : ''}`;
}

/**
 * A known service's documented error, from its JSON answer: each of `fields` that is a string or a number, in order and
 * joined by commas, as `label value` when it has a label (`errno 102`), else as is; fields absent or of another type are
 * skipped. Undefined when the answer is not a JSON object or holds none of them, so the reason is the status only.
 */
export function knownError(said: string, fields: readonly { field: string; label?: string }[]): string | undefined {
  const body = jsonOrUndefined(said);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const parts = fields.flatMap(({ field, label }) => {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value !== 'string' && typeof value !== 'number') return [];
    return [label === undefined ? String(value) : `${label} ${String(value)}`];
  });
  return parts.length === 0 ? undefined : parts.join(', ');
}

/**
 * The outcome of a refusal by its status, for the services whose answers need no more: 429 and 5xx are retried
 * after `hintMs` (the service's own hint) or the Retry-After header, else a minute; 404 and 410 are `gone`; the rest
 * `refused`. A success is the adapter's own to read (each keeps a different id).
 */
export function refusalOutcome(response: Response, reason: string, now: number, hintMs?: number): Extract<ChannelOutcome, { kind: 'retry' | 'gone' | 'refused' }> {
  const { status } = response;
  if (status === 429 || status >= 500) {
    const afterMs = hintMs ?? parseRetryAfter(response.headers.get('retry-after'), now) ?? DEFAULT_RETRY_MS;
    return { kind: 'retry', status, afterMs, reason };
  }
  if (status === 404 || status === 410) return { kind: 'gone', status, reason };
  return { kind: 'refused', status, reason };
}

/** The line a recovery adds in the media that cannot edit the outage's message: what it ends and how long it lasted. */
export function recoveryLine(message: ChannelMessage): string | undefined {
  const { recovers } = message;
  if (!recovers) return undefined;
  return recovers.lastedMs === null ? `Ends: ${recovers.title}` : `Ends: ${recovers.title} (down ${formatDuration(recovers.lastedMs)})`;
}

/** A service's pace for one destination: at most `limit` sends in any `windowMs`. */
export interface Pace {
  limit: number;
  windowMs: number;
}

/** The longest a send waits for its destination's pace before answering `retry` instead (the sender tries it again). */
export const MAX_PACE_WAIT_MS = 10_000;

/**
 * Keeps each destination's pace in this process, so that a burst of alerts waits its turn instead of meeting the
 * service's 429 (which still becomes a `retry` with the service's hint, as when another process sent meanwhile).
 * Each adapter keeps the pace its own service documents; what it learns from the service's headers stays with it.
 */
export class PaceKeeper {
  /** When each destination was sent to, within its pace's window. */
  private readonly sentAt = new Map<string, { at: number }[]>();

  constructor(
    private readonly options: {
      clock: Clock;
      /** The longest window of any pace kept: a destination quiet that long has nothing left to keep to. */
      longestWindowMs: number;
      maxWaitMs?: number | undefined;
    },
  ) {}

  /**
   * Waits for a place in the destination's pace and takes it (set its `at` again when the service counts the send
   * later, on its answer); answers `retry` instead when the wait is longer than the cap. `what` names the pace in
   * that reason ("Slack's pace for this webhook").
   */
  async take(key: string, pace: Pace, what: string): Promise<{ at: number } | Extract<ChannelOutcome, { kind: 'retry' }>> {
    const { clock, longestWindowMs, maxWaitMs = MAX_PACE_WAIT_MS } = this.options;
    // A few rounds at most: a clock that does not move with the sleep would otherwise keep it waiting for ever.
    for (let round = 1; ; round++) {
      const now = clock.now();
      for (const [other, slots] of this.sentAt) if (slots.every((slot) => slot.at <= now - longestWindowMs)) this.sentAt.delete(other);
      const recent = (this.sentAt.get(key) ?? []).filter((slot) => slot.at > now - pace.windowMs).sort((a, b) => a.at - b.at);
      const oldest = recent[recent.length - pace.limit];
      if (oldest === undefined) {
        // Taken before the request, so sends running side by side do not all count the same place.
        const slot = { at: now };
        this.sentAt.set(key, [...recent, slot]);
        return slot;
      }
      const waitMs = oldest.at + pace.windowMs - now;
      if (waitMs > maxWaitMs || round > 3) return paceRetry(what, waitMs);
      await clock.sleep(waitMs);
    }
  }
}

/** The `retry` of a send that would wait longer than the cap for its destination's pace. */
export function paceRetry(what: string, waitMs: number): Extract<ChannelOutcome, { kind: 'retry' }> {
  return { kind: 'retry', status: null, afterMs: waitMs, reason: `${what} allows the next message in ${formatDuration(waitMs)}` };
}

/**
 * How a sequence of pre-rendered messages went (a briefing Discord or Telegram takes in several): sent in order, one
 * after the other, stopping at the first that was not sent. `sent` of `total` went (the first `sent`, each with its
 * provider's id); `stopped` is the outcome that stopped the rest (null when all went), so a caller can try again from
 * message `sent` without repeating what a reader already has.
 */
export interface SequenceOutcome {
  sent: number;
  total: number;
  providerIds: (string | null)[];
  stopped: Exclude<ChannelOutcome, { kind: 'sent' }> | null;
}

/** Sends `payloads` in order through `send`, stopping at the first that is not sent. */
export async function sendInOrder<Payload>(payloads: readonly Payload[], send: (payload: Payload) => Promise<ChannelOutcome>): Promise<SequenceOutcome> {
  const providerIds: (string | null)[] = [];
  for (const payload of payloads) {
    const outcome = await send(payload);
    if (outcome.kind !== 'sent') return { sent: providerIds.length, total: payloads.length, providerIds, stopped: outcome };
    providerIds.push(outcome.providerId);
  }
  return { sent: providerIds.length, total: payloads.length, providerIds, stopped: null };
}
