// End to end: the real relay process (apps/relay's bundle, as its Docker image runs it) on the real Redis, the built dashboard
// polling it, provider-signed webhooks in; what the user sees: GET /api/notifications, the SSE stream,
// and the bell in a real browser.
import { spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hash } from '@node-rs/argon2';
import type { Notification, RelayStatus } from '@dash/contracts';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as betterstack from '../../../packages/webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../packages/webhooks/src/github/fixtures.ts';
import * as linear from '../../../packages/webhooks/src/linear/fixtures.ts';
import * as sentry from '../../../packages/webhooks/src/sentry/fixtures.ts';
import * as vercel from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { bundleRelay } from '../../relay/build.mjs';
import { gotoHydrated, launchChromium, screenshotDir } from './browser.ts';
import { START_DEADLINE_MS, startDashboard, type RunningDashboard } from './server.ts';
import { clearOfMidnight } from './waiting.ts';

const repoDir = fileURLToPath(new URL('../../..', import.meta.url));
/**
 * The relay as it is deployed: bundled by its own build into one file (in a scratch directory of this file's), which
 * Node runs alone. It starts on 0.8 s of CPU where apps/relay/src/main.ts under tsx took 3.3 s, and the file starts 13.
 */
const relayDir = mkdtempSync(join(tmpdir(), 'dash-e2e-relay-'));
const relayMain = await bundleRelay(join(relayDir, 'relay.mjs'));
afterAll(() => rmSync(relayDir, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------------
// Redis: this file's own db, emptied before and after each test (a few raw RESP commands suffice).

const REDIS_DB = 12;
const REDIS_URL = `redis://127.0.0.1:6379/${REDIS_DB}`;
const resp = (args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** Runs `commands` on this file's db; the raw replies (SELECT's and QUIT's included). */
function redis(...commands: string[][]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(6379, '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.setTimeout(3_000, () => socket.destroy(new Error('Redis did not answer within 3 s')));
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(reply));
    socket.once('connect', () => socket.write([['SELECT', String(REDIS_DB)], ...commands, ['QUIT']].map(resp).join('')));
  });
}
const flushRedis = async () => expect(await redis(['FLUSHDB'])).toBe('+OK\r\n+OK\r\n+OK\r\n');

const redisProblem = await redis(['PING']).then(
  (reply) => (reply.includes('+PONG') ? undefined : reply.trim()),
  (error: Error) => error.message,
);
if (redisProblem) {
  if (process.env.CI === 'true') throw new Error(`CI=true needs Redis at ${REDIS_URL}, which is unreachable: ${redisProblem}`);
  console.warn(`\n*** Redis at ${REDIS_URL} is unreachable (${redisProblem}): the relay-to-dashboard tests are SKIPPED ***\n`);
}

// ---------------------------------------------------------------------------------------------------
// Processes, each taken down after its test (SIGKILL for the relays), whatever happened.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  const problems: unknown[] = [];
  for (const step of cleanup.splice(0).reverse()) {
    try {
      await step();
    } catch (error) {
      problems.push(error);
    }
  }
  if (!redisProblem) await flushRedis();
  if (problems.length > 0) throw problems[0];
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Reads until `done` holds, every 50 ms, for at most `ms`; the last value read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 5_000, what = 'the condition'): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`Still not ${what} after ${ms} ms; last read: ${JSON.stringify(value).slice(0, 2_000)}`);
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------------
// The relay process and the providers' signed webhooks

const POLL_SECRET = randomBytes(24).toString('hex');
const SECRETS = {
  WEBHOOK_SECRET_GITHUB: 'github-signing-secret',
  WEBHOOK_SECRET_VERCEL: 'vercel-signing-secret',
  WEBHOOK_SECRET_SENTRY: 'sentry-client-secret',
  WEBHOOK_SECRET_LINEAR: 'linear-signing-secret',
  WEBHOOK_SECRET_BETTERSTACK: 'betterstack-shared-token',
};

interface Delivery {
  integration: string;
  body: string;
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

async function deliver(url: string, delivery: Delivery, extraHeaders: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', body: delivery.body, headers: { ...delivery.headers, ...extraHeaders } });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    // Not JSON: kept as the text, for the assertion to show.
  }
  return { status: response.status, contentType: response.headers.get('content-type'), body };
}

const received = { status: 200, contentType: expect.stringMatching(/^application\/json/), body: { received: true, eventCount: 1 } };

/**
 * `node relay.mjs` (the bundle) on 127.0.0.1 over this file's Redis db, as it is deployed: on `port`, or on
 * a free one, chosen again when another process takes it before the relay listens (test files run in parallel).
 */
async function startRelay(port?: number): Promise<Relay> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRelayOn(port ?? (await freePort()));
    } catch (error) {
      if (port !== undefined || attempt === 3 || !/EADDRINUSE/.test(String(error))) throw error;
    }
  }
}

async function startRelayOn(listenOn: number) {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(REDIS_URL|KV_REST_API_|RELAY_|WEBHOOK_SECRET_|ERROR_TRACKER_DSN|ALLOWED_ORIGIN|TRUST_PROXY|HOST$|PORT$)/.test(name)) env[name] = value;
  }
  const child = spawn(process.execPath, [relayMain], {
    cwd: repoDir,
    env: { ...env, ...SECRETS, REDIS_URL, RELAY_HOST: '127.0.0.1', RELAY_PORT: String(listenOn), RELAY_POLL_SECRET: POLL_SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  cleanup.push(kill);
  const deadline = performance.now() + START_DEADLINE_MS;
  while (!output.includes('listening on')) {
    if (child.exitCode !== null || performance.now() > deadline) {
      await kill();
      throw new Error(`The relay did not start:\n${output}`);
    }
    await sleep(25);
  }
  const origin = `http://127.0.0.1:${listenOn}`;
  return {
    port: listenOn,
    /** The dashboard's WEBHOOK_RELAY_URL for it. */
    url: `${origin}/api`,
    output: () => output,
    kill,
    send: (delivery: Delivery) => deliver(`${origin}/api/webhooks/${delivery.integration}`, delivery),
  };
}
type Relay = Awaited<ReturnType<typeof startRelayOn>>;

const hmac = (algorithm: 'sha1' | 'sha256', secret: string, body: string) => createHmac(algorithm, secret).update(body).digest('hex');
const json = { 'content-type': 'application/json' };

/** Each provider's fixture, signed the way the provider signs it. */
const signed = {
  github: (body: string, event = 'pull_request', secret = SECRETS.WEBHOOK_SECRET_GITHUB): Delivery => ({
    integration: 'code_host',
    body,
    headers: { ...json, 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${hmac('sha256', secret, body)}` },
  }),
  vercel: (body: string): Delivery => ({ integration: 'deploy_host', body, headers: { ...json, 'x-vercel-signature': hmac('sha1', SECRETS.WEBHOOK_SECRET_VERCEL, body) } }),
  sentry: (body: string, resource: string): Delivery => ({
    integration: 'error_tracker',
    body,
    headers: {
      ...json,
      'sentry-hook-resource': resource,
      'sentry-hook-timestamp': String(Math.floor(Date.now() / 1000)),
      'sentry-hook-signature': hmac('sha256', SECRETS.WEBHOOK_SECRET_SENTRY, body),
    },
  }),
  linear: (body: string): Delivery => ({
    integration: 'issue_tracker',
    body,
    headers: { ...json, 'linear-delivery': randomUUID(), 'linear-signature': hmac('sha256', SECRETS.WEBHOOK_SECRET_LINEAR, body) },
  }),
  betterstack: (body: string): Delivery => ({ integration: 'uptime_monitor', body, headers: { ...json, 'x-betterstack-token': SECRETS.WEBHOOK_SECRET_BETTERSTACK } }),
};

/** GitHub's merged pull request fixture as pull request `number` of `repo`, signed. */
function mergedPr(number: number, repo = 'Codertocat/Hello-World', secret?: string): Delivery {
  const payload = JSON.parse(github.pullRequest('closed', true)) as { number: number; pull_request: Record<string, unknown>; repository: Record<string, unknown> };
  payload.number = number;
  Object.assign(payload.pull_request, { number, title: `Change ${number}`, html_url: `https://github.com/${repo}/pull/${number}` });
  Object.assign(payload.repository, { full_name: repo, name: repo.split('/')[1], html_url: `https://github.com/${repo}` });
  return signed.github(`${JSON.stringify(payload, null, 2)}\n`, 'pull_request', secret);
}
const prTitle = (number: number) => `PR #${number} merged: Change ${number}`;

// ---------------------------------------------------------------------------------------------------
// The dashboard, as its user reads it

/** The built dashboard polling `relay` (a relay, a URL, or nothing), with `env` over that. */
async function dashboardFor(relay: Relay | string | undefined, env: Record<string, string> = {}) {
  const url = typeof relay === 'string' ? relay : relay?.url;
  const dashboard = await startDashboard({ env: { ...(url ? { WEBHOOK_RELAY_URL: url, RELAY_POLL_SECRET: POLL_SECRET } : {}), ...env } });
  cleanup.push(() => dashboard.stop());
  return dashboard;
}

type Inbox = { notifications: Notification[]; unreadCount: number };

async function inbox(dashboard: RunningDashboard, headers: Record<string, string> = {}): Promise<Inbox> {
  const response = await fetch(`${dashboard.url}/api/notifications?limit=100`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Inbox;
}

const titles = (box: Inbox) => box.notifications.map((n) => n.title).sort();
const hasTitles = (...wanted: string[]) => (box: Inbox) => wanted.every((title) => box.notifications.some((n) => n.title === title));

async function relayStatus(dashboard: RunningDashboard): Promise<RelayStatus> {
  const response = await fetch(`${dashboard.url}/api/relay/status`);
  expect(response.status).toBe(200);
  return (await response.json()) as RelayStatus;
}

async function pollNow(dashboard: RunningDashboard) {
  const response = await dashboard.fetch('/api/relay/poll', { method: 'POST', headers: json });
  return { status: response.status, body: (await response.json()) as unknown };
}

/** The fixtures' projects: the GitHub repo and the Vercel project in `web`, the Sentry project, Linear team and Better Stack monitor in `ops`. */
async function createProjects(dashboard: RunningDashboard) {
  const create = (project: object) => dashboard.fetch('/api/projects', { method: 'POST', headers: json, body: JSON.stringify(project) });
  const web = await create({
    slug: 'web',
    name: 'Web',
    color: '#2563eb',
    // Lower case on purpose: GitHub names are case-insensitive.
    integrations: { code_host: { repos: ['codertocat/hello-world'] }, deploy_host: { projectId: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' } },
  });
  const ops = await create({
    slug: 'ops',
    name: 'Ops',
    color: '#db2777',
    integrations: { error_tracker: { org: 'test-org', project: 'front-end' }, issue_tracker: { teamIds: ['team-eng'] }, uptime_monitor: { monitorIds: ['4'] } },
  });
  expect([web.status, ops.status]).toEqual([201, 201]);
}

/** A recording pass-through in front of the relay: which `since` each poll asked for and how many events it got. */
async function recordingProxy(relayPort: number) {
  const polls: { phase: string; since: number; events?: number }[] = [];
  const state = { phase: 'first' };
  const server = createHttpServer((req, res) => {
    const entry: { phase: string; since: number; events?: number } = { phase: state.phase, since: Number(new URL(req.url ?? '/', 'http://x').searchParams.get('since')) };
    if (req.url?.includes('/events')) polls.push(entry);
    const upstream = httpRequest({ host: '127.0.0.1', port: relayPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        if (answer.statusCode === 200 && req.url?.includes('/events')) entry.events = (JSON.parse(body.toString()) as unknown[]).length;
        res.writeHead(answer.statusCode ?? 502, answer.headers).end(body);
      });
    });
    upstream.on('error', () => res.destroy());
    // A poller that went away takes its held poll with it.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/api`, polls, state };
}

/** `GET /api/notifications/stream` read as an EventSource would: its events one by one. */
async function openStream(dashboard: RunningDashboard, lastEventId?: string) {
  const abort = new AbortController();
  const response = await fetch(`${dashboard.url}/api/notifications/stream`, { headers: lastEventId ? { 'last-event-id': lastEventId } : {}, signal: abort.signal });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const events: { id?: string; event?: string; data?: string; retry?: string }[] = [];
  const pump = (async (): Promise<'ended' | 'cut'> => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
          }
          if (Object.keys(fields).length > 0) events.push(fields);
        }
      }
    } catch {
      // Aborted by close(), or the connection was cut.
      return 'cut';
    }
  })();
  let read = 0;
  return {
    response,
    /** The next event with an `event:` field, waiting at most `ms`. */
    async next(ms = 5_000) {
      const deadline = performance.now() + ms;
      for (;;) {
        const event = events.slice(read).find((e) => e.event !== undefined);
        if (event) {
          read = events.indexOf(event) + 1;
          return { id: event.id, event: event.event, data: JSON.parse(event.data ?? 'null') as { notification?: Notification; unreadCount: number } };
        }
        if (performance.now() > deadline) throw new Error(`No event within ${ms} ms; got ${JSON.stringify(events)}`);
        await sleep(20);
      }
    },
    /** Everything received so far, events and the `retry:` advice. */
    seen: () => events,
    /** Resolves when the server ends the stream (`ended`) or the connection breaks (`cut`). */
    finished: pump,
    async close() {
      abort.abort();
      return pump;
    },
  };
}

/** The six deliveries: one of each provider, each matching a project, and a pull request of a repo no project lists. */
const sixDeliveries = () => [
  signed.github(github.pullRequest('closed', true)),
  signed.vercel(vercel.deployment('deployment.error')),
  signed.sentry(sentry.issue('created'), 'issue'),
  signed.linear(linear.issueUpdated(new Date().toISOString(), { movedFrom: 'state-unstarted' })),
  signed.betterstack(betterstack.incident('started')),
  mergedPr(42, 'acme/app'),
];
const sixExpected = [
  { integration: 'code_host', type: 'pr.merged', title: 'PR #2 merged: Update the README with new information.', project: 'web', severity: 'success', resolved: null },
  { integration: 'deploy_host', type: 'deploy.error', title: 'Deploy failed: my-app (production)', project: 'web', severity: 'error', resolved: false },
  { integration: 'error_tracker', type: 'error.issue_created', title: 'New issue FRONT-END-9: ReferenceError: blooopy is not defined', project: 'ops', severity: 'error', resolved: false },
  { integration: 'issue_tracker', type: 'issue.updated', title: 'ENG-123 moved to Done: Billing page', project: 'ops', severity: 'success', resolved: null },
  { integration: 'uptime_monitor', type: 'monitor.down', title: 'Monitor down: Tesla.com homepage (Error 500)', project: 'ops', severity: 'error', resolved: false },
  { integration: 'code_host', type: 'pr.merged', title: prTitle(42), project: null, severity: 'success', resolved: null },
];

// ---------------------------------------------------------------------------------------------------

describe.skipIf(redisProblem !== undefined && process.env.CI !== 'true')('webhooks from the relay process on Redis to the built dashboard', () => {
  beforeEach(flushRedis);

  it('brings provider-signed webhooks of all five integrations posted to the relay into the inbox, each once, in its project', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay);
    await createProjects(dashboard);
    // The relay status counts the events of the UTC day: the six, when the day does not turn before the last look.
    await clearOfMidnight(20_000);
    for (const delivery of sixDeliveries()) expect(await relay.send(delivery), delivery.integration).toEqual(received);

    // Nobody asks: the background poller's held poll brings them (within moments, not the 15 s interval).
    const box = await until(() => inbox(dashboard), (b) => b.notifications.length >= 6, 5_000, 'six notifications');
    const shape = (n: Notification) => ({ integration: n.integration, type: n.type, title: n.title, project: n.project, severity: n.severity, resolved: n.resolved });
    const byTitle = (a: { title: string }, b: { title: string }) => a.title.localeCompare(b.title);
    expect(box.notifications.map(shape).sort(byTitle)).toEqual([...sixExpected].sort(byTitle));
    expect(box.notifications.every((n) => n.readAt === null && n.eventCount === 1)).toBe(true);
    expect(box.unreadCount).toBe(6);

    // Exactly once: a while later, and after an explicit poll that finds nothing new.
    await sleep(1_000);
    expect(await pollNow(dashboard)).toEqual({ status: 200, body: { configured: true, eventCount: 0, relayTimestamp: expect.any(Number) } });
    const after = await inbox(dashboard);
    expect([titles(after), after.unreadCount]).toEqual([titles(box), 6]);
    expect((await relayStatus(dashboard)).poller).toMatchObject({ lastError: null, eventsToday: 6, longPoll: true });

    // The monitor's recovery is not a seventh notification: it resolves the outage.
    expect(await relay.send(signed.betterstack(betterstack.incident('resolved')))).toEqual(received);
    const outage = (box: Inbox) => box.notifications.find((n) => n.integration === 'uptime_monitor');
    const recovered = await until(() => inbox(dashboard), (b) => outage(b)?.resolved === true, 5_000, 'the outage resolved');
    expect(recovered.notifications).toHaveLength(6);
    expect(outage(recovered)).toMatchObject({ type: 'monitor.down', resolved: true, resolvedAt: '2020-10-21T11:02:10.000Z', eventCount: 2, project: 'ops' });
  }, 120_000);

  it('resumes from its stored cursor after a restart: the events sent while it was down arrive, none twice', async () => {
    const relay = await startRelay();
    const proxy = await recordingProxy(relay.port);
    const dataDir = mkdtempSync(join(tmpdir(), 'dash-e2e-cursor-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const sameStore = { DATA_DIR: dataDir, DATABASE_URL: `file:${join(dataDir, 'dashboard.db')}`, CREDENTIALS_KEY: randomBytes(32).toString('hex') };

    const first = await dashboardFor(proxy.url, sameStore);
    for (const n of [1, 2]) expect(await relay.send(mergedPr(n))).toEqual(received);
    await until(() => inbox(first), hasTitles(prTitle(1), prTitle(2)), 5_000, 'PRs 1 and 2');
    expect((await first.fetch('/api/notifications/read', { method: 'POST', headers: json, body: '{"all":true}' })).status).toBe(200);
    await first.stop();
    const lastCursor = proxy.polls.filter((p) => p.phase === 'first').at(-1)?.since ?? 0;
    expect(lastCursor).toBeGreaterThan(0);

    proxy.state.phase = 'second';
    for (const n of [3, 4]) expect(await relay.send(mergedPr(n))).toEqual(received);
    const second = await dashboardFor(proxy.url, sameStore);
    await until(() => inbox(second), hasTitles(prTitle(3), prTitle(4)), 5_000, 'PRs 3 and 4');
    // Its first poll asked from where the first process stopped, and got just the two new events.
    expect(proxy.polls.find((p) => p.phase === 'second')).toEqual({ phase: 'second', since: lastCursor, events: 2 });
    await sleep(500);
    const after = await inbox(second);
    expect(titles(after)).toEqual([1, 2, 3, 4].map(prTitle));
    // The read ones stayed read; the two new ones are the unread.
    expect([after.unreadCount, after.notifications.filter((n) => n.readAt === null).map((n) => n.title).sort()]).toEqual([2, [prTitle(3), prTitle(4)]]);
  });

  it('loses nothing when the relay goes away and comes back, keeps serving meanwhile, and logs the outage once', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay);
    expect(await relay.send(mergedPr(1))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(1)), 5_000, 'PR 1');
    await sleep(300);

    // The relay dies under the poll the dashboard holds open.
    await relay.kill();
    const down = await until(() => relayStatus(dashboard), (s) => s.poller.lastError !== null, 5_000, 'a poller error');
    expect(down.poller.lastError).toMatch(/cannot be reached/);

    // The providers' webhooks keep landing in Redis through another relay process.
    const other = await startRelay();
    for (const n of [2, 3, 4]) expect(await other.send(mergedPr(n))).toEqual(received);
    await other.kill();

    // The dashboard keeps serving; "Poll now" says why it cannot (and adds no log line).
    expect(titles(await inbox(dashboard))).toEqual([prTitle(1)]);
    for (let i = 0; i < 2; i++) {
      expect(await pollNow(dashboard)).toEqual({ status: 502, body: { error: expect.objectContaining({ code: 'BAD_GATEWAY', message: expect.stringMatching(/cannot be reached/) }) } });
    }

    // Back on its address: the poller's retry brings every buffered event, once. Its back-off is 15 s after the first
    // failure and 30 s after a second (a busy machine keeps the relay away past the first retry): within 45 s.
    await startRelay(relay.port);
    const box = await until(() => inbox(dashboard), hasTitles(prTitle(2), prTitle(3), prTitle(4)), 45_000, 'PRs 2 to 4');
    await sleep(500);
    expect(titles(await inbox(dashboard))).toEqual([1, 2, 3, 4].map(prTitle));
    expect(box.unreadCount).toBe(4);
    expect((await relayStatus(dashboard)).poller.lastError).toBeNull();
    expect(dashboard.output().match(/relay poll failed/g), dashboard.output()).toHaveLength(1);
    expect(dashboard.output()).toMatch(/relay polled again after \d+ failed attempt/);
    // Three relay processes start, and the poller backs off while the relay is away: on a busy CI machine
    // running the suite's files in parallel this takes more than the project's minute.
  }, 120_000);

  it('makes one notification of a delivery that comes both to the local route and through the relay, in either order', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay, { WEBHOOK_SECRET_GITHUB: SECRETS.WEBHOOK_SECRET_GITHUB });
    const local = (delivery: Delivery) => deliver(`${dashboard.url}/api/webhooks/${delivery.integration}`, delivery);

    // Straight to the dashboard first, then the same bytes and headers through the relay.
    const seven = mergedPr(7);
    expect(await local(seven)).toEqual(received);
    expect(titles(await inbox(dashboard))).toEqual([prTitle(7)]);
    expect(await relay.send(seven)).toEqual(received);

    // Through the relay first, then straight.
    const eight = mergedPr(8);
    expect(await relay.send(eight)).toEqual(received);
    // The relay serves in order: once 8 is in, so is the relay's copy of 7.
    await until(() => inbox(dashboard), hasTitles(prTitle(8)), 5_000, 'PR 8');
    expect(await local(eight)).toEqual(received);

    await sleep(500);
    expect(await pollNow(dashboard)).toMatchObject({ status: 200, body: { eventCount: 0 } });
    const box = await inbox(dashboard);
    expect(box.notifications.map((n) => [n.title, n.eventCount]).sort()).toEqual([
      [prTitle(7), 1],
      [prTitle(8), 1],
    ]);
    expect(box.unreadCount).toBe(2);
  });

  it('is woken by a webhook stored through another relay process on the same Redis, well before the 15 s poll interval', async () => {
    const [a, b] = await Promise.all([startRelay(), startRelay()]);
    const dashboard = await dashboardFor(a);
    // A first event through A: the poller is then in its steady state, holding its next poll at A.
    expect(await a.send(mergedPr(1))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(1)), 5_000, 'PR 1');
    await sleep(500);

    const sent = performance.now();
    expect(await b.send(mergedPr(2))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(2)), 20_000, 'PR 2');
    const latency = performance.now() - sent;
    // Without B's store waking A's held poll it would come after the poll's 20 s wait (or the 15 s interval).
    expect(latency).toBeLessThan(5_000);
    expect((await relayStatus(dashboard)).poller.longPoll).toBe(true);
  });

  it('streams new notifications over GET /api/notifications/stream, and replays what a reconnect missed', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay);
    const stream = await openStream(dashboard);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get('cache-control')).toBe('no-store');
    await until(() => Promise.resolve(stream.seen().length), (n) => n > 0, 2_000, 'the retry advice');
    expect(stream.seen()[0]).toEqual({ retry: '5000' });
    await sleep(200);

    expect(await relay.send(mergedPr(1))).toEqual(received);
    const first = await stream.next();
    expect(first).toMatchObject({ id: expect.stringMatching(/^\d+$/), event: 'notification', data: { notification: { title: prTitle(1), readAt: null }, unreadCount: 1 } });
    await stream.close();

    // Missed while away.
    expect(await relay.send(mergedPr(2))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(2)), 5_000, 'PR 2');

    const again = await openStream(dashboard, first.id);
    const replayed = await again.next();
    expect(replayed).toMatchObject({ event: 'notification', data: { notification: { title: prTitle(2) }, unreadCount: 2 } });
    expect(Number(replayed.id)).toBeGreaterThan(Number(first.id));
    // And only that: the one it had already seen is not sent again; new ones follow live.
    expect(await relay.send(mergedPr(3))).toEqual(received);
    const live = await again.next();
    expect(live).toMatchObject({ event: 'notification', data: { notification: { title: prTitle(3) }, unreadCount: 3 } });
    expect(Number(live.id)).toBeGreaterThan(Number(replayed.id));
    await again.close();
  });

  it('shows a webhook posted to the relay in the open dashboard’s bell without a reload, and clears the badge on "Mark all read"', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay);
    // Closed before the dashboard stops: an open page's live stream would hold its shutdown up.
    const browser = await launchChromium();
    cleanup.push(() => browser.close());
    await createProjects(dashboard);

    const problems: string[] = [];
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
    });
    await gotoHydrated(page, dashboard.url);
    await sleep(300);
    await page.evaluate(() => (document.body.dataset.sameDocument = 'yes'));

    const bell = page.locator('.bell > button');
    expect(await bell.getAttribute('aria-label')).toBe('Notifications');
    await bell.click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    await panel.getByText('No notifications yet.').waitFor();

    expect(await relay.send(signed.vercel(vercel.deployment('deployment.error')))).toEqual(received);
    await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor({ timeout: 10_000 });
    await panel.getByRole('listitem').filter({ hasText: 'Deploy failed: my-app (production)' }).waitFor();
    expect(await page.locator('.bell .count').innerText()).toBe('1');

    expect(await relay.send(signed.github(github.pullRequest('closed', true)))).toEqual(received);
    await page.getByRole('button', { name: 'Notifications, 2 unread' }).waitFor({ timeout: 10_000 });
    // The title links to the source.
    const link = panel.getByRole('link', { name: 'PR #2 merged: Update the README with new information.' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('https://github.com/Codertocat/Hello-World/pull/2');
    // Newest first, each with its source and project.
    const items = panel.getByRole('listitem');
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).innerText()).toMatch(/PR #2 merged: Update the README with new information\.[\s\S]*GitHub\s·\sWeb\s·\s/);
    expect(await items.nth(1).innerText()).toMatch(/Deploy failed: my-app \(production\)[\s\S]*Vercel\s·\sWeb\s·\songoing\s·\s/);
    expect(await page.evaluate(() => document.body.dataset.sameDocument)).toBe('yes');
    await page.screenshot({ path: `${screenshotDir}notifications-bell.png` });

    await panel.getByRole('button', { name: 'Mark all read' }).click();
    await page.locator('.bell > button[aria-label="Notifications"]').waitFor();
    expect(await page.locator('.bell .count').count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Mark all read' }).isDisabled()).toBe(true);
    expect(await (await fetch(`${dashboard.url}/api/notifications/unread`)).json()).toMatchObject({ unreadCount: 0 });
    // Still the same page: nothing reloaded.
    expect(await page.evaluate(() => document.body.dataset.sameDocument)).toBe('yes');
    await page.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('connects the relay from Settings → Relay: a wrong secret gets the relay’s reason, the right one polls at once, and the secret never comes back', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(undefined);
    const browser = await launchChromium();
    cleanup.push(() => browser.close());
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    await gotoHydrated(page, `${dashboard.url}/settings#relay`);
    const section = page.locator('#relay');
    const status = section.locator('[data-poller-state]');
    expect(await status.innerText()).toBe('Not configured: set the URL and the secret');

    await section.getByLabel('Relay URL').fill(relay.url);
    await section.getByLabel('Poll secret').fill('not-the-relay-secret-at-all');
    await section.getByRole('button', { name: 'Test connection' }).click();
    await section.getByText(/Poll: The relay refused the poll secret/).waitFor({ timeout: 10_000 });

    await section.getByLabel('Poll secret').fill(POLL_SECRET);
    await section.getByRole('button', { name: 'Test connection' }).click();
    await section.getByText(/The relay answers and accepts the secret/).waitFor({ timeout: 10_000 });
    await section.getByRole('button', { name: 'Save', exact: true }).first().click();
    await section.getByText('Saved. Polling starts (or stops) at once.').waitFor();

    // Polling started without a restart: a webhook reaches the inbox, and the status says so after a reload.
    expect(await relay.send(mergedPr(7))).toEqual(received);
    await until(() => inbox(dashboard), hasTitles(prTitle(7)), 10_000, 'the webhook in the inbox');
    await page.reload();
    await until(() => status.getAttribute('data-poller-state'), (state) => state === 'polling', 5_000, 'the poller polling');
    expect(await section.getByLabel('Poll secret').inputValue()).toBe('');
    expect(await page.content()).not.toContain(POLL_SECRET);
    expect(JSON.stringify(await relayStatus(dashboard))).not.toContain(POLL_SECRET);
    await page.screenshot({ path: `${screenshotDir}settings-relay.png`, fullPage: true });
    await page.close();
  }, 120_000);

  it('takes provider webhooks on POST /api/webhooks/:integration from any origin and without sign-in, judging them by their signature', async () => {
    const password = 'correct horse battery staple';
    const dashboard = await dashboardFor(undefined, { DASHBOARD_PASSWORD_HASH: await hash(password), WEBHOOK_SECRET_GITHUB: SECRETS.WEBHOOK_SECRET_GITHUB });
    const route = (integration: string) => `${dashboard.url}/api/webhooks/${integration}`;

    // Everything else of this dashboard asks for a sign-in.
    const closed = await fetch(`${dashboard.url}/api/notifications`);
    expect([closed.status, ((await closed.json()) as { error: { code: string } }).error.code]).toEqual([401, 'UNAUTHORIZED']);

    // A provider posts from anywhere, with no cookie: the cross-site guard does not stand in its way.
    expect(await deliver(route('code_host'), mergedPr(5), { origin: 'https://evil.example' })).toEqual(received);
    expect(await deliver(route('github'), mergedPr(6))).toEqual(received);

    const forged = await deliver(route('code_host'), mergedPr(9, 'Codertocat/Hello-World', 'not-the-secret'), { origin: 'https://evil.example' });
    expect(forged).toEqual({
      status: 401,
      contentType: expect.stringMatching(/^application\/json/),
      body: { error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/signature/) } },
    });
    const unknown = await deliver(route('gitlab'), mergedPr(10));
    expect(unknown).toEqual({ status: 404, contentType: expect.stringMatching(/^application\/json/), body: { error: { code: 'NOT_FOUND', message: expect.stringContaining('gitlab') } } });

    // Signed in, the owner finds the two genuine ones, and not the forgery.
    const login = await fetch(`${dashboard.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.getSetCookie().find((c) => c.startsWith('dash_session=')) ?? '').split(';')[0] ?? '';
    expect(titles(await inbox(dashboard, { cookie }))).toEqual([prTitle(5), prTitle(6)]);
  });

  // GitHub lets a webhook send application/x-www-form-urlencoded. The relay answers such a delivery
  // 415 "Send application/json", which tells the owner what to change; the local route must too.
  it('answers a form-encoded webhook on the local route 415 JSON, as the relay does', async () => {
    const relay = await startRelay();
    const dashboard = await dashboardFor(relay, { WEBHOOK_SECRET_GITHUB: SECRETS.WEBHOOK_SECRET_GITHUB });
    const delivery = mergedPr(11);
    const form = { ...delivery, headers: { ...delivery.headers, 'content-type': 'application/x-www-form-urlencoded' } };
    const unsupported = { status: 415, contentType: expect.stringMatching(/^application\/json/), body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send application/json' } } };
    expect(await relay.send(form)).toEqual(unsupported);
    expect(await deliver(`${dashboard.url}/api/webhooks/code_host`, form)).toEqual(unsupported);
  });

  // The relay answers its held polls and exits at once on SIGTERM; the dashboard's live streams (an open
  // tab's bell, a REST client) must not hold its stop up for adapter-node's 30 s either.
  it('stops within moments of SIGTERM while a live stream is open, and ends the stream', async () => {
    const dashboard = await dashboardFor(undefined);
    const stream = await openStream(dashboard);
    await until(() => Promise.resolve(stream.seen().length), (n) => n > 0, 2_000, 'the retry advice');
    const signalled = performance.now();
    await dashboard.stop();
    const stopping = performance.now() - signalled;
    expect(stopping).toBeLessThan(3_000);
    expect(await stream.finished).toBe('ended');
  });
});
