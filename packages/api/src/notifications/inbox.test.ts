import { createHmac, randomUUID } from 'node:crypto';
import { testClock } from '@dash/connectors/testing';
import type { Notification } from '@dash/contracts';
import { demoSetup, startSandbox, type DemoUpstreams, type Sandbox } from '@dash/sandbox';
import { judgeDelivery, receiveSettingsFrom, type RelayEvent } from '@dash/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as betterstack from '../../../webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import * as sentry from '../../../webhooks/src/sentry/fixtures.ts';
import * as vercel from '../../../webhooks/src/vercel/fixtures.ts';
import { DataCache } from '../data/cache.ts';
import { createTestApi, notificationStream, restClient } from '../testing.ts';

// The inbox behind the relay poller and the local webhook route: one notification per real-world event,
// outages folded with their recovery, the cached data an event makes stale, live streams across
// processes, retention, and the demo's notifications.

const DAY = 86_400_000;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

// ---------------------------------------------------------------------------------------------------
// Signed deliveries and dashboards

const SECRETS = { code_host: 'github-signing-secret', deploy_host: 'vercel-signing-secret', error_tracker: 'sentry-client-secret', uptime_monitor: 'betterstack-token' };
const SECRET_ENV = {
  WEBHOOK_SECRET_GITHUB: SECRETS.code_host,
  WEBHOOK_SECRET_VERCEL: SECRETS.deploy_host,
  WEBHOOK_SECRET_SENTRY: SECRETS.error_tracker,
  WEBHOOK_SECRET_BETTERSTACK: SECRETS.uptime_monitor,
};

interface Delivery {
  integration: 'code_host' | 'deploy_host' | 'error_tracker' | 'uptime_monitor';
  body: string;
  headers: Record<string, string>;
}

const hmac = (algorithm: 'sha1' | 'sha256', secret: string, body: string) => createHmac(algorithm, secret).update(body).digest('hex');
const JSON_TYPE = { 'content-type': 'application/json' };

const signed = {
  github: (body: string, event = 'pull_request'): Delivery => ({
    integration: 'code_host',
    body,
    headers: { ...JSON_TYPE, 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${hmac('sha256', SECRETS.code_host, body)}` },
  }),
  vercel: (body: string): Delivery => ({ integration: 'deploy_host', body, headers: { ...JSON_TYPE, 'x-vercel-signature': hmac('sha1', SECRETS.deploy_host, body) } }),
  sentry: (body: string, sentAt: number): Delivery => ({
    integration: 'error_tracker',
    body,
    headers: {
      ...JSON_TYPE,
      'sentry-hook-resource': 'issue',
      'sentry-hook-timestamp': String(Math.floor(sentAt / 1000)),
      'sentry-hook-signature': hmac('sha256', SECRETS.error_tracker, body),
    },
  }),
  betterstack: (body: string): Delivery => ({ integration: 'uptime_monitor', body, headers: { ...JSON_TYPE, 'x-betterstack-token': SECRETS.uptime_monitor } }),
};

/** A merged pull request of `repo` (GitHub's fixture, moved to that repository). */
function mergedPr(repo = 'Codertocat/Hello-World', number = 2): string {
  const payload = JSON.parse(github.pullRequest('closed', true)) as { number: number; pull_request: Record<string, unknown>; repository: Record<string, unknown> };
  payload.number = number;
  Object.assign(payload.pull_request, { number, html_url: `https://github.com/${repo}/pull/${number}` });
  Object.assign(payload.repository, { full_name: repo, name: repo.split('/')[1], html_url: `https://github.com/${repo}` });
  return `${JSON.stringify(payload, null, 2)}\n`;
}

/** A Better Stack incident of monitor `monitorId` (its fixture, with that monitor). */
function incident(stage: 'started' | 'resolved', options: { id?: string; monitorId?: string } = {}): string {
  const payload = JSON.parse(betterstack.incident(stage, { id: options.id ?? '1' })) as { data: { relationships: { monitor: { data: { id: string } } } } };
  payload.data.relationships.monitor.data.id = options.monitorId ?? '4';
  return JSON.stringify(payload);
}

/** A Sentry issue of the Sentry project `slug`. */
function sentryIssue(action: 'created' | 'resolved', slug = 'front-end'): string {
  const payload = JSON.parse(sentry.issue(action)) as { data: { issue: { project: { slug: string } } } };
  payload.data.issue.project.slug = slug;
  return JSON.stringify(payload);
}

const upstreams = () => Object.fromEntries(Object.entries(sandbox.services).map(([name, service]) => [name, service.baseUrl])) as DemoUpstreams;

type DashboardOptions = Parameters<typeof createTestApi>[0] & { withDemo?: boolean };

/** A dashboard process over a SQLite file (a fresh one, or `dir` again) taking the signed deliveries above. */
async function dashboard(options: DashboardOptions = {}) {
  const { withDemo, ...rest } = options;
  const clock = options.clock ?? testClock();
  const api = await createTestApi({
    ...rest,
    clock,
    relay: { receive: receiveSettingsFrom(SECRET_ENV) },
    ...(withDemo ? { demo: { setup: () => Promise.resolve(demoSetup(upstreams())) } } : {}),
  });
  // A dashboard over a shared directory leaves it to the one that made it.
  cleanup.push(() => api.dispose({ keepFiles: options.dir !== undefined }));
  const call = restClient(() => api.caller);
  return {
    ...api,
    clock,
    call,
    inboxOf: api.ctx.notifications.inbox,
    /** Posts a delivery to the local webhook route's procedure; expects it taken. */
    async deliver(delivery: Delivery) {
      const answer = await api.caller.webhooks.receive({ integration: delivery.integration, body: Buffer.from(delivery.body).toString('base64'), headers: delivery.headers });
      expect(answer, delivery.body.slice(0, 80)).toMatchObject({ status: 200 });
      return answer;
    },
    /** What the relay would have stored for the same delivery: the same verify and parse. */
    relayEvents(delivery: Delivery): RelayEvent[] {
      const judgement = judgeDelivery(delivery.integration, Buffer.from(delivery.body), new Headers(delivery.headers), [SECRETS[delivery.integration]], clock.now());
      expect(judgement.events).toBeDefined();
      return judgement.events ?? [];
    },
    async inbox(query = ''): Promise<Notification[]> {
      const res = await call('GET', `/api/notifications?limit=100${query}`);
      expect(res.status).toBe(200);
      return res.json.notifications as Notification[];
    },
    async unread(): Promise<number> {
      return (await call('GET', '/api/notifications/unread')).json.unreadCount as number;
    },
  };
}
type Dashboard = Awaited<ReturnType<typeof dashboard>>;

/** The fixtures' GitHub repo and Vercel project in `web`; their Sentry project and Better Stack monitor in `ops`. */
async function fixtureProjects(dash: Dashboard) {
  await dash.caller.projects.create({
    slug: 'web',
    name: 'Web',
    integrations: { code_host: { repos: ['codertocat/hello-world'] }, deploy_host: { projectId: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' } },
  });
  await dash.caller.projects.create({ slug: 'ops', name: 'Ops', integrations: { error_tracker: { org: 'acme', project: 'front-end' }, uptime_monitor: { monitorIds: ['4'] } } });
}

/** A relay event written out, as the relay serves it. */
function relayEvent(fields: Partial<RelayEvent> & Pick<RelayEvent, 'sourceEventId'>): RelayEvent {
  return {
    id: randomUUID(),
    integration: 'code_host',
    type: 'pr.merged',
    title: `PR merged: ${fields.sourceEventId}`,
    severity: 'success',
    occurredAt: '2026-05-01T10:00:00.000Z',
    receivedAt: '2026-05-01T10:00:01.000Z',
    ...fields,
  };
}

/** Waits until `check` holds, trying every 10 ms for up to `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 4_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`Still not so after ${ms} ms: ${check.toString()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A live stream of `dash`'s notifications (see `notificationStream`); closed after the test. */
async function subscribe(dash: Dashboard, lastEventId?: number) {
  const stream = await notificationStream(dash.ctx, lastEventId === undefined ? {} : { lastEventId });
  cleanup.push(stream.close);
  return stream;
}

// ---------------------------------------------------------------------------------------------------

describe('one notification per real-world event', () => {
  const RELAY = 'https://relay.example/api';

  it('stores an event that arrives through the relay and then at the local route once, with the relay cursor', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    const delivery = signed.github(github.pullRequest('closed', true));
    const fromRelay = await dash.inboxOf.ingest(dash.relayEvents(delivery), { relayUrl: RELAY, since: 1_700 });
    expect([fromRelay.stored, fromRelay.duplicates]).toEqual([1, 0]);
    await dash.deliver(delivery);

    const inbox = await dash.inbox();
    expect(inbox).toEqual([expect.objectContaining({ integration: 'code_host', type: 'pr.merged', project: 'web', eventCount: 1 })]);
    expect(await dash.unread()).toBe(1);
    expect(await dash.store.notifications.cursor(RELAY)).toBe(1_700);
  });

  it('stores an event that arrives at the local route and then through the relay once, and still moves the cursor', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    const delivery = signed.betterstack(incident('started'));
    await dash.deliver(delivery);
    const before = await dash.inbox();
    const fromRelay = await dash.inboxOf.ingest(dash.relayEvents(delivery), { relayUrl: RELAY, since: 1_800 });
    expect(fromRelay).toEqual({ stored: 0, duplicates: 1, changed: [], sent: [], events: [expect.objectContaining({ effect: 'duplicate', notificationId: null, eventId: null })] });
    expect(await dash.inbox()).toEqual(before);
    expect(before).toEqual([expect.objectContaining({ integration: 'uptime_monitor', project: 'ops', eventCount: 1, resolved: false })]);
    expect(await dash.store.notifications.cursor(RELAY)).toBe(1_800);
  });

  it('stores one row for 20 concurrent ingests of one event', async () => {
    const dash = await dashboard();
    const event = relayEvent({ sourceEventId: 'github:acme/app:pr:9:merged' });
    const results = await Promise.all(Array.from({ length: 20 }, () => dash.inboxOf.ingest([{ ...event, id: randomUUID() }])));
    expect(results.reduce((sum, r) => sum + r.stored, 0)).toBe(1);
    expect(results.reduce((sum, r) => sum + r.duplicates, 0)).toBe(19);
    expect(await dash.inbox()).toEqual([expect.objectContaining({ title: event.title, eventCount: 1 })]);
    expect(await dash.unread()).toBe(1);
  });

  it('stores one row for one event ingested 10 times at once by each of two processes on one database', async () => {
    const a = await dashboard();
    const b = await dashboard({ dir: a.dir, credentialsKey: a.credentialsKey });
    const event = relayEvent({ sourceEventId: 'vercel:dpl_concurrent:error', integration: 'deploy_host', type: 'deploy.error', severity: 'error' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).inboxOf.ingest([{ ...event, id: randomUUID() }])),
    );
    expect(results.reduce((sum, r) => sum + r.stored, 0)).toBe(1);
    expect(await a.inbox()).toHaveLength(1);
    expect(await b.inbox()).toEqual(await a.inbox());
  });

  it('stores one row for 20 concurrent local deliveries of one event under different delivery ids', async () => {
    const dash = await dashboard();
    const body = github.pullRequest('closed', true);
    const answers = await Promise.all(Array.from({ length: 20 }, () => dash.deliver(signed.github(body))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await dash.inbox()).toEqual([expect.objectContaining({ type: 'pr.merged', eventCount: 1 })]);
  });
});

describe('an outage and its recovery', () => {
  it('are one notification: a Better Stack monitor down, then up, is one row, resolved', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.betterstack(incident('started')));
    expect(await dash.inbox()).toEqual([expect.objectContaining({ resolved: false, resolvedAt: null, eventCount: 1 })]);
    await dash.deliver(signed.betterstack(incident('resolved')));

    const inbox = await dash.inbox();
    expect(inbox).toEqual([
      expect.objectContaining({
        integration: 'uptime_monitor',
        type: 'monitor.down',
        title: 'Monitor down: Tesla.com homepage (Error 500)',
        project: 'ops',
        severity: 'error',
        resolved: true,
        occurredAt: '2020-10-21T10:51:28.151Z',
        lastAt: '2020-10-21T11:02:10.000Z',
        resolvedAt: '2020-10-21T11:02:10.000Z',
        eventCount: 2,
        readAt: null,
      }),
    ]);
    expect(await dash.unread()).toBe(1);
  });

  it('a second outage of the same monitor is a notification of its own', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.betterstack(incident('started', { id: '1' })));
    await dash.deliver(signed.betterstack(incident('resolved', { id: '1' })));
    await dash.deliver(signed.betterstack(incident('started', { id: '2' })));
    expect((await dash.inbox()).map((n) => [n.resolved, n.eventCount])).toEqual([
      [false, 1],
      [true, 2],
    ]);
    await dash.deliver(signed.betterstack(incident('resolved', { id: '2' })));
    expect((await dash.inbox()).map((n) => [n.resolved, n.eventCount])).toEqual([
      [true, 2],
      [true, 2],
    ]);
    expect(await dash.unread()).toBe(2);
  });

  it('a recovery of an outage already read keeps it read', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.betterstack(incident('started')));
    await dash.deliver(signed.github(github.pullRequest('closed', true)));
    const outage = (await dash.inbox('&integration=uptime_monitor'))[0]!;
    await dash.caller.notifications.markRead({ ids: [outage.id] });
    const { readAt } = (await dash.inbox('&integration=uptime_monitor'))[0]!;
    await dash.deliver(signed.betterstack(incident('resolved')));
    const inbox = await dash.inbox();
    expect(inbox).toHaveLength(2);
    expect(inbox.find((n) => n.id === outage.id)).toMatchObject({ resolved: true, eventCount: 2, readAt });
    expect(readAt).not.toBeNull();
    expect(await dash.unread()).toBe(1);
  });

  it('a Sentry issue created and then resolved is one row, resolved', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.sentry(sentryIssue('created'), dash.clock.now()));
    await dash.deliver(signed.sentry(sentryIssue('resolved'), dash.clock.now()));
    expect(await dash.inbox()).toEqual([
      expect.objectContaining({
        integration: 'error_tracker',
        type: 'error.issue_created',
        title: 'New issue FRONT-END-9: ReferenceError: blooopy is not defined',
        project: 'ops',
        severity: 'error',
        resolved: true,
        eventCount: 2,
      }),
    ]);
  });

  it('a failed Vercel deploy fixed by the next one is one row, resolved', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    await dash.deliver(signed.vercel(vercel.deployment('deployment.error', { id: 'dpl_broken' })));
    await dash.deliver(signed.vercel(vercel.deployment('deployment.succeeded', { id: 'dpl_fixed' })));
    expect(await dash.inbox()).toEqual([
      expect.objectContaining({ integration: 'deploy_host', type: 'deploy.error', project: 'web', resolved: true, eventCount: 2, severity: 'error' }),
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('cached data an event makes stale', () => {
  /** A dashboard running the demo against the sandbox, and the x-cache of a data route. */
  async function demoDashboard(options: DashboardOptions = {}) {
    sandbox.reset();
    const dash = await dashboard({ ...options, withDemo: true });
    await dash.caller.demo.start();
    const cacheOf = async (path: string) => {
      const res = await dash.call('GET', path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      return res.headers.get('x-cache');
    };
    return { ...dash, cacheOf };
  }
  const monitorListings = () => sandbox.requestsTo('betterstack', '/api/v2/monitors?').length;

  it("expires the project's uptime data on an outage: the next read asks Better Stack, other projects' stay cached", async () => {
    const dash = await demoDashboard();
    expect([await dash.cacheOf('/api/health?project=formfox'), await dash.cacheOf('/api/health?project=formfox')]).toEqual(['MISS', 'HIT']);
    expect([await dash.cacheOf('/api/health?project=tideline'), await dash.cacheOf('/api/health?project=tideline')]).toEqual(['MISS', 'HIT']);
    const listings = monitorListings();

    // Formfox's "App" monitor (2003) goes down.
    await dash.deliver(signed.betterstack(incident('started', { id: '77', monitorId: '2003' })));
    expect((await dash.inbox('&project=formfox&integration=uptime_monitor'))[0]).toMatchObject({ type: 'monitor.down', resolved: false });

    expect(await dash.cacheOf('/api/health?project=formfox')).toBe('MISS');
    expect(monitorListings()).toBe(listings + 1);
    expect(await dash.cacheOf('/api/health?project=formfox')).toBe('HIT');
    expect(await dash.cacheOf('/api/health?project=tideline')).toBe('HIT');
    expect(monitorListings()).toBe(listings + 1);
  });

  it("expires only the matching route: a Sentry issue refreshes the project's errors, not its uptime or another project's errors", async () => {
    const dash = await demoDashboard();
    for (const path of ['/api/errortracker?project=formfox', '/api/errortracker?project=pocket-ledger', '/api/health?project=formfox']) {
      expect([await dash.cacheOf(path), await dash.cacheOf(path)], path).toEqual(['MISS', 'HIT']);
    }
    const searches = () => sandbox.requestsTo('sentry', '/api/0/organizations/demo-founder/issues/').length;
    const before = searches();

    await dash.deliver(signed.sentry(sentryIssue('created', 'formfox-web'), dash.clock.now()));
    expect(await dash.cacheOf('/api/errortracker?project=formfox')).toBe('MISS');
    expect(searches()).toBe(before + 1);
    expect(await dash.cacheOf('/api/errortracker?project=pocket-ledger')).toBe('HIT');
    expect(await dash.cacheOf('/api/health?project=formfox')).toBe('HIT');
  });

  it("expires the project's shipped work from GitHub on a merged PR, leaving its deploys and other projects cached", async () => {
    const dash = await demoDashboard();
    for (const path of ['/api/shipping?project=formfox', '/api/shipping?project=tideline']) {
      expect([await dash.cacheOf(path), await dash.cacheOf(path)], path).toEqual(['MISS', 'HIT']);
    }
    const [gh, vc, ln] = [sandbox.requestsTo('github').length, sandbox.requestsTo('vercel').length, sandbox.requestsTo('linear').length];

    await dash.deliver(signed.github(mergedPr('formfox/web', 501)));
    expect((await dash.inbox('&integration=code_host'))[0]).toMatchObject({ project: 'formfox', url: 'https://github.com/formfox/web/pull/501' });
    expect(await dash.cacheOf('/api/shipping?project=formfox')).toBe('MISS');
    expect(sandbox.requestsTo('github').length).toBeGreaterThan(gh);
    expect([sandbox.requestsTo('vercel').length, sandbox.requestsTo('linear').length]).toEqual([vc, ln]);
    expect(await dash.cacheOf('/api/shipping?project=tideline')).toBe('HIT');
  });

  it('expires nothing for an event no project claims', async () => {
    const dash = await demoDashboard();
    await dash.cacheOf('/api/health?project=formfox');
    await dash.cacheOf('/api/shipping?project=formfox');
    await dash.deliver(signed.betterstack(incident('started', { id: '78', monitorId: '999999' })));
    await dash.deliver(signed.github(mergedPr('someone/else', 3)));
    expect((await dash.inbox()).slice(0, 2).map((n) => n.project)).toEqual([null, null]);
    expect(await dash.cacheOf('/api/health?project=formfox')).toBe('HIT');
    expect(await dash.cacheOf('/api/shipping?project=formfox')).toBe('HIT');
  });

  it('keeps the expired value as the STALE answer when the upstream then fails', async () => {
    const dash = await demoDashboard();
    const fresh = await dash.call('GET', '/api/health?project=formfox');
    await dash.deliver(signed.betterstack(incident('started', { id: '79', monitorId: '2004' })));
    sandbox.inject('betterstack', { status: 503, body: { errors: 'Service Unavailable' } });
    const stale = await dash.call('GET', '/api/health?project=formfox');
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(stale.json).toEqual(fresh.json);
  });
});

describe('DataCache.expire and forget', () => {
  const value = z.object({ n: z.number() });

  /** A cache over a fresh store, and a read of `route` for a project that counts its loads. */
  async function cacheOver() {
    const clock = testClock();
    const api = await createTestApi({ clock });
    cleanup.push(() => api.dispose());
    let loads = 0;
    let failing = false;
    const read = (cache: DataCache, route: string, project: string, extra: Record<string, unknown> = {}) =>
      cache.through({
        route,
        params: { ...extra, project, config: { monitorIds: ['1'] } },
        ttlMs: 60_000,
        schema: value,
        load: () => {
          if (failing) return Promise.reject(new Error('upstream down'));
          loads++;
          return Promise.resolve({ n: loads });
        },
      });
    return { api, clock, cache: new DataCache(api.store.cache, clock), read, loads: () => loads, fail: () => (failing = true) };
  }

  it('expire: the next read of that route for that project loads again, here and in another process; "ab" and other routes stay', async () => {
    const { api, clock, cache, read, loads } = await cacheOver();
    for (const [route, project] of [
      ['health', 'a'],
      ['health', 'ab'],
      ['health', 'b'],
      ['healthy', 'a'],
      ['shipping:code_host', 'a'],
    ] as const) {
      expect((await read(cache, route, project)).status).toBe('MISS');
      expect((await read(cache, route, project)).status).toBe('HIT');
    }
    // A parameter after `project` in the key, too.
    expect((await read(cache, 'health', 'a', { zone: 'eu' })).status).toBe('MISS');
    expect(loads()).toBe(6);

    await cache.expire('health', 'a');
    const other = new DataCache(api.store.cache, clock);
    for (const reader of [cache, other]) {
      expect((await read(reader, 'health', 'ab')).status).toBe('HIT');
      expect((await read(reader, 'health', 'b')).status).toBe('HIT');
      expect((await read(reader, 'healthy', 'a')).status).toBe('HIT');
      expect((await read(reader, 'shipping:code_host', 'a')).status).toBe('HIT');
    }
    expect(loads()).toBe(6);
    expect((await read(other, 'health', 'a')).status).toBe('MISS');
    expect((await read(other, 'health', 'a', { zone: 'eu' })).status).toBe('MISS');
    expect(loads()).toBe(8);
    // This process's copy went too (the other process's load refreshed the row it now reads).
    expect((await read(cache, 'health', 'a')).status).not.toBe('HIT');
  });

  it("forget: only this process's copy goes; the stored row stays fresh for another process", async () => {
    const { api, clock, cache, read, loads } = await cacheOver();
    await read(cache, 'health', 'a');
    await read(cache, 'health', 'ab');
    cache.forget('health', 'a');
    const other = new DataCache(api.store.cache, clock);
    expect((await read(other, 'health', 'a')).status).toBe('HIT');
    expect((await read(cache, 'health', 'ab')).status).toBe('HIT');
    expect(loads()).toBe(2);
    expect((await read(cache, 'health', 'a')).status).toBe('MISS');
    expect(loads()).toBe(3);
  });

  it('an expired value is still served as STALE when the upstream fails', async () => {
    const { cache, read, fail } = await cacheOver();
    const first = await read(cache, 'health', 'a');
    await cache.expire('health', 'a');
    fail();
    const stale = await read(cache, 'health', 'a');
    expect(stale).toMatchObject({ status: 'STALE', value: first.value, staleReason: 'upstream down' });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('live streams across dashboard processes on one database', () => {
  it("brings a row another process stored to this process's stream, and forgets this process's copy of the data it made stale", async () => {
    sandbox.reset();
    const clock = testClock();
    const a = await dashboard({ clock, withDemo: true });
    await a.caller.demo.start();
    const b = await dashboard({ clock, dir: a.dir, credentialsKey: a.credentialsKey });
    const cacheOf = async (path: string) => (await a.call('GET', path)).headers.get('x-cache');
    expect([await cacheOf('/api/health?project=formfox'), await cacheOf('/api/health?project=formfox')]).toEqual(['MISS', 'HIT']);
    expect([await cacheOf('/api/health?project=tideline'), await cacheOf('/api/health?project=tideline')]).toEqual(['MISS', 'HIT']);
    const unreadBefore = await a.unread();

    const stream = await subscribe(a);
    const first = stream.next();
    await until(() => a.inboxOf.hub.listenerCount === 1);
    await b.deliver(signed.betterstack(incident('started', { id: '80', monitorId: '2003' })));
    const { id, event } = await first;
    expect(event).toEqual({
      kind: 'notification',
      notification: expect.objectContaining({ integration: 'uptime_monitor', type: 'monitor.down', project: 'formfox', readAt: null }),
      unreadCount: unreadBefore + 1,
    });
    expect(id).toBe(String((event as { notification: Notification }).notification.seq));

    // a's copy of Formfox's uptime went; Tideline's stayed.
    expect(await cacheOf('/api/health?project=formfox')).toBe('MISS');
    expect(await cacheOf('/api/health?project=tideline')).toBe('HIT');

    // Read in b: a's stream hears that too.
    const notification = (event as { notification: Notification }).notification;
    const second = stream.next();
    await b.caller.notifications.markRead({ ids: [notification.id] });
    expect((await second).event).toEqual({
      kind: 'notification',
      notification: expect.objectContaining({ id: notification.id, readAt: expect.any(String) }),
      unreadCount: unreadBefore,
    });
  });

  it("serves a fresh read in this process after another process stored an event, even with no live stream open here", async () => {
    sandbox.reset();
    const clock = testClock();
    const a = await dashboard({ clock, withDemo: true });
    await a.caller.demo.start();
    const b = await dashboard({ clock, dir: a.dir, credentialsKey: a.credentialsKey });
    const cacheOf = async (path: string) => (await a.call('GET', path)).headers.get('x-cache');
    expect([await cacheOf('/api/health?project=formfox'), await cacheOf('/api/health?project=formfox')]).toEqual(['MISS', 'HIT']);

    await b.deliver(signed.betterstack(incident('started', { id: '81', monitorId: '2003' })));
    // The store's row is expired by b; a's next read (no browser open on a) should ask Better Stack again,
    // within the second the change feed takes.
    await until(async () => (await cacheOf('/api/health?project=formfox')) === 'MISS', 2_500);
  });

  it('does not send a new subscriber of a freshly started process the rows that were already there', async () => {
    const a = await dashboard();
    await a.inboxOf.ingest([1, 2, 3].map((n) => relayEvent({ sourceEventId: `github:acme/app:pr:${n}:merged` })));
    // A second process starts on the same database; a browser connects to it.
    const b = await dashboard({ dir: a.dir, credentialsKey: a.credentialsKey });
    const stream = await subscribe(b);
    const first = stream.next();
    await until(() => b.inboxOf.hub.listenerCount === 1);
    await a.inboxOf.ingest([relayEvent({ sourceEventId: 'github:acme/app:pr:4:merged' })]);
    const { event } = await first;
    expect(event).toMatchObject({ kind: 'notification', notification: { title: 'PR merged: github:acme/app:pr:4:merged' }, unreadCount: 4 });
  });
});

// ---------------------------------------------------------------------------------------------------

describe('retention', () => {
  it('removes read notifications after 90 days and unread ones after 180, and keeps the rest', async () => {
    const NOW = Date.parse('2026-06-01T00:00:00.000Z');
    const clock = testClock(NOW - 100 * DAY);
    const dash = await dashboard({ clock });
    const ago = (days: number) => new Date(NOW - days * DAY).toISOString();
    const rows = {
      unreadOld: relayEvent({ sourceEventId: 'unread-181-days', receivedAt: ago(181), occurredAt: ago(181) }),
      unreadYoung: relayEvent({ sourceEventId: 'unread-179-days', receivedAt: ago(179), occurredAt: ago(179) }),
      readLongAgo: relayEvent({ sourceEventId: 'read-100-days-ago', receivedAt: ago(200), occurredAt: ago(200) }),
      readRecently: relayEvent({ sourceEventId: 'read-89-days-ago', receivedAt: ago(200), occurredAt: ago(200) }),
      fresh: relayEvent({ sourceEventId: 'fresh', receivedAt: ago(1), occurredAt: ago(1) }),
    };
    await dash.inboxOf.ingest(Object.values(rows));
    const idOf = async (event: RelayEvent) => (await dash.inbox()).find((n) => n.title === event.title)!.id;

    await dash.caller.notifications.markRead({ ids: [await idOf(rows.readLongAgo)] }); // 100 days ago
    clock.advance(11 * DAY);
    await dash.caller.notifications.markRead({ ids: [await idOf(rows.readRecently)] }); // 89 days ago
    clock.advance(89 * DAY);
    expect(clock.now()).toBe(NOW);

    expect(await dash.inboxOf.prune()).toBe(2);
    expect((await dash.inbox()).map((n) => n.title).sort()).toEqual([rows.fresh.title, rows.readRecently.title, rows.unreadYoung.title].sort());
    expect(await dash.unread()).toBe(2);
    expect(dash.log.lines).toContain('info notifications: 2 old row(s) removed');
    expect(await dash.inboxOf.prune()).toBe(0);
  });
});

describe("the demo's notifications", () => {
  it('are listed after the demo starts, each in a demo project, and go when it is removed; your own stay', async () => {
    sandbox.reset();
    const dash = await dashboard({ withDemo: true });
    // One of the user's own, before the demo: no project claims it.
    await dash.deliver(signed.github(mergedPr('someone/else', 5)));
    const { projects } = await dash.caller.demo.start();

    const inbox = await dash.inbox();
    const demo = inbox.filter((n) => n.project !== null);
    expect(demo.length).toBeGreaterThanOrEqual(5);
    expect(demo.every((n) => projects.includes(n.project!))).toBe(true);
    expect(new Set(demo.map((n) => n.project))).toEqual(new Set(projects));
    expect(new Set(demo.map((n) => n.integration))).toEqual(new Set(['code_host', 'deploy_host', 'error_tracker', 'issue_tracker', 'uptime_monitor']));
    // A recovered outage and one still going on.
    expect(demo.filter((n) => n.integration === 'uptime_monitor').map((n) => n.resolved).sort()).toEqual([false, true]);
    expect(await dash.unread()).toBe(demo.length + 1);
    // Newest first.
    expect(inbox.map((n) => n.seq)).toEqual([...inbox.map((n) => n.seq)].sort((x, y) => y - x));

    await dash.caller.demo.remove();
    expect(await dash.inbox()).toEqual([expect.objectContaining({ project: null, url: 'https://github.com/someone/else/pull/5' })]);
    expect(await dash.unread()).toBe(1);

    // Started again, its notifications are back.
    await dash.caller.demo.start();
    expect((await dash.inbox()).filter((n) => n.project !== null)).toHaveLength(demo.length);
  });
});
