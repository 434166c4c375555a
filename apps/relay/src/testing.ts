import { createHmac, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { RelayConfig } from './config.ts';
import { readConfig } from './config.ts';
import { createRelayApp, type Logger } from './app.ts';
import { refusalCounter } from './refusals.ts';
import { memoryStore } from './store/memory.ts';
import type { RelayStore } from './store/types.ts';

export const GITHUB_SECRET = 'It\'s a Secret to Everybody';
/** 32+ characters, as the relay requires of RELAY_POLL_SECRET and RELAY_ADMIN_SECRET. */
export const POLL_SECRET = 'poll-secret-for-tests-0123456789abcdef';
export const ADMIN_SECRET = 'admin-secret-for-tests-0123456789abcdef';

export function testConfig(env: Record<string, string> = {}): RelayConfig {
  return readConfig({ WEBHOOK_SECRET_GITHUB: GITHUB_SECRET, RELAY_POLL_SECRET: POLL_SECRET, TRUST_PROXY: 'true', ...env });
}

export function quietLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
}

/** The relay app on `store`, with its refusal counter (closing it sends its counts, as a stopping process does). */
export function relay(store: RelayStore, env: Record<string, string> = {}, now?: () => number) {
  const log = quietLogger();
  const refusals = refusalCounter({ store, ...(now ? { now } : {}), onError: (error) => log.warn(String(error)) });
  const app = createRelayApp({ config: testConfig(env), store, log, refusals, ...(now ? { now } : {}) });
  return { app, log, refusals };
}

/** A GitHub pull_request delivery, signed the way GitHub signs it. */
export function githubDelivery(options: { number?: number; action?: string; merged?: boolean; secret?: string; deliveryId?: string; ip?: string } = {}) {
  const number = options.number ?? 42;
  const body = JSON.stringify({
    action: options.action ?? 'closed',
    number,
    pull_request: {
      number,
      title: `Change ${number}`,
      html_url: `https://github.com/acme/app/pull/${number}`,
      merged: options.merged ?? true,
      merged_at: '2026-11-22T10:00:00Z',
      updated_at: '2026-11-22T10:00:00Z',
      created_at: '2026-11-21T10:00:00Z',
      closed_at: '2026-11-22T10:00:00Z',
      user: { login: 'octocat' },
      base: { ref: 'main' },
      head: { ref: `feature-${number}` },
    },
    repository: { full_name: 'acme/app', name: 'app', html_url: 'https://github.com/acme/app', owner: { login: 'acme' } },
    sender: { login: 'octocat' },
  });
  const signature = createHmac('sha256', options.secret ?? GITHUB_SECRET).update(body).digest('hex');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': options.deliveryId ?? randomUUID(),
      'x-hub-signature-256': `sha256=${signature}`,
      'x-forwarded-for': options.ip ?? '203.0.113.7',
    },
  };
}

export const pollHeaders = (ip = '198.51.100.1', secret = POLL_SECRET) => ({ authorization: `Bearer ${secret}`, 'x-forwarded-for': ip });

/** A request the served relay answered: what a test counts (how many polls, whether any got 429). */
export interface ServedRequest {
  method: string;
  path: string;
  /** The query string's parameters (`since`, `limit`, `wait` of a poll). */
  query: Record<string, string>;
  status: number;
}

/**
 * The real relay app (memory store unless one is given) on a real 127.0.0.1 socket, as `main.ts` serves
 * it, with every answered request recorded. `close()` takes it off the network (its store, and so its
 * buffered events, stay); `open()` puts it back on the same port.
 */
export async function serveRelay(options: { store?: RelayStore; env?: Record<string, string>; port?: number; now?: () => number } = {}) {
  const store = options.store ?? memoryStore();
  const log = quietLogger();
  const clock = options.now ? { now: options.now } : {};
  const refusals = refusalCounter({ store, ...clock });
  const app = createRelayApp({ config: testConfig(options.env), store, log, refusals, ...clock, socketAddress: (c) => getConnInfo(c).remote.address });
  const requests: ServedRequest[] = [];
  let port = options.port ?? 0;
  let server: ReturnType<typeof serve> | undefined;

  async function open() {
    if (server) return;
    const listening = serve({
      fetch: async (request: Request, env: unknown) => {
        const response = await app.fetch(request, env);
        const url = new URL(request.url);
        requests.push({ method: request.method, path: url.pathname, query: Object.fromEntries(url.searchParams), status: response.status });
        return response;
      },
      hostname: '127.0.0.1',
      port,
    });
    await once(listening, 'listening');
    server = listening;
    port = (listening.address() as AddressInfo).port;
  }

  async function close() {
    const closing = server;
    server = undefined;
    if (!closing) return;
    if ('closeAllConnections' in closing) closing.closeAllConnections();
    await new Promise((resolve) => closing.close(resolve));
  }

  await open();
  const origin = () => `http://127.0.0.1:${port}`;
  async function postTo(path: string, delivery: { body: string; headers: Record<string, string> }) {
    const response = await fetch(`${origin()}${path}`, { method: 'POST', body: delivery.body, headers: delivery.headers });
    await response.arrayBuffer();
    return response.status;
  }
  return {
    app,
    store,
    refusals,
    log,
    requests,
    /** `GET …/events` requests answered so far. */
    polls: () => requests.filter((r) => r.method === 'GET' && r.path.endsWith('/events')),
    origin,
    /** The dashboard's relay URL for this relay (single tenant): `<origin>/api`. */
    url: () => `${origin()}/api`,
    port: () => port,
    open,
    close,
    /** Posts a delivery over HTTP to `/api/webhooks/<integration>`; its status. */
    post: (delivery: { body: string; headers: Record<string, string> }, integration = 'code_host') => postTo(`/api/webhooks/${integration}`, delivery),
    /** Posts a delivery over HTTP to `path` (a tenant's webhook URL, say); its status. */
    postTo,
    /** The same delivery through the app in-process: the relay taking webhooks while it is off this socket. */
    async accept(delivery: { body: string; headers: Record<string, string> }, integration = 'code_host') {
      const response = await app.request(`/api/webhooks/${integration}`, { method: 'POST', body: delivery.body, headers: delivery.headers });
      await response.arrayBuffer();
      return response.status;
    },
  };
}

/**
 * Reads until `done` holds, every `everyMs`, for at most `ms`; answers the last value read, or throws naming `what`
 * (what is awaited, in words that follow "Still not") with that last value.
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000, what = 'the condition', everyMs = 100): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`Still not ${what} after ${ms} ms; last read: ${String(JSON.stringify(value)).slice(0, 2_000)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A GitHub webhook of `kind` with `body`, signed with `secret` (GitHub's own, unless another is given). */
export function githubWebhook(kind: string, body: string, options: { secret?: string; deliveryId?: string; ip?: string } = {}) {
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': kind,
      'x-github-delivery': options.deliveryId ?? randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', options.secret ?? GITHUB_SECRET).update(body).digest('hex')}`,
      'x-forwarded-for': options.ip ?? '203.0.113.7',
    },
  };
}

type Post = (path: string, delivery: { body: string; headers: Record<string, string> }) => Promise<number>;

/**
 * Posts one webhook turned away for each reason the relay counts, and one to an unknown integration (404, not
 * counted), under `base` (`/api`, or `/api/t/<tenant>`); the status each got, by reason. The relay has
 * RELAY_DISABLE_DEPLOY_HOST=true and `secret` as its GitHub secret. The rate limit is reached with 100 webhooks that
 * are taken in (from an address of `net`'s), so only the 101st is counted.
 */
export async function refuseOnceEach(post: Post, { base = '/api', secret = GITHUB_SECRET, net = '203.0.113' }: { base?: string; secret?: string; net?: string } = {}) {
  const at = (integration: string) => `${base}/webhooks/${integration}`;
  const pr = (options: Parameters<typeof githubDelivery>[0] = {}) => githubDelivery({ secret, ip: `${net}.1`, ...options });
  const statuses: Record<string, number> = {};
  statuses.disabled = await post(at('deploy_host'), { body: '{}', headers: { 'content-type': 'application/json', 'x-forwarded-for': `${net}.2` } });
  const big = pr();
  statuses.too_large = await post(at('code_host'), { ...big, body: ' '.repeat(256 * 1024 + 1) });
  const form = pr();
  statuses.not_json = await post(at('code_host'), { ...form, headers: { ...form.headers, 'content-type': 'application/x-www-form-urlencoded' } });
  const twice = pr({ deliveryId: `twice-${randomUUID()}` });
  if ((await post(at('code_host'), twice)) !== 200) throw new Error('the first copy of a delivery was not taken in');
  statuses.replayed_delivery = await post(at('code_host'), twice);
  statuses.stale_timestamp = await post(at('error_tracker'), {
    body: '{"action":"created"}',
    // Sentry's send time, in seconds: 1970's, long past the 5 minutes allowed.
    headers: { 'content-type': 'application/json', 'sentry-hook-resource': 'issue', 'sentry-hook-timestamp': '1000', 'x-forwarded-for': `${net}.3` },
  });
  statuses.bad_signature = await post(at('code_host'), pr({ secret: 'not-the-secret' }));
  statuses.invalid_payload = await post(at('code_host'), githubWebhook('pull_request', '{"action":"opened"}', { secret, ip: `${net}.1` }));
  statuses.not_handled = await post(at('code_host'), githubWebhook('ping', '{"zen":"Design for failure.","hook_id":109948940}', { secret, ip: `${net}.1` }));
  statuses.unknown_integration = await post(at('gitlab'), pr());
  for (let i = 0; i < 100; i++) if ((await post(at('code_host'), pr({ number: i, ip: `${net}.4` }))) !== 200) throw new Error(`webhook ${i} of 100 was not taken in`);
  statuses.rate_limited = await post(at('code_host'), pr({ ip: `${net}.4` }));
  return statuses;
}

/** The statuses `refuseOnceEach` must see. */
export const REFUSED_ONCE_EACH = {
  disabled: 503,
  too_large: 413,
  not_json: 415,
  replayed_delivery: 409,
  stale_timestamp: 409,
  bad_signature: 401,
  invalid_payload: 400,
  not_handled: 200,
  unknown_integration: 404,
  rate_limited: 429,
};

/** `GET …/refusals`' counts after `refuseOnceEach` within the hour `hour`: each reason once, by integration and reason. */
export const countedOnceEach = (hour: number) =>
  [
    ['code_host', 'bad_signature'],
    ['code_host', 'replayed_delivery'],
    ['code_host', 'rate_limited'],
    ['code_host', 'too_large'],
    ['code_host', 'not_json'],
    ['code_host', 'invalid_payload'],
    ['code_host', 'not_handled'],
    ['deploy_host', 'disabled'],
    ['error_tracker', 'stale_timestamp'],
  ].map(([integration, reason]) => ({ hour, integration, reason, count: 1 }));
