import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Notification } from '@dash/contracts';
import type { RelayEvent } from '@dash/webhooks';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { createTestApi, notificationStream, restClient } from '../testing.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;
let api: Api;

beforeEach(async () => {
  api = await createTestApi();
});
afterEach(async () => {
  await api.dispose();
});

const call = restClient(() => api.caller);

const sentry = (host?: string) => ({ error_tracker: { org: 'acme', project: 'web', ...(host === undefined ? {} : { host }) } });

describe('a self-hosted Sentry host on a link-local or cloud-metadata address', () => {
  it('is refused when a project is created, and no project is made', async () => {
    const res = await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry('http://169.254.169.254') });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: { code: 'BAD_REQUEST', message: 'Sentry host: The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream' },
    });
    expect((await call('GET', '/api/projects')).json).toEqual({ projects: [] });
  });

  it('is refused when a project is changed, and the project stays as it was', async () => {
    expect((await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry('https://sentry.example.lan') })).status).toBe(201);
    const res = await call('PATCH', '/api/projects/app', { name: 'Renamed', integrations: sentry('http://[fd00:ec2::254]') });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^Sentry host: The address fd00:ec2::254 /) } });
    expect((await call('GET', '/api/projects/app')).json).toMatchObject({ name: 'App', integrations: sentry('https://sentry.example.lan') });
  });

  it('leaves loopback, LAN and sentry.io alone', async () => {
    for (const [slug, host] of [
      ['loop', 'http://127.0.0.1:9000'],
      ['lan', 'http://192.168.1.20'],
      ['cloud', undefined],
    ] as const) {
      expect((await call('POST', '/api/projects', { slug, name: slug, integrations: sentry(host) })).status, slug).toBe(201);
    }
    expect((await call('PATCH', '/api/projects/lan', { integrations: sentry('http://[::1]:9000') })).status).toBe(200);
  });
});

describe('a Sentry host other than the one the stored token was saved for', () => {
  const TOKEN = 'sntrys_the-stored-sentry-token-0123456789';

  /** A Sentry look-alike that keeps every Authorization it is sent. */
  async function listener() {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const step of cleanups.splice(0)) await step();
  });

  it('is refused with 400 when a project is created or changed, and the token goes nowhere', async () => {
    const attacker = await listener();
    expect((await call('POST', '/api/credentials', { key: 'sentry', values: { authToken: TOKEN, orgSlug: 'acme' } })).status).toBe(200);
    const created = await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry(attacker.base) });
    expect(created.status).toBe(400);
    expect(created.json).toEqual({
      error: {
        code: 'BAD_REQUEST',
        message: `Sentry host: Enter the Sentry token again for the new host ${attacker.base}: the token under "sentry" is only sent to https://sentry.io, where it was saved. Save it with the Base URL ${attacker.base}/api/0 in Settings → Connections → Sentry (the same key, or another one named in credentialKey).`,
      },
    });
    expect((await call('GET', '/api/projects')).json).toEqual({ projects: [] });

    expect((await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry() })).status).toBe(201);
    const patched = await call('PATCH', '/api/projects/app', { integrations: sentry(attacker.base) });
    expect([patched.status, (patched.json as { error: { message: string } }).error.message]).toEqual([400, expect.stringMatching(/^Sentry host: Enter the Sentry token again/)]);
    expect((await call('GET', '/api/projects/app')).json).toMatchObject({ integrations: sentry() });
    // sentry.io itself is the token's host.
    expect((await call('PATCH', '/api/projects/app', { integrations: sentry('https://sentry.io') })).status).toBe(200);
    expect(attacker.seen).toEqual([]);
  });

  it('is used once the token is saved again for it, under the key the project names', async () => {
    const selfHosted = await listener();
    expect((await call('POST', '/api/credentials', { key: 'sentry', values: { authToken: TOKEN, orgSlug: 'acme' } })).status).toBe(200);
    const next = 'sntrys_the-self-hosted-token-0123456789';
    const saved = await call('POST', '/api/credentials', { key: 'sentry:self', values: { authToken: next, orgSlug: 'acme', baseUrl: `${selfHosted.base}/api/0` } });
    expect(saved.status).toBe(200);
    const integrations = { error_tracker: { org: 'acme', project: 'web', host: selfHosted.base, credentialKey: 'sentry:self' } };
    expect((await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations })).status).toBe(201);
    await call('GET', '/api/errortracker?project=app');
    expect(selfHosted.seen.length).toBeGreaterThan(0);
    expect(new Set(selfHosted.seen)).toEqual(new Set([`Bearer ${next}`]));
  });

  it('set before the token was saved, it is refused at every call: the token is not sent', async () => {
    const attacker = await listener();
    expect((await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry(attacker.base) })).status).toBe(201);
    expect((await call('POST', '/api/credentials', { key: 'sentry', values: { authToken: TOKEN, orgSlug: 'acme' } })).status).toBe(200);
    const res = await call('GET', '/api/errortracker?project=app');
    expect(res.status).toBe(502);
    expect(res.text).toContain('Enter the Sentry token again for the new host');
    expect(res.text).not.toContain(TOKEN);
    expect(attacker.seen).toEqual([]);
  });
});

describe('notifications that arrived before their project', () => {
  const NOW = Date.parse('2026-11-23T10:00:00.000Z');
  const pr = (repo: string, n: number): RelayEvent => ({ ...events.pr(n, NOW + n), sourceEventId: `github:${repo}:pr:${n}:merged`, refs: [`code_host:${repo}`] });
  const down = (monitor: string, incident: string): RelayEvent => ({ ...events.down(monitor, incident, NOW), refs: [`uptime_monitor:${monitor}`] });
  const inbox = async (query = '') => ((await call('GET', `/api/notifications${query}`)).json as { notifications: Notification[] }).notifications;
  const titlesOf = (notifications: Notification[]) => notifications.map((n) => [n.title, n.project]);

  it('go to a project created with their repository (any case): its list, the bell and the live stream show them', async () => {
    await api.ctx.notifications.inbox.ingest([pr('acme/shop', 1), pr('acme/blog', 2), pr('acme/shop', 3)]);
    expect(titlesOf(await inbox())).toEqual([
      ['PR #3 merged', null],
      ['PR #2 merged', null],
      ['PR #1 merged', null],
    ]);
    const stream = await notificationStream(api.ctx);
    onTestFinished(stream.close);
    // The stream subscribes once it is asked for an event.
    const first = stream.next();
    await vi.waitUntil(() => api.ctx.notifications.inbox.hub.listenerCount === 1);

    expect((await call('POST', '/api/projects', { slug: 'shop', name: 'Shop', integrations: { code_host: { repos: ['Acme/Shop'] } } })).status).toBe(201);
    expect(titlesOf(await inbox('?project=shop'))).toEqual([
      ['PR #3 merged', 'shop'],
      ['PR #1 merged', 'shop'],
    ]);
    expect(titlesOf(await inbox())).toEqual([
      ['PR #3 merged', 'shop'],
      ['PR #2 merged', null],
      ['PR #1 merged', 'shop'],
    ]);
    // Open tabs hear of each change, in the order the rows came.
    const heard = [await first, await stream.next()].map(({ event }) => (event.kind === 'notification' ? [event.notification.title, event.notification.project] : event.kind));
    expect(heard).toEqual([
      ['PR #1 merged', 'shop'],
      ['PR #3 merged', 'shop'],
    ]);
  });

  it("go to a project given their monitor later; a monitor an earlier project lists stays with it, and another project's events stay", async () => {
    await call('POST', '/api/projects', { slug: 'shop', name: 'Shop', integrations: { uptime_monitor: { monitorIds: ['101'] } } });
    await call('POST', '/api/projects', { slug: 'blog', name: 'Blog', integrations: {} });
    await api.ctx.notifications.inbox.ingest([down('101', 'a'), down('202', 'b')]);
    expect(titlesOf(await inbox())).toEqual([
      ['Monitor down: 202', null],
      ['Monitor down: 101', 'shop'],
    ]);

    expect((await call('PATCH', '/api/projects/blog', { integrations: { uptime_monitor: { monitorIds: ['101', '202'] } } })).status).toBe(200);
    expect(titlesOf(await inbox('?project=blog'))).toEqual([['Monitor down: 202', 'blog']]);
    expect(titlesOf(await inbox('?project=shop'))).toEqual([['Monitor down: 101', 'shop']]);
    // The outage's recovery joins its row, now the project's.
    await api.ctx.notifications.inbox.ingest([{ ...events.up('202', 'b', NOW + 60_000), refs: ['uptime_monitor:202'] }]);
    expect(await inbox('?project=blog')).toMatchObject([{ title: 'Monitor down: 202', resolved: true, eventCount: 2 }]);
  });

  it('keeps the project saved when assigning fails, logs it, and assigns at the next save', async () => {
    await api.ctx.notifications.inbox.ingest([pr('acme/shop', 1)]);
    const outbox = vi.spyOn(api.store.notifications, 'outbox').mockRejectedValueOnce(new Error('database is locked'));
    onTestFinished(() => outbox.mockRestore());

    expect((await call('POST', '/api/projects', { slug: 'shop', name: 'Shop', integrations: { code_host: { repos: ['acme/shop'] } } })).status).toBe(201);
    expect((await call('GET', '/api/projects/shop')).status).toBe(200);
    expect(api.log.lines.filter((line) => line.includes('database is locked'))).toEqual([
      'warn notifications: could not give earlier notifications to their project (the next project save tries again): database is locked',
    ]);
    expect(await inbox('?project=shop')).toEqual([]);

    expect((await call('PATCH', '/api/projects/shop', { name: 'The shop' })).status).toBe(200);
    expect(titlesOf(await inbox('?project=shop'))).toEqual([['PR #1 merged', 'shop']]);
  });
});
