import { createHmac, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { RelayConfig } from './config.ts';
import { readConfig } from './config.ts';
import { createRelayApp, type Logger } from './app.ts';
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

export function relay(store: RelayStore, env: Record<string, string> = {}, now?: () => number) {
  const log = quietLogger();
  const app = createRelayApp({ config: testConfig(env), store, log, ...(now ? { now } : {}) });
  return { app, log };
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
export async function serveRelay(options: { store?: RelayStore; env?: Record<string, string>; port?: number } = {}) {
  const store = options.store ?? memoryStore();
  const log = quietLogger();
  const app = createRelayApp({ config: testConfig(options.env), store, log, socketAddress: (c) => getConnInfo(c).remote.address });
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
  return {
    app,
    store,
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
    async post(delivery: { body: string; headers: Record<string, string> }, integration = 'code_host') {
      const response = await fetch(`${origin()}/api/webhooks/${integration}`, { method: 'POST', body: delivery.body, headers: delivery.headers });
      await response.arrayBuffer();
      return response.status;
    },
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
