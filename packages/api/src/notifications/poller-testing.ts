import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '@dash/connectors';
import type { Notification } from '@dash/contracts';
import { GITHUB_SECRET, githubDelivery, pollHeaders, serveRelay } from '@dash/relay/testing';
import { receiveSettingsFrom } from '@dash/webhooks';
import { expect } from 'vitest';
import * as betterstack from '../../../webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import * as linear from '../../../webhooks/src/linear/fixtures.ts';
import * as sentry from '../../../webhooks/src/sentry/fixtures.ts';
import { deliverySigner, type SignedDelivery } from '../../../webhooks/src/signed-deliveries.ts';
import * as vercel from '../../../webhooks/src/vercel/fixtures.ts';
import type { RelayEnvironment } from '../index.ts';
import { createTestApi, restClient } from '../testing.ts';
import { cleanupAfterEach } from '../testing/cleanup.ts';

// What the relay poller's tests (poller-*.test.ts) share: the real relay app (memory store) on a real 127.0.0.1
// socket, fed with provider-signed webhooks, and dashboards that poll it, called through the REST adapter as a client
// would call it; the clocks the tests run the poller on. Each file starts its own relays, servers and dashboards on
// ports of their own, so any two of them can run at once.

/** The signing secrets the relay checks, beside GitHub's (the relay's test config has that one). */
const SIGNING = {
  WEBHOOK_SECRET_VERCEL: 'vercel-signing-secret',
  WEBHOOK_SECRET_SENTRY: 'sentry-client-secret',
  WEBHOOK_SECRET_LINEAR: 'linear-signing-secret',
  WEBHOOK_SECRET_BETTERSTACK: 'betterstack-shared-token',
};

export type Relay = Awaited<ReturnType<typeof serveRelay>>;

type Delivery = SignedDelivery;

const signer = deliverySigner(
  { github: GITHUB_SECRET, vercel: SIGNING.WEBHOOK_SECRET_VERCEL, sentry: SIGNING.WEBHOOK_SECRET_SENTRY, linear: SIGNING.WEBHOOK_SECRET_LINEAR, betterstack: SIGNING.WEBHOOK_SECRET_BETTERSTACK },
  // As the relay's proxy passes it on.
  { 'x-forwarded-for': '203.0.113.10' },
);

/** Each provider's fixture, signed the way the provider signs it. */
export const signed = {
  ...signer,
  /** A merged pull request of acme/app, a repository no project lists. */
  unmatched: (number = 42): Delivery => ({ integration: 'code_host', ...githubDelivery({ number }) }),
};

/** One delivery of each provider (every one matching a project), and one that matches none. */
export const sixDeliveries = () => [
  signed.github(github.pullRequest('closed', true), 'pull_request'),
  signed.vercel(vercel.deployment('deployment.error')),
  signed.sentry(sentry.issue('created'), 'issue'),
  signed.linear(linear.issueUpdated(new Date().toISOString(), { movedFrom: 'state-unstarted' })),
  signed.betterstack(betterstack.incident('started')),
  signed.unmatched(),
];

/** What those six become in the inbox: integration, type, project. */
export const sixExpected = [
  { integration: 'code_host', type: 'pr.merged', project: 'web', url: 'https://github.com/Codertocat/Hello-World/pull/2' },
  { integration: 'deploy_host', type: 'deploy.error', project: 'web', resolved: false },
  { integration: 'error_tracker', project: 'ops' },
  { integration: 'issue_tracker', project: 'ops' },
  { integration: 'uptime_monitor', type: 'monitor.down', project: 'ops', resolved: false },
  { integration: 'code_host', type: 'pr.merged', project: null, url: 'https://github.com/acme/app/pull/42' },
];

export async function post(relay: Relay, deliveries: readonly Delivery[]) {
  for (const delivery of deliveries) expect(await relay.post(delivery, delivery.integration), delivery.integration).toBe(200);
}

/** What the environment says: WEBHOOK_RELAY_URL and RELAY_POLL_SECRET (either may be absent). */
export const relayEnv = (url?: string, secret?: string): RelayEnvironment => ({ url, secret, receive: receiveSettingsFrom({}) });

type DashboardOptions = Parameters<typeof createTestApi>[0];

/**
 * A test file's relays and dashboards: registers the file's afterEach (what `cleanup` was given undone, last first) and
 * answers what starts them. Call once at the top of a test file.
 */
export function pollerTests() {
  const cleanup = cleanupAfterEach();

  async function startRelay() {
    const relay = await serveRelay({ env: SIGNING });
    cleanup.push(async () => {
      await relay.close();
      await relay.store.close();
    });
    return relay;
  }

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

  return { cleanup, startRelay, dashboard, notARelay };
}
type Dashboard = Awaited<ReturnType<ReturnType<typeof pollerTests>['dashboard']>>;

/** The projects the fixtures' events belong to: GitHub repo and Vercel project in `web`, the rest in `ops`. */
export async function createProjects(dash: Dashboard) {
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
export async function relayPage(relay: Relay, since = 0) {
  const res = await relay.app.request(`/api/events?since=${since}&limit=1000`, { headers: pollHeaders('198.51.100.99') });
  expect(res.status).toBe(200);
  return { events: (await res.json()) as { sourceEventId: string }[], timestamp: Number(res.headers.get('x-relay-timestamp')) };
}

/**
 * Real time, read as if the test had begun at noon UTC: it passes and sleeps as the system clock does, but a
 * count of "today" (the poller's eventsToday) cannot see midnight go by between two steps of a test.
 */
export function clockAtNoon(): Clock {
  const day = 86_400_000;
  const offset = Math.floor(Date.now() / day) * day + day / 2 - Date.now();
  return { now: () => Date.now() + offset, sleep: (ms, signal) => systemClock.sleep(ms, signal) };
}

/**
 * A clock the test moves: `sleep` resolves only when `advance` passes its time. The poller's back-off,
 * lease and limiter all read it; the relay keeps real time.
 */
export function manualClock(start = Date.now()) {
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

export const errorOf = (res: { json: Record<string, unknown> }) => (res.json as { error: { code: string; message: string } }).error;
