import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import {
  answerDelivery,
  isJsonType,
  judgeDelivery,
  readBodyWithin,
  RECEIVE_LIMITS,
  refusalOf,
  resolveIntegration,
  sha256Hex,
  tokensMatch,
  type HeaderBag,
  type RelayIntegration,
} from '@dash/webhooks';
import type { RefusalReason } from '@dash/contracts';
import { bearerOf } from './auth.ts';
import { keysOf, SINGLE_TENANT, TENANT_ID } from './keys.ts';
import { readRefusals, refusalCounter, type RefusalCounter } from './refusals.ts';
import { ADMIN_FAILURES_PER_MINUTE, tenantAdmin } from './tenants.ts';
import type { RelayConfig } from './config.ts';
import type { ErrorReporter } from './report.ts';
import { StoreUnavailableError, type EventNotices, type PollPage, type RelayStore } from './store/types.ts';

export const LIMITS = {
  ...RECEIVE_LIMITS,
  pollsPerMinute: 20,
  /** `GET …/refusals` per client address, under a window of its own. */
  refusalPollsPerMinute: 20,
  /** Failed admin sign-ins (a missing or wrong RELAY_ADMIN_SECRET) per client address. */
  adminFailuresPerMinute: ADMIN_FAILURES_PER_MINUTE,
  retentionMs: 24 * 60 * 60_000,
  pollDefault: 100,
  pollMax: 1000,
  /** The longest `wait` of a long poll, in seconds: under the usual 30 s proxy and platform timeouts. */
  pollWaitMaxSeconds: 25,
} as const;

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface RelayDeps {
  config: RelayConfig;
  store: RelayStore;
  log: Logger;
  /** The caller's address as the socket saw it (the node adapter's connection info). */
  socketAddress?: (c: Context) => string | undefined;
  /** ERROR_TRACKER_DSN's reporter, when set. */
  reporter?: ErrorReporter;
  /**
   * Where refused webhooks are counted until they are sent to the store; the process closes it on shutdown, before
   * the store. Without one the app makes its own (sent every 2 s and whenever counts are read).
   */
  refusals?: RefusalCounter;
  now?: () => number;
}

/** Whose events, limits, replay records and secrets a request touches: the single-tenant relay's, or one tenant's. */
interface Scope {
  /** Its keys in the store, made once per scope rather than once per request. */
  keys: ReturnType<typeof keysOf>;
  secrets: (integration: RelayIntegration) => readonly string[];
  pollAllowed: (token: string) => boolean;
  /** Counts a refused webhook; nothing for a tenant that does not exist (no keys are made for one). */
  countRefusal: (integration: RelayIntegration, reason: RefusalReason) => void;
}

const fail = (c: Context, status: 400 | 401 | 404 | 409 | 413 | 415 | 429 | 503, code: string, message: string, headers: Record<string, string> = {}) => {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json({ error: { code, message } }, status);
};

/** A poll's `since`: a millisecond timestamp, 0 when absent; undefined when it is not one. */
function sinceOf(c: Context): number | undefined {
  const since = Number(c.req.query('since') ?? 0);
  return Number.isSafeInteger(since) && since >= 0 ? since : undefined;
}
const badSince = (c: Context) => fail(c, 400, 'BAD_REQUEST', 'since is a millisecond timestamp (a non-negative integer)');

const retryAfter = (ms: number) => ({ 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) });

/** `readBodyWithin` from Node's own request stream, which spares building a fetch Request on the hot path. */
function readNodeBody(incoming: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Stop reading without destroying the socket, so the 413 still goes out (with Connection: close).
      stop();
      incoming.pause();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      // An 8 KB webhook usually arrives in one chunk: no copy then.
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    incoming.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

const incomingOf = (c: Context) => (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;

/**
 * The request's headers. Under Node they are read from the IncomingMessage itself: touching Hono's
 * `c.req.raw` there builds a whole fetch Request (with its AbortSignal) per webhook, a tenth of the
 * relay's time under load. Elsewhere (tests calling app.request) the Request's own headers.
 */
function headersOf(c: Context): HeaderBag {
  const incoming = incomingOf(c);
  if (!incoming) return c.req.raw.headers;
  const { headers } = incoming;
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

function readBody(c: Context, headers: HeaderBag, limit: number): Promise<Uint8Array | undefined> {
  if (Number(headers.get('content-length') ?? 0) > limit) return Promise.resolve(undefined);
  const incoming = incomingOf(c);
  return incoming ? readNodeBody(incoming, limit) : readBodyWithin(c.req.raw, limit);
}


/**
 * A long poll after an empty read (`empty`): watch the key, then read again (an event stored between the
 * first read and the watch is found by this read; one stored after it wakes the watch), and again on every
 * notice, until a read finds events, `ms` run out, the client goes away, or the store closes. The answer
 * is the last page read: with the new events, or empty with `since` as its cursor. A read that the store's
 * closing cuts short (a shutdown while a notice is being read) ends the poll as the close does, with the
 * last page, not as an outage.
 */
async function heldPoll(notices: EventNotices, eventsKey: string, read: () => Promise<PollPage>, empty: PollPage, ms: number, signal: AbortSignal): Promise<PollPage> {
  const deadline = performance.now() + ms;
  const watch = await notices.watch(eventsKey);
  let page = empty;
  try {
    for (;;) {
      try {
        page = await read();
      } catch (error) {
        if (watch.ended) return page;
        throw error;
      }
      if (page.events.length > 0) return page;
      if ((await watch.next(deadline - performance.now(), signal)) !== 'stored') return page;
    }
  } finally {
    watch.stop();
  }
}

/** The relay's HTTP surface. Steps run cheapest first; each can answer before the next runs. */
export function createRelayApp({ config, store, log, socketAddress, reporter, now = Date.now, refusals: counter }: RelayDeps) {
  const app = new Hono();
  const refusals =
    counter ?? refusalCounter({ store, now, onError: (error) => log.warn(`refusal counts not saved yet, kept to send again: ${error instanceof Error ? error.message : String(error)}`) });

  const clientIp = (c: Context, headers: HeaderBag = headersOf(c)): string => {
    if (config.trustProxy) {
      const hops = (headers.get('x-forwarded-for') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      // The right-most hop is the one our proxy added; anything left of it is whatever the client sent.
      const proxied = hops.at(-1);
      if (proxied) return proxied;
    }
    return socketAddress?.(c) ?? 'unknown';
  };

  app.onError((error, c) => {
    if (error instanceof StoreUnavailableError) {
      log.error(`${c.req.method} ${c.req.path}: ${error.message}`);
      return fail(c, 503, 'SERVICE_UNAVAILABLE', 'The relay cannot reach its store; retry shortly', retryAfter(5_000));
    }
    log.error(`${c.req.method} ${c.req.routePath}: ${error.name}: ${error.message}`);
    reporter?.capture(error, { route: `${c.req.method} ${c.req.routePath}`, integration: resolveIntegration(c.req.param('integration') ?? '') });
    return c.json({ error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal error' } }, 500);
  });
  app.notFound((c) => fail(c, 404, 'NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`));

  app.get('/api/health', (c) => c.json({ status: 'ok' as const, timestamp: now() }));

  const scopeOf = (keys: Scope['keys'], secrets: Scope['secrets'], pollAllowed: Scope['pollAllowed']): Scope => ({
    keys,
    secrets,
    pollAllowed,
    countRefusal: (integration, reason) => refusals.count(keys.refusals, integration, reason),
  });
  const singleTenant = scopeOf(
    keysOf(SINGLE_TENANT),
    (integration) => config.secrets[integration],
    (token) => tokensMatch(token, config.pollSecrets),
  );

  // What an unknown tenant is checked against: secrets made up at start that nothing can know, so its
  // requests take the same steps (rate limit, hashing, comparisons) as a real tenant's and get the same
  // answer as a wrong secret would. Whether a tenant exists is not told to anyone without its secret.
  const dummyPollHash = sha256Hex(randomBytes(32));
  const dummyWebhookSecrets = [randomBytes(32).toString('hex')];

  /**
   * A tenant's scope, or undefined (answered 404) when tenants are off. An unknown id gets a scope
   * that no secret opens, under its own rate keys (a malformed id, which no tenant can have, under one
   * shared key instead of a key made from it).
   */
  async function tenantScope(id: string): Promise<Scope | undefined> {
    if (config.adminSecrets.length === 0) return undefined;
    const record = TENANT_ID.test(id) ? await store.tenants.get(id) : undefined;
    if (!record) {
      return {
        keys: keysOf(TENANT_ID.test(id) ? id : '_unknown'),
        secrets: () => dummyWebhookSecrets,
        pollAllowed: (token) => {
          // The same comparison a tenant's poll makes, whose result cannot matter.
          if (token !== '') tokensMatch(sha256Hex(token), [dummyPollHash]);
          return false;
        },
        countRefusal: () => {},
      };
    }
    return scopeOf(
      keysOf(id),
      (integration) => record.secrets[integration] ?? [],
      (token) => token !== '' && tokensMatch(sha256Hex(token), [record.pollSecretHash]),
    );
  }

  async function ingest(c: Context, { keys, secrets, countRefusal }: Scope) {
    const integration = resolveIntegration(c.req.param('integration') ?? '');
    if (!integration) return fail(c, 404, 'NOT_FOUND', `Unknown integration "${c.req.param('integration')}"`);
    if (!config.enabled || config.disabled.has(integration)) {
      countRefusal(integration, 'disabled');
      return fail(c, 503, 'SERVICE_UNAVAILABLE', `Ingestion is disabled for ${integration}`);
    }

    const headers = headersOf(c);
    const body = await readBody(c, headers, LIMITS.bodyBytes);
    if (!body) {
      countRefusal(integration, 'too_large');
      return fail(c, 413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${LIMITS.bodyBytes / 1024} KB`, { connection: 'close' });
    }
    if (!isJsonType(headers.get('content-type'))) {
      countRefusal(integration, 'not_json');
      return fail(c, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/json');
    }

    // The delivery's own checks are pure and local (the same as the dashboard's local route); their
    // verdicts are given in the spec's order after the one store round trip that applies the rate limit
    // and the replay memory (and stores, if all passed).
    const judgement = judgeDelivery(integration, body, headers, secrets(integration), now(), { forwardBody: config.forwardBodies });
    const verdict = await store.ingest({
      rateKey: keys.webhookRate(integration, clientIp(c, headers)),
      limit: LIMITS.webhooksPerMinute,
      windowMs: LIMITS.windowMs,
      deliveryKey: keys.delivery(integration, judgement.deliveryId),
      dedupeMs: LIMITS.deliveryMemoryMs,
      eventsKey: keys.events,
      events: judgement.events,
    });
    const answer = answerDelivery(judgement, verdict);
    // Counted in memory only: the webhook's answer never waits on its count.
    const refusal = refusalOf(judgement, verdict);
    if (refusal) countRefusal(integration, refusal);
    if (answer.retryAfterMs !== undefined) c.header('retry-after', retryAfter(answer.retryAfterMs)['retry-after']);
    return c.json(answer.body, answer.status);
  }

  async function pollEvents(c: Context, { keys, pollAllowed }: Scope) {
    const admission = await store.limit({ rateKey: keys.pollRate(clientIp(c)), limit: LIMITS.pollsPerMinute, windowMs: LIMITS.windowMs });
    if (!admission.allowed) return fail(c, 429, 'TOO_MANY_REQUESTS', 'Poll rate limit exceeded', retryAfter(admission.retryAfterMs));
    if (!pollAllowed(bearerOf(c.req.header('authorization')))) return fail(c, 401, 'UNAUTHORIZED', 'A valid bearer poll secret is required');

    const since = sinceOf(c);
    const limit = Number(c.req.query('limit') ?? LIMITS.pollDefault);
    if (since === undefined) return badSince(c);
    if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.pollMax) {
      return fail(c, 400, 'BAD_REQUEST', `limit is an integer from 1 to ${LIMITS.pollMax}`);
    }
    const waitQuery = c.req.query('wait');
    const wait = waitQuery === undefined ? 0 : /^\d+$/.test(waitQuery) ? Number(waitQuery) : NaN;
    if (!(wait >= 0 && wait <= LIMITS.pollWaitMaxSeconds)) {
      return fail(c, 400, 'BAD_REQUEST', `wait is how many seconds to hold an empty poll, an integer from 0 to ${LIMITS.pollWaitMaxSeconds}`);
    }

    const read = () => store.poll({ eventsKey: keys.events, since, limit, retentionMs: LIMITS.retentionMs });
    let page = await read();
    // Admitted once above, however long it is held. Without notices (Upstash) it answers at once.
    let counted = true;
    if (page.events.length === 0 && wait > 0 && store.notices) {
      page = await heldPoll(store.notices, keys.events, read, page, wait * 1000, c.req.raw.signal);
      // A held poll that an event woke is given back: the client asks again at once for the next one, and those
      // polls come no faster than the webhooks themselves. Only empty and immediate answers use the budget.
      if (page.events.length > 0 && admission.ticket !== undefined) {
        // A store that fails here only leaves the poll counted (and says so); the events still go out.
        counted = !(await store.refund({ rateKey: keys.pollRate(clientIp(c)), ticket: admission.ticket }).then(
          () => true,
          () => false,
        ));
      }
    }
    c.header('x-relay-timestamp', String(page.cursor));
    c.header('x-relay-poll-counted', counted ? '1' : '0');
    return c.json(page.events);
  }

  /**
   * A scope's refused webhooks per hour since `since`'s hour, behind the poll secret and a poll-like limit of its own.
   * This process's counts not yet sent are sent first, so a refusal shows in the next read.
   */
  async function pollRefusals(c: Context, { keys, pollAllowed }: Scope) {
    const admission = await store.limit({ rateKey: keys.refusalsPollRate(clientIp(c)), limit: LIMITS.refusalPollsPerMinute, windowMs: LIMITS.windowMs });
    if (!admission.allowed) return fail(c, 429, 'TOO_MANY_REQUESTS', 'Refusals poll rate limit exceeded', retryAfter(admission.retryAfterMs));
    if (!pollAllowed(bearerOf(c.req.header('authorization')))) return fail(c, 401, 'UNAUTHORIZED', 'A valid bearer poll secret is required');
    const since = sinceOf(c);
    if (since === undefined) return badSince(c);
    await refusals.flush();
    const timestamp = now();
    return c.json({ counts: await readRefusals(store, keys.refusals, since, timestamp), timestamp });
  }

  const noTenant = (c: Context) => fail(c, 404, 'NOT_FOUND', 'Tenants are off: this relay has no RELAY_ADMIN_SECRET');

  app.post('/api/webhooks/:integration', (c) => ingest(c, singleTenant));
  app.post('/api/t/:tenant/webhooks/:integration', async (c) => {
    const scope = await tenantScope(c.req.param('tenant'));
    return scope ? ingest(c, scope) : noTenant(c);
  });

  if (config.allowedOrigin) {
    const allowOrigin = cors({ origin: config.allowedOrigin, allowMethods: ['GET'], allowHeaders: ['Authorization'], exposeHeaders: ['X-Relay-Timestamp', 'X-Relay-Poll-Counted'] });
    for (const path of ['/api/events', '/api/t/:tenant/events', '/api/refusals', '/api/t/:tenant/refusals']) app.use(path, allowOrigin);
  }
  app.get('/api/events', (c) => pollEvents(c, singleTenant));
  app.get('/api/t/:tenant/events', async (c) => {
    const scope = await tenantScope(c.req.param('tenant'));
    return scope ? pollEvents(c, scope) : noTenant(c);
  });

  app.get('/api/refusals', (c) => pollRefusals(c, singleTenant));
  app.get('/api/t/:tenant/refusals', async (c) => {
    const scope = await tenantScope(c.req.param('tenant'));
    return scope ? pollRefusals(c, scope) : noTenant(c);
  });

  app.route('/api/tenants', tenantAdmin({ config, store, clientIp: (c) => clientIp(c), refusals, now }));

  return app;
}
