import type { z } from 'zod';
import { isRefusedAddress, RefusedAddressError, refusedAddressIn } from './address-guard.ts';
import type { ConnectorContext } from './context.ts';
import { ConnectorError } from './errors.ts';
import { LimiterBusyError } from './limiter.ts';

export type QueryValue = string | number | boolean | undefined | null | readonly (string | number)[];

export interface HttpRequest<T> {
  method?: 'GET' | 'POST';
  /** Appended to the context's base URL; or a full URL (a `next` link the upstream handed out). */
  path: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as `application/x-www-form-urlencoded` instead (an OAuth token endpoint, RFC 6749 §4.1.3). */
  form?: Record<string, string>;
  /** The upstream's response, parsed, never cast. */
  schema: z.ZodType<T>;
}

export interface HttpResponse<T> {
  data: T;
  headers: Headers;
}

/** How one upstream authenticates and explains its errors; the rest of HTTP is the same for all. */
export interface ClientSpec {
  /** "Stripe", "Linear": used in every error message. */
  service: string;
  headers(credentials: Readonly<Record<string, string>>): Record<string, string>;
  /** The human part of the upstream's error body, when it has one. */
  errorMessage?(body: unknown): string | undefined;
  /** Milliseconds to wait after a 429, when the upstream says so in its own way. */
  retryAfterMs?(headers: Headers, body: unknown): number | undefined;
  /**
   * The error for a failed answer when the status alone would mislead (GitHub's 403 that is a rate
   * limit, Linear's 400 RATELIMITED); undefined leaves it to the status rules. `now` is the
   * context's clock, for resets given as an epoch.
   */
  classify?(status: number, headers: Headers, body: unknown, now: number): ConnectorError | undefined;
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** First back-off; doubled per attempt, with jitter. */
  baseDelayMs: number;
  /** A Retry-After longer than this is not waited for in a request; the error goes back instead. */
  maxWaitMs: number;
}

export const defaultRetry: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxWaitMs: 10_000 };
const DEFAULT_TIMEOUT_MS = 15_000;

export interface Client {
  request<T>(ctx: ConnectorContext, request: HttpRequest<T>): Promise<HttpResponse<T>>;
  get<T>(ctx: ConnectorContext, path: string, query: Record<string, QueryValue>, schema: z.ZodType<T>): Promise<T>;
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function urlOf(baseUrl: string, path: string, query: Record<string, QueryValue> = {}): URL {
  const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value as readonly (string | number)[]) url.searchParams.append(name, String(item));
    else url.searchParams.set(name, String(value));
  }
  return url;
}

/** The first problem zod found, as a path and a message: enough to find the field without the payload. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unexpected shape';
  const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
  return `${path}: ${issue.message}`;
}

export function parseWith<T>(service: string, schema: z.ZodType<T>, value: unknown, what = 'response'): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConnectorError('bad_response', `${service} sent a ${what} we do not understand (${describeIssue(parsed.error)})`);
}

function errorFor(spec: ClientSpec, status: number, body: unknown, retryAfterMs: number | undefined): ConnectorError {
  const reason = spec.errorMessage?.(body);
  const said = reason ? `: ${reason}` : '';
  const { service } = spec;
  if (status === 401) return new ConnectorError('auth', `${service} rejected the credentials (401)${said}`);
  if (status === 403) return new ConnectorError('auth', `${service} refused access (403)${said}`);
  if (status === 404) return new ConnectorError('not_found', `${service} found nothing there (404)${said}`);
  if (status === 429) {
    return new ConnectorError('rate_limited', `${service} is rate limiting us (429)${said}`, {
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status >= 500) return new ConnectorError('upstream', `${service} failed (${status})${said}`);
  return new ConnectorError('upstream', `${service} refused the request (${status})${said}`, { retryable: false });
}

/** A destination the server may not call: trying again cannot help, so it is not retried. */
function refusedError(spec: ClientSpec, refused: RefusedAddressError): ConnectorError {
  return new ConnectorError('upstream', `${spec.service} was not called: ${refused.message}`, { retryable: false, cause: refused });
}

async function readBody(response: Response): Promise<{ body: unknown; json: boolean }> {
  const text = await response.text();
  if (text === '') return { body: undefined, json: false };
  try {
    return { body: JSON.parse(text) as unknown, json: true };
  } catch {
    return { body: text.slice(0, 200), json: false };
  }
}

/**
 * One upstream's HTTP client: its auth and error dialect from the spec, and for everything else the
 * same rules: the service's rate limiter before each attempt, a timeout per attempt, bounded retries
 * with back-off on 5xx, network errors and 429 (honouring Retry-After), zod on every body.
 */
export function defineClient(spec: ClientSpec, retry: RetryPolicy = defaultRetry): Client {
  async function attempt<T>(ctx: ConnectorContext, request: HttpRequest<T>): Promise<HttpResponse<T>> {
    try {
      await ctx.limiter.take(ctx.signal, ctx.limiterWaitMs);
    } catch (error) {
      if (!(error instanceof LimiterBusyError)) throw error;
      throw new ConnectorError('rate_limited', `${spec.service} allows only so many requests a minute; ${error.message}`, {
        retryAfterMs: error.waitMs,
        retryable: false,
      });
    }
    const timeout = AbortSignal.timeout(ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    let response: Response;
    try {
      const url = urlOf(ctx.baseUrl, request.path, request.query);
      // Whatever fetch the context carries; the guarded fetch also checks what a hostname resolves to.
      if (isRefusedAddress(url.hostname)) throw new RefusedAddressError(url.hostname);
      const body = request.form ? new URLSearchParams(request.form).toString() : request.body === undefined ? undefined : JSON.stringify(request.body);
      const contentType = request.form ? 'application/x-www-form-urlencoded' : 'application/json';
      response = await ctx.fetch(url, {
        method: request.method ?? 'GET',
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': contentType }),
          ...spec.headers(ctx.credentials),
          ...request.headers,
        },
        ...(body === undefined ? {} : { body }),
        signal,
      });
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      const refused = refusedAddressIn(error);
      if (refused) throw refusedError(spec, refused);
      const why = timeout.aborted ? `did not answer within ${(ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s` : 'could not be reached';
      throw new ConnectorError('upstream', `${spec.service} ${why}`, { cause: error });
    }
    const { body, json } = await readBody(response);
    if (!response.ok) {
      const classified = spec.classify?.(response.status, response.headers, body, ctx.clock.now());
      if (classified) {
        // A rate limit pauses every call on the account, as a 429 does.
        if (classified.kind === 'rate_limited') ctx.limiter.pauseFor(classified.retryAfterMs ?? retry.baseDelayMs);
        throw classified;
      }
      const retryAfterMs =
        response.status === 429 || response.status === 503
          ? (spec.retryAfterMs?.(response.headers, body) ?? parseRetryAfter(response.headers.get('retry-after'), ctx.clock.now()))
          : undefined;
      if (response.status === 429) ctx.limiter.pauseFor(retryAfterMs ?? retry.baseDelayMs);
      throw errorFor(spec, response.status, body, retryAfterMs);
    }
    if (!json) throw new ConnectorError('bad_response', `${spec.service} answered ${response.status} with something that is not JSON`);
    return { data: parseWith(spec.service, request.schema, body), headers: response.headers };
  }

  async function request<T>(ctx: ConnectorContext, request: HttpRequest<T>): Promise<HttpResponse<T>> {
    for (let n = 1; ; n++) {
      try {
        return await attempt(ctx, request);
      } catch (error) {
        if (!(error instanceof ConnectorError) || !error.retryable || n >= retry.attempts) throw error;
        const backoff = retry.baseDelayMs * 2 ** (n - 1) * (1 + Math.random() / 2);
        const wait = error.retryAfterMs ?? backoff;
        if (wait > retry.maxWaitMs) throw error;
        // A 429 already paused the limiter for this long; the next attempt waits there.
        if (error.kind !== 'rate_limited') await ctx.clock.sleep(wait, ctx.signal);
      }
    }
  }

  return {
    request,
    get: async (ctx, path, query, schema) => (await request(ctx, { path, query, schema })).data,
  };
}

/**
 * The `next` URL of an RFC 8288 `Link` header (GitHub, Sentry). Sentry always sends a next link and
 * marks whether it has anything with `results="false"`.
 */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /<([^>]+)>(.*)/.exec(part.trim());
    if (!match) continue;
    const [, url, params = ''] = match;
    if (!/;\s*rel="?next"?/.test(params)) continue;
    if (/;\s*results="?false"?/.test(params)) return undefined;
    return url;
  }
  return undefined;
}

/**
 * Follows pages until there are none or `maxPages` were read; a bound keeps one route from running away.
 * An upstream may hand back a cursor already followed, or (with `key`) a page of items already read:
 * both would only repeat, so paging ends there, and with `key` each item is kept once.
 */
export async function collectPages<T, C extends string | number>(
  firstCursor: C | undefined,
  fetchPage: (cursor: C | undefined) => Promise<{ items: T[]; next: C | undefined }>,
  { maxPages = 20, maxItems = Number.POSITIVE_INFINITY, key }: { maxPages?: number; maxItems?: number; key?: (item: T) => string } = {},
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  const followed = new Set<C | undefined>();
  let cursor = firstCursor;
  for (let page = 0; page < maxPages && items.length < maxItems; page++) {
    followed.add(cursor);
    const result = await fetchPage(cursor);
    const fresh = key ? result.items.filter((item) => !seen.has(key(item)) && Boolean(seen.add(key(item)))) : result.items;
    items.push(...fresh);
    const repeated = result.items.length > 0 && fresh.length === 0;
    if (result.next === undefined || followed.has(result.next) || repeated) break;
    cursor = result.next;
  }
  return items.slice(0, maxItems);
}
