import { z } from 'zod';
import { refusalReasonNames } from '@dash/contracts';
import { relayEventSchema, relayIntegrations, type RelayEvent } from '@dash/webhooks';

export type RelayFailure = 'unreachable' | 'timeout' | 'unauthorized' | 'rate_limited' | 'bad_response' | 'refused';

/** The relay could not be asked, or answered something other than a page of events. */
export class RelayError extends Error {
  constructor(
    readonly reason: RelayFailure,
    message: string,
    readonly retryAfterMs?: number,
    /** The relay's HTTP status, when it answered one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RelayError';
  }
}

export interface RelayPage {
  events: RelayEvent[];
  /** `X-Relay-Timestamp`: the `since` of the next poll. */
  timestamp: number;
  /** False when the relay gave the poll back (`X-Relay-Poll-Counted: 0`: a held poll an event woke). */
  counted: boolean;
}

export interface RelayTarget {
  /** The relay's base for events: `<relay>/api` or `<relay>/api/t/<tenant>`. */
  url: string;
  secret: string;
}

/** Where `GET …/events` is for a base URL (a trailing slash or not). */
export const eventsUrl = (base: string) => `${base.replace(/\/+$/, '')}/events`;

const page = z.array(relayEventSchema);
const errorBody = z.object({ error: z.object({ message: z.string() }) });

async function reasonOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  const parsed = errorBody.safeParse((() => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  })());
  return parsed.success ? parsed.data.error.message : `HTTP ${response.status}`;
}

/** A GET to the relay with the poll secret, within `seconds`: its response, or why there is none (timeout, unreachable). */
async function askRelay(target: RelayTarget, url: URL, options: { fetch: typeof fetch; signal: AbortSignal | undefined; seconds: number }): Promise<Response> {
  const timeout = AbortSignal.timeout(options.seconds * 1000);
  try {
    return await options.fetch(url, {
      headers: { authorization: `Bearer ${target.secret}`, accept: 'application/json' },
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
  } catch (error) {
    if (timeout.aborted) throw new RelayError('timeout', `The relay did not answer within ${options.seconds} s`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new RelayError('unreachable', `The relay cannot be reached: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
}

/**
 * One `GET <base>/events?since=&limit=[&wait=]` with the poll secret: a page of events, oldest first,
 * checked against the relay's event shape (a body that is not one is a failure, never "no events").
 */
export async function fetchRelayPage(
  target: RelayTarget,
  options: { since: number; limit: number; waitSeconds?: number; fetch: typeof fetch; signal?: AbortSignal },
): Promise<RelayPage> {
  const url = new URL(eventsUrl(target.url));
  url.searchParams.set('since', String(options.since));
  url.searchParams.set('limit', String(options.limit));
  if (options.waitSeconds) url.searchParams.set('wait', String(options.waitSeconds));
  const response = await askRelay(target, url, { fetch: options.fetch, signal: options.signal, seconds: (options.waitSeconds ?? 0) + 15 });
  if (response.status === 401) throw new RelayError('unauthorized', `The relay refused the poll secret: ${await reasonOf(response)}`);
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after'));
    throw new RelayError('rate_limited', `The relay says to poll less often: ${await reasonOf(response)}`, Number.isFinite(seconds) ? seconds * 1000 : 60_000);
  }
  if (!response.ok) throw new RelayError('refused', `The relay answered ${response.status}: ${await reasonOf(response)}`);
  // A missing header is no cursor at all (Number(null) would be 0: a page from the beginning).
  const header = response.headers.get('x-relay-timestamp')?.trim() ?? '';
  const timestamp = /^\d+$/.test(header) ? Number(header) : Number.NaN;
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RelayError('bad_response', 'The relay answered without a valid X-Relay-Timestamp: is this URL a relay?');
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new RelayError('bad_response', 'The relay answered something that is not JSON: is this URL a relay?');
  }
  const parsed = page.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RelayError('bad_response', `The relay's events are not in the expected shape (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`);
  }
  return { events: parsed.data, timestamp, counted: response.headers.get('x-relay-poll-counted') !== '0' };
}

/** `GET <relay>/api/health`: the relay process answers, before any secret is involved. */
export async function relayHealth(target: Pick<RelayTarget, 'url'>, fetcher: typeof fetch): Promise<void> {
  const base = new URL(target.url.replace(/\/+$/, ''));
  // `<relay>/api` or `<relay>/api/t/<tenant>`: the health route is the relay's own `/api/health`.
  const health = new URL(base.pathname.replace(/\/api(\/t\/[^/]+)?$/, '') + '/api/health', base);
  let response: Response;
  try {
    response = await fetcher(health, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new RelayError('unreachable', `The relay cannot be reached: ${cause?.code ?? (error as Error).message}`);
  }
  if (!response.ok) throw new RelayError('refused', `The relay's health check answered ${response.status}`);
}

const refusalCounts = z.object({
  counts: z.array(z.object({ hour: z.number().int().nonnegative(), integration: z.enum(relayIntegrations), reason: z.enum(refusalReasonNames), count: z.number().int().nonnegative() })),
  timestamp: z.number().int().nonnegative(),
});
export type RelayRefusalCounts = z.infer<typeof refusalCounts>;

/**
 * `GET <base>/refusals?since=` with the poll secret: what the relay turned away, counted per hour, integration and reason
 * (no bodies). A relay from before the counts answers 404: `RelayError('refused')` with `status` 404.
 */
export async function fetchRelayRefusals(target: RelayTarget, options: { since: number; fetch: typeof fetch; signal?: AbortSignal }): Promise<RelayRefusalCounts> {
  const url = new URL(`${target.url.replace(/\/+$/, '')}/refusals`);
  url.searchParams.set('since', String(options.since));
  const response = await askRelay(target, url, { fetch: options.fetch, signal: options.signal, seconds: 15 });
  if (!response.ok) throw new RelayError(response.status === 401 ? 'unauthorized' : 'refused', `The relay's refusal counts answered ${response.status}: ${await reasonOf(response)}`, undefined, response.status);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new RelayError('bad_response', 'The relay answered refusal counts that are not JSON');
  }
  const parsed = refusalCounts.safeParse(body);
  if (!parsed.success) throw new RelayError('bad_response', `The relay's refusal counts are not in the expected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}
