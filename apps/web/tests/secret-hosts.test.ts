// A stored secret goes only to the host it was saved with, over real HTTP against the production build: an API
// client with a write token points the relay test, the relay URL or a project's Sentry host at a listener it
// controls; the listener never sees the stored secret and the answer is a 400 that says to enter it again. The
// owner's own flows (the same host, or a new host with the secret entered again) still work.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, launchChromium } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

const PASSWORD = 'correct horse battery staple';
const POLL_SECRET = 'the-owners-relay-poll-secret-0123456789abcdef';
const ENV_SECRET = 'the-operators-relay-poll-secret-0123456789abcd';
const SENTRY_TOKEN = 'sntrys_the-owners-sentry-token-0123456789abcdef';

interface Listener {
  base: string;
  /** Every Authorization header it was sent (undefined for none). */
  seen: (string | undefined)[];
}

const listeners: Server[] = [];

/** A server on loopback that answers as a relay (health, an empty page) and as Sentry (a project, no issues), and keeps every Authorization. */
async function listener(): Promise<Listener> {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    const path = req.url ?? '';
    if (path.startsWith('/api/health')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (path.includes('/events')) return void res.writeHead(200, { 'content-type': 'application/json', 'x-relay-timestamp': '1700000000000' }).end('[]');
    if (path.startsWith('/api/0/projects/')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"42","slug":"web"}');
    res.writeHead(200, { 'content-type': 'application/json', 'x-hits': '0' }).end('[]');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  listeners.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterAll(async () => {
  await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
});

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

/** Sets the first password from the settings page, signs in, and makes a write token: the owner's cookie and the script's token. */
async function ownerAndToken(dashboard: RunningDashboard): Promise<{ cookie: string; token: string }> {
  expect((await dashboard.fetch('/settings/security?/password', form({ newPassword: PASSWORD, confirm: PASSWORD }))).status).toBe(200);
  const login = await dashboard.fetch('/login', form({ password: PASSWORD }));
  expect(login.status).toBe(303);
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('dash_session='))!.split(';')[0]!;
  const made = await dashboard.fetch('/api/tokens', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'script', scope: 'write', password: PASSWORD }) });
  expect(made.status, await made.clone().text()).toBe(201);
  return { cookie, token: ((await made.json()) as { token: string }).token };
}

interface Answer {
  status: number;
  text: string;
}

/** A JSON request with a bearer token, as curl sends it (no Origin, no cookie). */
async function asScript(dashboard: RunningDashboard, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(dashboard.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

/** A tRPC mutation as curl would send it (`POST /api/trpc/<path>` with the input as the body). */
const mutation = (dashboard: RunningDashboard, token: string, path: string, input: unknown) => asScript(dashboard, token, 'POST', `/api/trpc/${path}`, input);

/** As the owner's browser: the session cookie and the dashboard's Origin. */
async function asOwner(dashboard: RunningDashboard, cookie: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await dashboard.fetch(path, { method, headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, text: await res.text() };
}

const messageOf = (answer: Answer) => {
  const body = JSON.parse(answer.text) as { error: { message: string; json?: { message: string } } };
  return body.error.json?.message ?? body.error.message;
};

describe('the relay poll secret saved in settings', () => {
  let dashboard: RunningDashboard;
  let relay: Listener;
  let attacker: Listener;
  let owner: { cookie: string; token: string };

  beforeAll(async () => {
    [relay, attacker] = await Promise.all([listener(), listener()]);
    dashboard = await startDashboard();
    owner = await ownerAndToken(dashboard);
    const saved = await asOwner(dashboard, owner.cookie, 'POST', '/api/trpc/relay.saveSecret', { secret: POLL_SECRET, url: `${relay.base}/api` });
    expect(saved.status, saved.text).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await dashboard?.stop();
  });

  it('a write token pointing the relay test at its own listener gets 400, and the listener sees nothing', async () => {
    const res = await mutation(dashboard, owner.token, 'relay.test', { url: `${attacker.base}/api` });
    expect(res.status).toBe(400);
    expect(messageOf(res)).toBe(`secret: Enter the poll secret to test ${attacker.base}: the saved poll secret is only sent to ${relay.base}.`);
    expect(res.text).not.toContain(POLL_SECRET);
    expect(attacker.seen).toEqual([]);
  });

  it('a write token moving the relay URL to its own listener gets 400 naming relayUrl; nothing changes and polls still go to the relay', async () => {
    const res = await asScript(dashboard, owner.token, 'POST', '/api/settings', { relayUrl: `${attacker.base}/api` });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      error: {
        code: 'BAD_REQUEST',
        message: `relayUrl: Enter the poll secret again for the new host ${attacker.base}: the saved poll secret is only sent to ${relay.base}. Save the URL and its secret together in Settings → Relay.`,
      },
    });
    expect(JSON.parse((await asScript(dashboard, owner.token, 'GET', '/api/settings')).text)).toMatchObject({ relayUrl: `${relay.base}/api` });
    expect((await asScript(dashboard, owner.token, 'POST', '/api/relay/poll')).status).toBe(200);
    expect(relay.seen).toContain(`Bearer ${POLL_SECRET}`);
    expect(attacker.seen).toEqual([]);
  });

  it('the legitimate flows work: a test of the saved relay, a test of another URL with its own secret, a move with the secret entered again', async () => {
    const same = await mutation(dashboard, owner.token, 'relay.test', {});
    expect([same.status, JSON.parse(same.text)]).toEqual([200, { result: { data: { ok: true, eventCount: 0 } } }]);

    const other = await listener();
    const typed = 'a-secret-typed-for-the-other-relay-0123456789';
    const tested = await mutation(dashboard, owner.token, 'relay.test', { url: `${other.base}/api`, secret: typed });
    expect(tested.status, tested.text).toBe(200);
    expect(new Set(other.seen.filter(Boolean))).toEqual(new Set([`Bearer ${typed}`]));

    const moved = await asOwner(dashboard, owner.cookie, 'POST', '/api/trpc/relay.saveSecret', { secret: typed, url: `${other.base}/api` });
    expect(moved.status, moved.text).toBe(200);
    expect(JSON.parse((await asScript(dashboard, owner.token, 'GET', '/api/relay/status')).text)).toMatchObject({ url: `${other.base}/api`, secretSource: 'settings', secretNote: null });
    expect((await asScript(dashboard, owner.token, 'POST', '/api/relay/poll')).status).toBe(200);
    expect(other.seen).not.toContain(`Bearer ${POLL_SECRET}`);
    expect(attacker.seen).toEqual([]);
  });
});

describe('RELAY_POLL_SECRET from the environment', () => {
  let dashboard: RunningDashboard;
  let relay: Listener;
  let attacker: Listener;
  let owner: { cookie: string; token: string };

  beforeAll(async () => {
    [relay, attacker] = await Promise.all([listener(), listener()]);
    dashboard = await startDashboard({ env: { WEBHOOK_RELAY_URL: `${relay.base}/api`, RELAY_POLL_SECRET: ENV_SECRET } });
    owner = await ownerAndToken(dashboard);
  }, 60_000);
  afterAll(async () => {
    await dashboard?.stop();
  });

  it('is sent to WEBHOOK_RELAY_URL only: a write token gets 400 for another relay URL or test, and the listener sees nothing', async () => {
    const moved = await asScript(dashboard, owner.token, 'POST', '/api/settings', { relayUrl: `${attacker.base}/api` });
    expect([moved.status, messageOf(moved)]).toEqual([400, expect.stringContaining(`RELAY_POLL_SECRET is only sent to ${relay.base}`)]);
    const tested = await mutation(dashboard, owner.token, 'relay.test', { url: `${attacker.base}/api` });
    expect(tested.status).toBe(400);
    expect(tested.text).not.toContain(ENV_SECRET);

    const same = await mutation(dashboard, owner.token, 'relay.test', {});
    expect(same.status, same.text).toBe(200);
    expect(relay.seen).toContain(`Bearer ${ENV_SECRET}`);
    expect(attacker.seen).toEqual([]);
  });
});

describe("a project's Sentry host", () => {
  let dashboard: RunningDashboard;
  let sentry: Listener;
  let attacker: Listener;
  let owner: { cookie: string; token: string };

  beforeAll(async () => {
    [sentry, attacker] = await Promise.all([listener(), listener()]);
    dashboard = await startDashboard();
    owner = await ownerAndToken(dashboard);
    const saved = await asOwner(dashboard, owner.cookie, 'POST', '/api/credentials', { key: 'sentry', values: { authToken: SENTRY_TOKEN, orgSlug: 'acme', baseUrl: `${sentry.base}/api/0` } });
    expect(saved.status, saved.text).toBe(200);
    const project = await asOwner(dashboard, owner.cookie, 'POST', '/api/projects', {
      slug: 'web',
      name: 'Web',
      integrations: { error_tracker: { org: 'acme', project: 'web', host: sentry.base } },
    });
    expect(project.status, project.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await dashboard?.stop();
  });

  it('set by a write token to its own listener is refused with 400; the project and the token stay where they were', async () => {
    const patched = await asScript(dashboard, owner.token, 'PATCH', '/api/projects/web', { integrations: { error_tracker: { org: 'acme', project: 'web', host: attacker.base } } });
    expect(patched.status).toBe(400);
    expect(JSON.parse(patched.text)).toEqual({
      error: {
        code: 'BAD_REQUEST',
        message: `Sentry host: Enter the Sentry token again for the new host ${attacker.base}: the token under "sentry" is only sent to ${sentry.base}, where it was saved. Save it with the Base URL ${attacker.base}/api/0 in Settings → Connections → Sentry (the same key, or another one named in credentialKey).`,
      },
    });
    const created = await asScript(dashboard, owner.token, 'POST', '/api/projects', { slug: 'evil', name: 'Evil', integrations: { error_tracker: { org: 'acme', project: 'web', host: attacker.base } } });
    expect(created.status).toBe(400);
    expect(JSON.parse((await asScript(dashboard, owner.token, 'GET', '/api/projects/web')).text)).toMatchObject({ integrations: { error_tracker: { host: sentry.base } } });

    expect((await asScript(dashboard, owner.token, 'GET', '/api/errortracker?project=web')).status).toBe(200);
    expect(sentry.seen).toContain(`Bearer ${SENTRY_TOKEN}`);
    expect(attacker.seen).toEqual([]);
  });

  it('moves to another host once a token is saved for it (the secret entered again), and only that token goes there', async () => {
    const other = await listener();
    const token = 'sntrys_a-token-for-the-other-sentry-0123456789';
    const saved = await asScript(dashboard, owner.token, 'POST', '/api/credentials', { key: 'sentry:other', values: { authToken: token, orgSlug: 'acme', baseUrl: `${other.base}/api/0` } });
    expect(saved.status, saved.text).toBe(200);
    const patched = await asScript(dashboard, owner.token, 'PATCH', '/api/projects/web', { integrations: { error_tracker: { org: 'acme', project: 'web', host: other.base, credentialKey: 'sentry:other' } } });
    expect(patched.status, patched.text).toBe(200);
    expect((await asScript(dashboard, owner.token, 'GET', '/api/errortracker?project=web')).status).toBe(200);
    expect(new Set(other.seen)).toEqual(new Set([`Bearer ${token}`]));
    expect(attacker.seen).toEqual([]);
  });
});

describe('Settings → Relay', () => {
  let dashboard: RunningDashboard;
  let relay: Listener;
  let other: Listener;

  beforeAll(async () => {
    [relay, other] = await Promise.all([listener(), listener()]);
    dashboard = await startDashboard();
    const saved = await dashboard.fetch('/api/trpc/relay.saveSecret', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ secret: POLL_SECRET, url: `${relay.base}/api` }) });
    expect(saved.status, await saved.text()).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await dashboard?.stop();
  });

  it('asks for the poll secret again when the URL moves to another host, and saves the two together', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
      await gotoHydrated(page, `${dashboard.url}/settings#relay`);
      const section = page.locator('#relay');
      const url = section.getByLabel('Relay URL');
      await url.fill(`${relay.base}/api/t/acme`);
      // The same host: the saved secret still applies.
      expect(await section.locator('[data-needs-secret]').count()).toBe(0);

      await url.fill(`${other.base}/api`);
      await section.locator('[data-needs-secret]').waitFor();
      await section.getByRole('button', { name: 'Save', exact: true }).first().click();
      await section.getByText('Enter the poll secret again for the new host: a stored secret is only sent to the host it was saved for.').first().waitFor();
      expect(await section.getByLabel('Poll secret').getAttribute('aria-invalid')).toBe('true');
      expect(other.seen).toEqual([]);
      const kept = (await (await dashboard.fetch('/api/settings')).json()) as { relayUrl: string };
      expect(kept.relayUrl).toBe(`${relay.base}/api`);

      const typed = 'the-other-relays-poll-secret-0123456789abcdef';
      await section.getByLabel('Poll secret').fill(typed);
      await section.getByRole('button', { name: 'Save', exact: true }).first().click();
      await section.getByText('Saved. Polling starts (or stops) at once.').waitFor();
      const moved = (await (await dashboard.fetch('/api/relay/status')).json()) as { url: string; secretSource: string };
      expect(moved).toMatchObject({ url: `${other.base}/api`, secretSource: 'settings' });
      expect((await dashboard.fetch('/api/relay/poll', { method: 'POST' })).status).toBe(200);
      expect(other.seen).toContain(`Bearer ${typed}`);
      expect(other.seen).not.toContain(`Bearer ${POLL_SECRET}`);
    } finally {
      await browser.close();
    }
  });
});
