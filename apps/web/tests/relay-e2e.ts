// What the relay-to-dashboard files (relay-polling.test.ts, notifications-in-dashboard.test.ts) share: the real relay
// process (apps/relay's bundle, as its Docker image runs it) on the real Redis, the built dashboard polling it,
// provider-signed webhooks, and what the user reads (GET /api/notifications, the relay status, "Poll now").
//
//   const { redisProblem, flushRedis, cleanup, startRelay, dashboardFor } = await relayToDashboard(12);
//
// Each file calls relayToDashboard once at its top with a Redis db of its own (files run side by side, and each
// empties its db before and after every test).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Notification, RelayStatus } from '@dash/contracts';
import { afterAll, afterEach, expect } from 'vitest';
import * as github from '../../../packages/webhooks/src/github/fixtures.ts';
import { deliverySigner, type SignedDelivery } from '../../../packages/webhooks/src/signed-deliveries.ts';
import { bundleRelay } from '../../relay/build.mjs';
import { freePort, START_DEADLINE_MS, startDashboard, type RunningDashboard } from './server.ts';
import { sleep, takeDownAfterEach } from './waiting.ts';

const repoDir = fileURLToPath(new URL('../../..', import.meta.url));

// ---------------------------------------------------------------------------------------------------
// Redis: a few raw RESP commands suffice.

const resp = (args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** Runs `commands` on Redis db `db`; the raw replies (SELECT's and QUIT's included). */
function redisOn(db: number, ...commands: string[][]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(6379, '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.setTimeout(3_000, () => socket.destroy(new Error('Redis did not answer within 3 s')));
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(reply));
    socket.once('connect', () => socket.write([['SELECT', String(db)], ...commands, ['QUIT']].map(resp).join('')));
  });
}

// ---------------------------------------------------------------------------------------------------
// The providers' signed webhooks

export const POLL_SECRET = randomBytes(24).toString('hex');
export const SECRETS = {
  WEBHOOK_SECRET_GITHUB: 'github-signing-secret',
  WEBHOOK_SECRET_VERCEL: 'vercel-signing-secret',
  WEBHOOK_SECRET_SENTRY: 'sentry-client-secret',
  WEBHOOK_SECRET_LINEAR: 'linear-signing-secret',
  WEBHOOK_SECRET_BETTERSTACK: 'betterstack-shared-token',
};

export type Delivery = SignedDelivery;

interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

export async function deliver(url: string, delivery: Delivery, extraHeaders: Record<string, string> = {}): Promise<Answer> {
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

/** A delivery taken: the answer the relay and the dashboard's route give one (to match with toEqual). */
export const received: { status: number; contentType: unknown; body: unknown } = { status: 200, contentType: expect.stringMatching(/^application\/json/), body: { received: true, eventCount: 1 } };

export const json = { 'content-type': 'application/json' };

/** Each provider's fixture, signed the way the provider signs it. */
export const signed = deliverySigner({
  github: SECRETS.WEBHOOK_SECRET_GITHUB,
  vercel: SECRETS.WEBHOOK_SECRET_VERCEL,
  sentry: SECRETS.WEBHOOK_SECRET_SENTRY,
  linear: SECRETS.WEBHOOK_SECRET_LINEAR,
  betterstack: SECRETS.WEBHOOK_SECRET_BETTERSTACK,
});

/** GitHub's merged pull request fixture as pull request `number` of `repo`, signed. */
export function mergedPr(number: number, repo = 'Codertocat/Hello-World', secret?: string): Delivery {
  const payload = JSON.parse(github.pullRequest('closed', true)) as { number: number; pull_request: Record<string, unknown>; repository: Record<string, unknown> };
  payload.number = number;
  Object.assign(payload.pull_request, { number, title: `Change ${number}`, html_url: `https://github.com/${repo}/pull/${number}` });
  Object.assign(payload.repository, { full_name: repo, name: repo.split('/')[1], html_url: `https://github.com/${repo}` });
  return signed.github(`${JSON.stringify(payload, null, 2)}\n`, 'pull_request', secret);
}
export const prTitle = (number: number) => `PR #${number} merged: Change ${number}`;

// ---------------------------------------------------------------------------------------------------
// The dashboard, as its user reads it

export type Inbox = { notifications: Notification[]; unreadCount: number };

export async function inbox(dashboard: RunningDashboard, headers: Record<string, string> = {}): Promise<Inbox> {
  const response = await fetch(`${dashboard.url}/api/notifications?limit=100`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as Inbox;
}

export const titles = (box: Inbox) => box.notifications.map((n) => n.title).sort();
export const hasTitles = (...wanted: string[]) => (box: Inbox) => wanted.every((title) => box.notifications.some((n) => n.title === title));

export async function relayStatus(dashboard: RunningDashboard): Promise<RelayStatus> {
  const response = await fetch(`${dashboard.url}/api/relay/status`);
  expect(response.status).toBe(200);
  return (await response.json()) as RelayStatus;
}

export async function pollNow(dashboard: RunningDashboard) {
  const response = await dashboard.fetch('/api/relay/poll', { method: 'POST', headers: json });
  return { status: response.status, body: (await response.json()) as unknown };
}

/** The fixtures' projects: the GitHub repo and the Vercel project in `web`, the Sentry project, Linear team and Better Stack monitor in `ops`. */
export async function createProjects(dashboard: RunningDashboard) {
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

// ---------------------------------------------------------------------------------------------------
// A file's relays and dashboards

export interface Relay {
  port: number;
  /** The dashboard's WEBHOOK_RELAY_URL for it. */
  url: string;
  output(): string;
  kill(): Promise<void>;
  send(delivery: Delivery): Promise<Answer>;
}

/**
 * A test file's relays and dashboards over Redis db `redisDb` (the file's own): call once at the file's top. Bundles
 * the relay as it is deployed: by its own build into one file (in a scratch directory of the file's), which Node runs
 * alone; it starts on 0.8 s of CPU where apps/relay/src/main.ts under tsx took 3.3 s. Registers the file's hooks:
 * after each test, what it started taken down (`cleanup`: SIGKILL for the relays) whatever happened, then the db
 * emptied; after the file, the bundle removed. Without Redis the file's tests are to be skipped (`redisProblem` says
 * why), except under CI=true, where it throws.
 */
export async function relayToDashboard(redisDb: number) {
  const relayDir = mkdtempSync(join(tmpdir(), 'dash-e2e-relay-'));
  const relayMain = await bundleRelay(join(relayDir, 'relay.mjs'));
  afterAll(() => rmSync(relayDir, { recursive: true, force: true }));

  const REDIS_URL = `redis://127.0.0.1:6379/${redisDb}`;
  const flushRedis = async () => expect(await redisOn(redisDb, ['FLUSHDB'])).toBe('+OK\r\n+OK\r\n+OK\r\n');
  const redisProblem = await redisOn(redisDb, ['PING']).then(
    (reply) => (reply.includes('+PONG') ? undefined : reply.trim()),
    (error: Error) => error.message,
  );
  if (redisProblem) {
    if (process.env.CI === 'true') throw new Error(`CI=true needs Redis at ${REDIS_URL}, which is unreachable: ${redisProblem}`);
    console.warn(`\n*** Redis at ${REDIS_URL} is unreachable (${redisProblem}): the relay-to-dashboard tests are SKIPPED ***\n`);
  }

  // Registered first, so it runs after the take-down (after-hooks run last registered first).
  afterEach(async () => {
    if (!redisProblem) await flushRedis();
  });
  const cleanup = takeDownAfterEach();

  /**
   * `node relay.mjs` (the bundle) on 127.0.0.1 over the file's Redis db, as it is deployed: on `port`, or on
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

  async function startRelayOn(listenOn: number): Promise<Relay> {
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
      url: `${origin}/api`,
      output: () => output,
      kill,
      send: (delivery: Delivery) => deliver(`${origin}/api/webhooks/${delivery.integration}`, delivery),
    };
  }

  /** The built dashboard polling `relay` (a relay, a URL, or nothing), with `env` over that. */
  async function dashboardFor(relay: Relay | string | undefined, env: Record<string, string> = {}) {
    const url = typeof relay === 'string' ? relay : relay?.url;
    const dashboard = await startDashboard({ env: { ...(url ? { WEBHOOK_RELAY_URL: url, RELAY_POLL_SECRET: POLL_SECRET } : {}), ...env } });
    cleanup.push(() => dashboard.stop());
    return dashboard;
  }

  return { redisProblem, flushRedis, cleanup, startRelay, dashboardFor };
}
