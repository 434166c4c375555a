import { createHmac, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '@dash/connectors';
import type { Notification } from '@dash/contracts';
import { PG_SERVER, postgresProblem, scratchPostgres } from '@dash/db/testing';
import { GITHUB_SECRET, githubDelivery, POLL_SECRET, pollHeaders, serveRelay } from '@dash/relay/testing';
import { receiveSettingsFrom } from '@dash/webhooks';
import { isTrackedEnvelope } from '@trpc/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as betterstack from '../../../webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import * as linear from '../../../webhooks/src/linear/fixtures.ts';
import * as sentry from '../../../webhooks/src/sentry/fixtures.ts';
import * as vercel from '../../../webhooks/src/vercel/fixtures.ts';
import type { RelayEnvironment } from '../index.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { RelayPoller } from './poller.ts';

// The dashboard's relay poller against the real relay app (memory store) on a real 127.0.0.1 socket,
// fed with provider-signed webhooks, through the REST adapter as a client would call it.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

// ---------------------------------------------------------------------------------------------------
// The relay, its signed webhooks, and dashboards that poll it

/** The signing secrets the relay checks, beside GitHub's (the relay's test config has that one). */
const SIGNING = {
  WEBHOOK_SECRET_VERCEL: 'vercel-signing-secret',
  WEBHOOK_SECRET_SENTRY: 'sentry-client-secret',
  WEBHOOK_SECRET_LINEAR: 'linear-signing-secret',
  WEBHOOK_SECRET_BETTERSTACK: 'betterstack-shared-token',
};

async function startRelay() {
  const relay = await serveRelay({ env: SIGNING });
  cleanup.push(async () => {
    await relay.close();
    await relay.store.close();
  });
  return relay;
}
type Relay = Awaited<ReturnType<typeof startRelay>>;

interface Delivery {
  integration: string;
  body: string;
  headers: Record<string, string>;
}

const hmac = (algorithm: 'sha1' | 'sha256', secret: string, body: string) => createHmac(algorithm, secret).update(body).digest('hex');
const json = (ip = '203.0.113.10') => ({ 'content-type': 'application/json', 'x-forwarded-for': ip });

/** Each provider's fixture, signed the way the provider signs it. */
const signed = {
  github: (body: string, event: string): Delivery => ({
    integration: 'code_host',
    body,
    headers: { ...json(), 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${hmac('sha256', GITHUB_SECRET, body)}` },
  }),
  vercel: (body: string): Delivery => ({
    integration: 'deploy_host',
    body,
    headers: { ...json(), 'x-vercel-signature': hmac('sha1', SIGNING.WEBHOOK_SECRET_VERCEL, body) },
  }),
  sentry: (body: string, resource: string): Delivery => ({
    integration: 'error_tracker',
    body,
    headers: {
      ...json(),
      'sentry-hook-resource': resource,
      'sentry-hook-timestamp': String(Math.floor(Date.now() / 1000)),
      'sentry-hook-signature': hmac('sha256', SIGNING.WEBHOOK_SECRET_SENTRY, body),
    },
  }),
  linear: (body: string): Delivery => ({
    integration: 'issue_tracker',
    body,
    headers: { ...json(), 'linear-delivery': randomUUID(), 'linear-signature': hmac('sha256', SIGNING.WEBHOOK_SECRET_LINEAR, body) },
  }),
  betterstack: (body: string): Delivery => ({
    integration: 'uptime_monitor',
    body,
    headers: { ...json(), 'x-betterstack-token': SIGNING.WEBHOOK_SECRET_BETTERSTACK },
  }),
  /** A merged pull request of acme/app, a repository no project lists. */
  unmatched: (number = 42): Delivery => ({ integration: 'code_host', ...githubDelivery({ number }) }),
};

/** One delivery of each provider (every one matching a project), and one that matches none. */
const sixDeliveries = () => [
  signed.github(github.pullRequest('closed', true), 'pull_request'),
  signed.vercel(vercel.deployment('deployment.error')),
  signed.sentry(sentry.issue('created'), 'issue'),
  signed.linear(linear.issueUpdated(new Date().toISOString(), { movedFrom: 'state-unstarted' })),
  signed.betterstack(betterstack.incident('started')),
  signed.unmatched(),
];

/** What those six become in the inbox: integration, type, project. */
const sixExpected = [
  { integration: 'code_host', type: 'pr.merged', project: 'web', url: 'https://github.com/Codertocat/Hello-World/pull/2' },
  { integration: 'deploy_host', type: 'deploy.error', project: 'web', resolved: false },
  { integration: 'error_tracker', project: 'ops' },
  { integration: 'issue_tracker', project: 'ops' },
  { integration: 'uptime_monitor', type: 'monitor.down', project: 'ops', resolved: false },
  { integration: 'code_host', type: 'pr.merged', project: null, url: 'https://github.com/acme/app/pull/42' },
];

async function post(relay: Relay, deliveries: readonly Delivery[]) {
  for (const delivery of deliveries) expect(await relay.post(delivery, delivery.integration), delivery.integration).toBe(200);
}

/** What the environment says: WEBHOOK_RELAY_URL and RELAY_POLL_SECRET (either may be absent). */
const relayEnv = (url?: string, secret?: string): RelayEnvironment => ({ url, secret, receive: receiveSettingsFrom({}) });

type DashboardOptions = Parameters<typeof createTestApi>[0];

/** A dashboard process over a SQLite file (a fresh one, or `dir` again); disposed after the test. */
async function dashboard(options: DashboardOptions = {}) {
  const api = await createTestApi(options);
  let disposed = false;
  const dispose = async (keepFiles = true) => {
    if (disposed) return;
    disposed = true;
    await api.dispose({ keepFiles });
  };
  // A dashboard of a shared directory leaves it for the others; the first one made removes it.
  cleanup.push(() => dispose(options.dir !== undefined));
  const call = restClient(() => api.caller);
  return {
    ...api,
    call,
    dispose,
    poller: api.ctx.notifications.poller,
    /** Every stored notification, newest first, through GET /api/notifications. */
    async inbox(): Promise<Notification[]> {
      const res = await call('GET', '/api/notifications?limit=100');
      expect(res.status).toBe(200);
      return res.json.notifications as Notification[];
    },
    cursor: (url: string) => api.store.notifications.cursor(url),
  };
}
type Dashboard = Awaited<ReturnType<typeof dashboard>>;

/** The projects the fixtures' events belong to: GitHub repo and Vercel project in `web`, the rest in `ops`. */
async function createProjects(dash: Dashboard) {
  const web = await dash.call('POST', '/api/projects', {
    slug: 'web',
    name: 'Web',
    // Lower case on purpose: GitHub names are case-insensitive.
    integrations: { code_host: { repos: ['codertocat/hello-world'] }, deploy_host: { projectId: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' } },
  });
  const ops = await dash.call('POST', '/api/projects', {
    slug: 'ops',
    name: 'Ops',
    integrations: { error_tracker: { org: 'acme', project: 'front-end' }, issue_tracker: { teamIds: ['team-eng'] }, uptime_monitor: { monitorIds: ['4'] } },
  });
  expect([web.status, ops.status]).toEqual([201, 201]);
}

/**
 * The relay's own answer to a poll, asked in-process from another address (so it is neither among the
 * served requests nor counted against the dashboard's limit): its events and X-Relay-Timestamp.
 */
async function relayPage(relay: Relay, since = 0) {
  const res = await relay.app.request(`/api/events?since=${since}&limit=1000`, { headers: pollHeaders('198.51.100.99') });
  expect(res.status).toBe(200);
  return { events: (await res.json()) as { sourceEventId: string }[], timestamp: Number(res.headers.get('x-relay-timestamp')) };
}

/** Waits until `check` holds, trying every 10 ms for up to `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`Still not so after ${ms} ms: ${check.toString()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Real time, read as if the test had begun at noon UTC: it passes and sleeps as the system clock does, but a
 * count of "today" (the poller's eventsToday) cannot see midnight go by between two steps of a test.
 */
function clockAtNoon(): Clock {
  const day = 86_400_000;
  const offset = Math.floor(Date.now() / day) * day + day / 2 - Date.now();
  return { now: () => Date.now() + offset, sleep: (ms, signal) => systemClock.sleep(ms, signal) };
}

/**
 * A clock the test moves: `sleep` resolves only when `advance` passes its time. The poller's back-off,
 * lease and limiter all read it; the relay keeps real time.
 */
function manualClock(start = Date.now()) {
  let now = start;
  const sleepers = new Set<{ at: number; wake: () => void }>();
  const clock = {
    now: () => now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason as Error);
        const abort = () => {
          sleepers.delete(sleeper);
          reject(signal?.reason as Error);
        };
        const sleeper = {
          at: now + ms,
          wake: () => {
            sleepers.delete(sleeper);
            signal?.removeEventListener('abort', abort);
            resolve();
          },
        };
        sleepers.add(sleeper);
        signal?.addEventListener('abort', abort, { once: true });
      }),
    advance(ms: number) {
      now += ms;
      for (const sleeper of [...sleepers]) if (sleeper.at <= now) sleeper.wake();
    },
    sleeping: () => sleepers.size,
  } satisfies Clock & Record<string, unknown>;
  return clock;
}

/** A plain HTTP server that is not a relay, answering every request with `answer`. */
async function notARelay(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(answer);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
}

const errorOf = (res: { json: Record<string, unknown> }) => (res.json as { error: { code: string; message: string } }).error;

// ---------------------------------------------------------------------------------------------------

describe('POST /api/relay/poll with the real relay', () => {
  it('answers { configured: false } while the relay URL or the poll secret is missing, and asks the relay nothing', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);

    const urlOnly = await dashboard({ relay: relayEnv(relay.url(), undefined) });
    const secretOnly = await dashboard({ relay: relayEnv(undefined, POLL_SECRET) });
    const none = await dashboard();
    for (const dash of [urlOnly, secretOnly, none]) {
      const res = await dash.call('POST', '/api/relay/poll');
      expect([res.status, res.json]).toEqual([200, { configured: false }]);
    }

    // Settings alone: a URL without a secret, then a secret without a URL.
    expect((await none.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    expect((await none.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });
    expect((await none.call('POST', '/api/settings', { relayUrl: null })).status).toBe(200);
    await none.caller.relay.saveSecret({ secret: POLL_SECRET });
    expect((await none.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });

    expect(relay.polls()).toEqual([]);
    for (const dash of [urlOnly, secretOnly, none]) expect(await dash.inbox()).toEqual([]);
  });

  it("stores provider-signed webhooks exactly once, each with its project (none when unmatched), and keeps the relay's timestamp as the cursor", async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    await createProjects(dash);
    await post(relay, sixDeliveries());
    const { timestamp } = await relayPage(relay);
    expect(timestamp).toBeGreaterThan(0);

    const res = await dash.call('POST', '/api/relay/poll');
    expect([res.status, res.json]).toEqual([200, { configured: true, eventCount: 6, relayTimestamp: timestamp }]);
    expect(await dash.cursor(relay.url())).toBe(timestamp);

    const inbox = await dash.inbox();
    expect(inbox).toHaveLength(6);
    // Newest first: the reverse of the order they were posted in.
    expect([...inbox].reverse()).toEqual(sixExpected.map((expected): unknown => expect.objectContaining(expected)));
    expect(new Set(inbox.map((n) => n.id)).size).toBe(6);
    expect(inbox.every((n) => n.readAt === null && n.eventCount === 1)).toBe(true);
    expect((await dash.call('GET', '/api/notifications/unread')).json).toMatchObject({ unreadCount: 6 });

    // Polling again finds nothing new and stores nothing.
    const again = await dash.call('POST', '/api/relay/poll');
    expect(again.json).toEqual({ configured: true, eventCount: 0, relayTimestamp: timestamp });
    expect(await dash.inbox()).toEqual(inbox);
    expect(await dash.cursor(relay.url())).toBe(timestamp);

    // The first poll started from nothing, the second from the cursor; both for pages of 500.
    expect(relay.polls()).toEqual([
      expect.objectContaining({ status: 200, query: { since: '0', limit: '500' } }),
      expect.objectContaining({ status: 200, query: { since: String(timestamp), limit: '500' } }),
    ]);
  });

  it('resumes from the stored cursor after a restart: nothing twice, later events arrive', async () => {
    const relay = await startRelay();
    const first = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    await createProjects(first);
    await post(relay, sixDeliveries().slice(0, 3));
    expect((await first.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 3 });
    const before = await first.inbox();
    const cursor = await first.cursor(relay.url());
    await first.dispose();

    // While the dashboard is down: two more webhooks.
    await post(relay, [signed.unmatched(7), signed.betterstack(betterstack.incident('started', { id: '99' }))]);
    const { timestamp } = await relayPage(relay);
    expect(timestamp).toBeGreaterThan(cursor!);

    const restarted = await dashboard({ dir: first.dir, credentialsKey: first.credentialsKey, relay: relayEnv(relay.url(), POLL_SECRET) });
    expect(await restarted.cursor(relay.url())).toBe(cursor);
    const res = await restarted.call('POST', '/api/relay/poll');
    // Only the two that came after the cursor were read.
    expect(res.json).toEqual({ configured: true, eventCount: 2, relayTimestamp: timestamp });
    expect(relay.polls().at(-1)?.query.since).toBe(String(cursor));
    const inbox = await restarted.inbox();
    expect(inbox).toHaveLength(5);
    expect(inbox.slice(2)).toEqual(before);
    expect(inbox.slice(0, 2)).toEqual([
      expect.objectContaining({ integration: 'uptime_monitor', project: 'ops' }),
      expect.objectContaining({ integration: 'code_host', project: null, url: 'https://github.com/acme/app/pull/7' }),
    ]);
    expect(await restarted.cursor(relay.url())).toBe(timestamp);
  });

  it('reads every page: 1,200 events buffered in the relay are all stored by one call', async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock: clockAtNoon() });
    // Through the relay's own webhook path (in-process, to keep it quick), from enough addresses to stay
    // within its 100 webhooks a minute per address.
    for (let i = 0; i < 1_200; i++) {
      expect(await relay.accept(githubDelivery({ number: i + 1, ip: `203.0.113.${Math.floor(i / 60)}` }))).toBe(200);
    }
    const { events, timestamp } = await relayPage(relay);
    expect(events).toHaveLength(1_000); // the relay's own largest page
    const last = await relayPage(relay, timestamp);
    expect(last.events).toHaveLength(200);

    const res = await dash.call('POST', '/api/relay/poll');
    expect(res.json).toEqual({ configured: true, eventCount: 1_200, relayTimestamp: last.timestamp });
    // 500 + 500 + 200, each page asked for after the last one's timestamp.
    expect(relay.polls().map((p) => [p.status, p.query.limit])).toEqual([
      [200, '500'],
      [200, '500'],
      [200, '500'],
    ]);
    expect(relay.polls()[0]!.query.since).toBe('0');
    expect(Number(relay.polls()[1]!.query.since)).toBeLessThan(Number(relay.polls()[2]!.query.since));
    expect((await dash.call('GET', '/api/notifications/unread')).json).toMatchObject({ unreadCount: 1_200 });
    const stored = await dash.store.notifications.list({ limit: 5_000 });
    expect(new Set(stored.map((row) => row.url)).size).toBe(1_200);
    expect(await dash.cursor(relay.url())).toBe(last.timestamp);
    expect(dash.poller.status()).toMatchObject({ eventsToday: 1_200, relayTimestamp: last.timestamp, lastError: null });
  });
});

describe('POST /api/relay/poll when the relay fails', () => {
  it('answers 502 when the relay cannot be reached, stores nothing, and reads what it missed once the relay is back', async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    await post(relay, [signed.unmatched(1)]);
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    const cursor = await dash.cursor(relay.url());

    await relay.close();
    // The relay still takes webhooks; only the dashboard cannot reach it.
    expect(await relay.accept(githubDelivery({ number: 2 }))).toBe(200);
    const res = await dash.call('POST', '/api/relay/poll');
    expect(res.status).toBe(502);
    expect(errorOf(res)).toEqual({ code: 'BAD_GATEWAY', message: expect.stringMatching(/^The relay cannot be reached: .*ECONNREFUSED/) });
    expect(await dash.inbox()).toHaveLength(1);
    expect(await dash.cursor(relay.url())).toBe(cursor);

    await relay.open();
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    expect((await dash.inbox()).map((n) => n.url)).toEqual(['https://github.com/acme/app/pull/2', 'https://github.com/acme/app/pull/1']);
  });

  it('answers 502 naming the poll secret when the relay refuses it, and stores nothing', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    const dash = await dashboard({ relay: relayEnv(relay.url(), 'not-the-relays-poll-secret') });

    const res = await dash.call('POST', '/api/relay/poll');
    expect(res.status).toBe(502);
    expect(errorOf(res)).toEqual({ code: 'BAD_GATEWAY', message: 'The relay refused the poll secret: A valid bearer poll secret is required' });
    expect(res.text).not.toContain('not-the-relays-poll-secret');
    expect(relay.polls().map((p) => p.status)).toEqual([401]);
    expect(await dash.inbox()).toEqual([]);
    expect(await dash.cursor(relay.url())).toBeUndefined();
  });

  const garbage: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp][] = [
    [
      'an HTML page with a timestamp header',
      (_req, res) => res.writeHead(200, { 'content-type': 'text/html', 'x-relay-timestamp': '5' }).end('<!doctype html><h1>Welcome</h1>'),
      /^The relay answered something that is not JSON: is this URL a relay\?$/,
    ],
    [
      'JSON of another shape',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-relay-timestamp': '5' }).end(JSON.stringify({ events: [] })),
      /^The relay's events are not in the expected shape/,
    ],
    [
      'events missing their fields',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-relay-timestamp': '5' }).end(JSON.stringify([{ id: 'e1', title: 'hi' }])),
      /^The relay's events are not in the expected shape \(0\.\w+: /,
    ],
    [
      'an empty page without X-Relay-Timestamp',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'),
      /^The relay answered without a valid X-Relay-Timestamp: is this URL a relay\?$/,
    ],
    [
      'a server error',
      (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('oops'),
      /^The relay answered 500: HTTP 500$/,
    ],
  ];
  for (const [what, answer, message] of garbage) {
    it(`answers 502 when a URL that is not a relay answers ${what}, and stores nothing`, async () => {
      const url = await notARelay(answer);
      const dash = await dashboard({ relay: relayEnv(url, POLL_SECRET) });
      const res = await dash.call('POST', '/api/relay/poll');
      expect(res.status).toBe(502);
      expect(errorOf(res)).toEqual({ code: 'BAD_GATEWAY', message: expect.stringMatching(message) });
      expect(await dash.inbox()).toEqual([]);
      expect(await dash.cursor(url)).toBeUndefined();
      expect(dash.poller.status()).toMatchObject({ lastSuccessAt: null, relayTimestamp: null });
    });
  }

  it('answers 429 when the relay says to poll less often, and stores nothing', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    // Something else on this machine used up the relay's 20 polls a minute for 127.0.0.1.
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${relay.url()}/events`, { headers: { authorization: `Bearer ${POLL_SECRET}` } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    const res = await dash.call('POST', '/api/relay/poll');
    expect(res.status).toBe(429);
    expect(errorOf(res)).toEqual({ code: 'TOO_MANY_REQUESTS', message: 'The relay says to poll less often: Poll rate limit exceeded' });
    expect(await dash.inbox()).toEqual([]);
    expect(await dash.cursor(relay.url())).toBeUndefined();
  });
});

describe('the relay URL and poll secret in settings', () => {
  it('relayUrl in settings overrides WEBHOOK_RELAY_URL without a restart, and null gives it back', async () => {
    const fromEnv = await startRelay();
    const fromSettings = await startRelay();
    await post(fromEnv, [signed.unmatched(1)]);
    await post(fromSettings, [signed.unmatched(2)]);
    const dash = await dashboard({ relay: relayEnv(fromEnv.url(), POLL_SECRET) });

    // Another host gets RELAY_POLL_SECRET only when it is entered again with the URL.
    expect((await dash.call('POST', '/api/settings', { relayUrl: fromSettings.url() })).status).toBe(400);
    await dash.caller.relay.saveSecret({ secret: POLL_SECRET, url: fromSettings.url() });
    expect((await dash.call('GET', '/api/settings')).json).toMatchObject({ relayUrl: fromSettings.url() });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ configured: true, url: fromSettings.url(), urlSource: 'settings', secretSource: 'settings' });
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    expect((await dash.inbox()).map((n) => n.url)).toEqual(['https://github.com/acme/app/pull/2']);
    expect(fromEnv.polls()).toEqual([]);

    expect((await dash.call('POST', '/api/settings', { relayUrl: null })).status).toBe(200);
    // The environment's URL with the environment's secret: the saved one is for the other host.
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ url: fromEnv.url(), urlSource: 'env', secretSource: 'env' });
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    expect((await dash.inbox()).map((n) => n.url)).toEqual(['https://github.com/acme/app/pull/1', 'https://github.com/acme/app/pull/2']);
  });

  it('a saved poll secret overrides RELAY_POLL_SECRET, and no response, log line or database page shows it', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    const dash = await dashboard({ relay: relayEnv(relay.url(), 'an-old-rotated-poll-secret') });
    expect((await dash.call('POST', '/api/relay/poll')).status).toBe(502);

    const saved = await dash.caller.relay.saveSecret({ secret: POLL_SECRET });
    const responses = [JSON.stringify(saved)];
    const poll = await dash.call('POST', '/api/relay/poll');
    expect(poll.json).toMatchObject({ configured: true, eventCount: 1 });
    const status = await dash.call('GET', '/api/relay/status');
    expect(status.json).toMatchObject({ configured: true, secretSource: 'settings', poller: { lastError: null } });
    const settings = await dash.call('GET', '/api/settings');
    responses.push(poll.text, status.text, settings.text, JSON.stringify(await dash.caller.relay.status()), JSON.stringify(await dash.caller.settings.get()));
    for (const text of responses) expect(text).not.toContain(POLL_SECRET);
    expect(dash.log.lines.join('\n')).not.toContain(POLL_SECRET);
    // Sealed at rest: the SQLite file (and its write-ahead log) never hold it in clear.
    for (const file of [dash.dbFile, `${dash.dbFile}-wal`].filter((f) => existsSync(f))) {
      expect(readFileSync(file).includes(Buffer.from(POLL_SECRET)), file).toBe(false);
    }

    // A wrong saved secret wins over the right one in the environment, too.
    const other = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    await other.caller.relay.saveSecret({ secret: 'a-saved-but-wrong-poll-secret' });
    const refused = await other.call('POST', '/api/relay/poll');
    expect([refused.status, errorOf(refused).message]).toEqual([502, expect.stringContaining('poll secret')]);
    expect(refused.text).not.toContain('a-saved-but-wrong-poll-secret');
  });

  it('removing the URL or the secret stops polling: { configured: false }, and the relay is not asked', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    const dash = await dashboard();
    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    await dash.caller.relay.saveSecret({ secret: POLL_SECRET });
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    expect(relay.polls()).toHaveLength(1);

    expect((await dash.call('POST', '/api/settings', { relayUrl: null })).status).toBe(200);
    expect((await dash.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ configured: false, url: null, urlSource: null, secretSource: 'settings' });

    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    await dash.caller.relay.saveSecret({ secret: null });
    expect((await dash.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ configured: false, secretSource: null });
    expect(relay.polls()).toHaveLength(1);
  });

  it('refuses a relayUrl at the cloud metadata address with 400 and keeps the one it had', async () => {
    const relay = await startRelay();
    const dash = await dashboard();
    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    const res = await dash.call('POST', '/api/settings', { relayUrl: 'http://169.254.169.254/' });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^relayUrl: The address 169\.254\.169\.254 /) });
    expect((await dash.call('GET', '/api/settings')).json).toMatchObject({ relayUrl: relay.url() });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ url: relay.url() });
  });
});

describe('the background poller', () => {
  it('brings a webhook posted while it waits on the relay into the inbox within seconds (long-poll)', async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock: clockAtNoon() });
    await createProjects(dash);
    dash.poller.start();
    // The poller's request is held open by the relay.
    await until(() => relay.store.notices!.watching() === 1);

    await post(relay, [signed.vercel(vercel.deployment('deployment.error'))]);
    // Well before the 15 s of plain polling.
    await until(async () => (await dash.inbox()).length === 1, 5_000);
    expect(await dash.inbox()).toEqual([expect.objectContaining({ integration: 'deploy_host', type: 'deploy.error', project: 'web' })]);
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({
      poller: { state: 'polling', longPoll: true, eventsToday: 1, lastError: null, relayTimestamp: expect.any(Number) },
    });
    // And it waits again for the next one.
    await until(() => relay.store.notices!.watching() === 1);
    expect(relay.polls().every((p) => p.status === 200)).toBe(true);
  });

  it('stays stopped without a relay configured, starts when the URL and secret are saved, and stops when one is removed', async () => {
    const relay = await startRelay();
    const dash = await dashboard();
    dash.poller.start();
    await sleep(100);
    expect(dash.poller.status()).toMatchObject({ configured: false, state: 'stopped' });
    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    await sleep(100);
    expect(dash.poller.status()).toMatchObject({ configured: false, state: 'stopped' });
    expect(relay.requests).toEqual([]);

    await dash.caller.relay.saveSecret({ secret: POLL_SECRET });
    await until(() => relay.store.notices!.watching() === 1);
    await post(relay, [signed.unmatched(1)]);
    await until(async () => (await dash.inbox()).length === 1);
    expect(dash.poller.status()).toMatchObject({ configured: true, state: 'polling' });

    // Removing the secret ends the held poll and stops the loop.
    await dash.caller.relay.saveSecret({ secret: null });
    await until(() => dash.poller.status().state === 'stopped' && relay.store.notices!.watching() === 0);
    const polls = relay.polls().length;
    await post(relay, [signed.unmatched(2)]);
    await sleep(300);
    expect(relay.polls()).toHaveLength(polls);
    expect(await dash.inbox()).toHaveLength(1);
    expect(dash.poller.status()).toMatchObject({ configured: false, state: 'stopped' });

    // Saving it again picks up what came meanwhile.
    await dash.caller.relay.saveSecret({ secret: POLL_SECRET });
    await until(async () => (await dash.inbox()).length === 2);
  });

  it('retries an unreachable relay quietly: one warn line per outage, one line when it is back, nothing lost', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched(1)]);
    await relay.close();
    const clock = manualClock();
    let attempts = 0;
    // Polls only: the loop also reads the relay's refusal counts beside them (once a minute, never waited for).
    const counting: typeof fetch = (input, init) => {
      if (new URL(input instanceof Request ? input.url : input).pathname.endsWith('/events')) attempts++;
      return fetch(input, init);
    };
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock, fetch: counting });
    const warnings = () => dash.log.lines.filter((line) => line.startsWith('warn '));
    /** One more turn of the loop: past any back-off, until it has tried and is sleeping again. */
    const nextAttempt = async () => {
      const before = attempts;
      clock.advance(300_000);
      await until(() => attempts === before + 1 && clock.sleeping() === 1);
    };

    dash.poller.start();
    await until(() => attempts === 1 && clock.sleeping() === 1);
    expect(dash.poller.status()).toMatchObject({ state: 'backing_off', lastError: expect.stringMatching(/^The relay cannot be reached: .*ECONNREFUSED/) });
    // Webhooks keep arriving at the relay while the dashboard cannot reach it.
    expect(await relay.accept(githubDelivery({ number: 2 }))).toBe(200);
    for (let i = 0; i < 4; i++) await nextAttempt();
    expect(attempts).toBe(5);
    expect(warnings()).toEqual([expect.stringMatching(/^warn relay poll failed: The relay cannot be reached: .*ECONNREFUSED/)]);
    expect(dash.log.lines).toHaveLength(1);
    expect(await dash.inbox()).toEqual([]);

    // Back: the next turn reads everything it missed, and says so once.
    await relay.open();
    expect(await relay.accept(githubDelivery({ number: 3 }))).toBe(200);
    clock.advance(300_000);
    await until(async () => (await dash.inbox()).length === 3);
    expect((await dash.inbox()).map((n) => n.url)).toEqual([3, 2, 1].map((n) => `https://github.com/acme/app/pull/${n}`));
    expect(dash.log.lines.filter((line) => line.startsWith('info '))).toEqual(['info relay polled again after 5 failed attempt(s)']);
    expect(dash.poller.status()).toMatchObject({ state: 'polling', lastError: null });

    // A second outage is a second (single) line.
    await until(() => relay.store.notices!.watching() === 1);
    await relay.close();
    await until(() => clock.sleeping() === 1);
    await nextAttempt();
    await nextAttempt();
    expect(warnings()).toHaveLength(2);
    expect(await dash.inbox()).toHaveLength(3);
  });
});

const pgProblem = await postgresProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): two dashboards are tested on SQLite only. ***\n`);

describe.for([
  { kind: 'SQLite file', skip: false },
  { kind: 'Postgres database', skip: pgProblem !== undefined && !inCI },
])('two dashboard processes on one $kind', ({ kind, skip }) => {
  /** Two dashboards on one store: a SQLite file in a's directory, or a scratch Postgres database. */
  async function pair(relay: Relay) {
    const clock = manualClock();
    let databaseUrl: string | undefined;
    if (kind === 'Postgres database') {
      const scratch = await scratchPostgres();
      databaseUrl = scratch.url;
      // Dropped after both dashboards are gone (cleanup runs last-in first-out).
      cleanup.push(() => scratch.drop());
    }
    const a = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock, ...(databaseUrl ? { databaseUrl } : {}) });
    const b = await dashboard({ dir: a.dir, credentialsKey: a.credentialsKey, relay: relayEnv(relay.url(), POLL_SECRET), clock, ...(databaseUrl ? { databaseUrl } : {}) });
    return { a, b, clock };
  }

  it.skipIf(skip)('only one polls; when it stops, the other takes over and every event arrives once', async () => {
    const relay = await startRelay();
    const { a, b, clock } = await pair(relay);
    a.poller.start();
    await until(() => relay.store.notices!.watching() === 1);
    b.poller.start();
    await until(() => b.poller.status().state === 'standby' && clock.sleeping() === 1);
    expect(relay.polls()).toHaveLength(0); // a's poll is still held: answered requests only

    // A browser connected to b (which does not poll) hears of what a stored, live.
    const abort = new AbortController();
    cleanup.push(() => abort.abort());
    const stream = (await createCaller(b.ctx, abort.signal).notifications.stream())[Symbol.asyncIterator]();
    const heard = stream.next();

    await post(relay, [signed.unmatched(1)]);
    await until(async () => (await a.inbox()).length === 1);
    const first = (await heard).value as unknown;
    expect(isTrackedEnvelope(first) && first[1]).toMatchObject({ kind: 'notification', notification: { url: 'https://github.com/acme/app/pull/1' }, unreadCount: 1 });
    abort.abort();
    await until(() => relay.store.notices!.watching() === 1);
    expect(a.poller.status().state).toBe('polling');
    // b looks again every 10 s, and stays in standby while a holds the lease.
    clock.advance(10_000);
    await until(() => clock.sleeping() === 1);
    expect(b.poller.status().state).toBe('standby');
    expect((await b.call('GET', '/api/relay/status')).json).toMatchObject({ configured: true, poller: { state: 'standby' } });
    expect(relay.store.notices!.watching()).toBe(1);

    await a.poller.stop();
    await until(() => relay.store.notices!.watching() === 0);
    expect(a.poller.status().state).toBe('stopped');
    clock.advance(10_000);
    await until(() => relay.store.notices!.watching() === 1);

    await post(relay, [signed.unmatched(2)]);
    await until(async () => (await b.inbox()).length === 2);
    // Its state turns to polling once the poll that stored the event has returned, just after the commit.
    await until(() => b.poller.status().state === 'polling');
    const inbox = await a.inbox();
    expect(inbox.map((n) => n.url)).toEqual([2, 1].map((n) => `https://github.com/acme/app/pull/${n}`));
    expect(relay.polls().every((p) => p.status === 200)).toBe(true);
  });

  it.skipIf(skip)('when the polling process dies without letting go, the other takes over once its 30 s lease runs out', async () => {
    const relay = await startRelay();
    const { a, b, clock } = await pair(relay);
    a.poller.start();
    await until(() => relay.store.notices!.watching() === 1);
    b.poller.start();
    await until(() => b.poller.status().state === 'standby' && clock.sleeping() === 1);

    // a dies: its database goes first, so it cannot give the lease up, then its loop ends.
    await a.store.close();
    await a.poller.stop();
    await until(() => relay.store.notices!.watching() === 0);

    for (let waited = 10_000; waited < 30_000; waited += 10_000) {
      clock.advance(10_000);
      await until(() => clock.sleeping() === 1);
      expect(b.poller.status().state, `after ${waited} ms`).toBe('standby');
    }
    expect(relay.store.notices!.watching()).toBe(0);
    clock.advance(10_000);
    await until(() => relay.store.notices!.watching() === 1);

    await post(relay, [signed.unmatched(1), signed.unmatched(2)]);
    await until(async () => (await b.inbox()).length === 2);
    // Its state turns to polling once the poll that stored the event has returned, just after the commit.
    await until(() => b.poller.status().state === 'polling');
    expect((await b.inbox()).map((n) => n.url)).toEqual([2, 1].map((n) => `https://github.com/acme/app/pull/${n}`));
  });
});

describe("the relay's poll limit", () => {
  it('sends at most 20 polls a minute however often the poll is asked for, and never draws a 429 from the relay', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });

    const answers = await Promise.all(Array.from({ length: 30 }, () => dash.call('POST', '/api/relay/poll')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(errorOf(refused)).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/^The relay allows 20 polls a minute; the next is free in \d+ s$/) });
    }
    expect(relay.polls()).toHaveLength(20);
    expect(relay.requests.filter((r) => r.status === 429)).toEqual([]);
    expect(await dash.inbox()).toHaveLength(1);
  });

  it('counts the background poller and explicit polls together, giving back only the held polls an event woke', async () => {
    const relay = await startRelay();
    const clock = manualClock();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock });
    for (let i = 0; i < 19; i++) expect((await dash.call('POST', '/api/relay/poll')).status).toBe(200);
    dash.poller.start();
    await until(() => relay.store.notices!.watching() === 1); // the 20th, held open by the relay
    await post(relay, [signed.unmatched()]);
    await until(async () => (await dash.inbox()).length === 1);
    // The event woke it, so the relay gave it back, and so does the dashboard: the loop holds its next poll at once.
    // (The served relay records a request once it has answered it: a held one shows only as a watch.)
    await until(() => relay.polls().length === 20 && relay.store.notices!.watching() === 1);
    expect(relay.polls()[19]).toMatchObject({ status: 200, query: { wait: '20' } });

    // That one counts (it is held, not woken): with 20 in the minute, Poll now cuts it short and finds no turn left.
    const refused = await dash.call('POST', '/api/relay/poll');
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ error: { message: expect.stringContaining('The relay allows 20 polls a minute') } });
    await until(() => relay.polls().length === 21);
    await sleep(200);
    expect(relay.polls()).toHaveLength(21);
    expect(relay.requests.filter((r) => r.status === 429)).toEqual([]);
  });
});

describe('Poll now and stopping, while the background poller runs', () => {
  it('an explicit poll while the background poller waits on the relay answers at once, not when the held poll ends', async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    dash.poller.start();
    await until(() => relay.store.notices!.watching() === 1);

    // The relay holds the background poll for up to 20 s; "Poll now" should not wait for it.
    const poll = dash.call('POST', '/api/relay/poll');
    poll.catch(() => undefined);
    const first = await Promise.race([poll.then(() => 'answered'), sleep(3_000).then(() => 'still waiting after 3 s')]);
    expect(first).toBe('answered');
    expect((await poll).json).toMatchObject({ configured: true, eventCount: 0 });
  });

  it('a poller stopped while it reads its settings does not take the lease afterwards, so another process takes over at once', async () => {
    const relay = await startRelay();
    const a = await dashboard();
    let settingsRead!: (target: { url: string; secret: string }) => void;
    const reading = new Promise<{ url: string; secret: string }>((resolve) => (settingsRead = resolve));
    const poller = new RelayPoller({ store: a.store, inbox: a.ctx.notifications.inbox, target: () => reading, log: a.log, clock: systemClock, fetch });
    poller.start();
    await sleep(20);
    // Shut down while the loop waits for its settings, which arrive just after.
    const stopping = poller.stop();
    settingsRead({ url: relay.url(), secret: POLL_SECRET });
    await stopping;
    await sleep(50);
    expect(poller.status().state).toBe('stopped');
    expect(relay.polls()).toEqual([]);

    const b = await dashboard({ dir: a.dir, credentialsKey: a.credentialsKey, relay: relayEnv(relay.url(), POLL_SECRET) });
    b.poller.start();
    await until(() => b.poller.status().state === 'standby' || relay.store.notices!.watching() === 1);
    expect(b.poller.status().state).not.toBe('standby');
    expect(relay.store.notices!.watching()).toBe(1);
  });
});
