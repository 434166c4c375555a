import { testClock } from '@dash/connectors/testing';
import type { Notification } from '@dash/contracts';
import { receiveSettingsFrom } from '@dash/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import * as betterstack from '../../../webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import * as sentry from '../../../webhooks/src/sentry/fixtures.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { SECRET_ENV, SECRETS, signer, type Delivery, type Signer } from './signed-webhooks.ts';

// The dashboard's own webhook route (POST /api/webhooks/:integration → webhooks.receive): provider-signed
// fixtures from packages/webhooks, the relay's statuses, and what ends up in GET /api/notifications.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const PROVIDERS = ['github', 'vercel', 'sentry', 'linear', 'betterstack'] as const;

/** A dashboard over a fresh SQLite file whose environment is `env` (secrets and kill switches), with the fixtures' projects. */
async function dashboard(env: Record<string, string> = SECRET_ENV) {
  const clock = testClock();
  const api = await createTestApi({ clock, relay: { receive: receiveSettingsFrom(env) } });
  cleanup.push(() => api.dispose());
  const call = restClient(() => api.caller);
  // The fixtures' GitHub repo (in lower case: GitHub names are case-insensitive) and Vercel project in
  // `web`; their Sentry project, Linear team and Better Stack monitor in `ops`.
  await api.caller.projects.create({
    slug: 'web',
    name: 'Web',
    integrations: { code_host: { repos: ['codertocat/hello-world'] }, deploy_host: { projectId: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' } },
  });
  await api.caller.projects.create({
    slug: 'ops',
    name: 'Ops',
    integrations: { error_tracker: { org: 'acme', project: 'front-end' }, issue_tracker: { teamIds: ['team-eng'] }, uptime_monitor: { monitorIds: ['4'] } },
  });
  const sign = signer(() => clock.now());
  return {
    ...api,
    clock,
    call,
    sign,
    /** Posts a delivery through the webhooks.receive procedure, as POST /api/webhooks/:integration does. */
    receive: (delivery: Delivery, integration = delivery.integration, caller = api.caller) =>
      caller.webhooks.receive({ integration, body: Buffer.from(delivery.body).toString('base64'), headers: delivery.headers }),
    /** The LocalWebhooks behind it, with the sender's address. */
    receiveFrom: (ip: string, delivery: Delivery) =>
      api.ctx.notifications.webhooks.receive({ integration: delivery.integration, body: Buffer.from(delivery.body), headers: new Headers(delivery.headers), ip }),
    /** Every notification, newest first, through GET /api/notifications. */
    async inbox(): Promise<Notification[]> {
      const res = await call('GET', '/api/notifications?limit=100');
      expect(res.status).toBe(200);
      return res.json.notifications as Notification[];
    },
    async unread(): Promise<number> {
      return (await call('GET', '/api/notifications/unread')).json.unreadCount as number;
    },
  };
}
type Dashboard = Awaited<ReturnType<typeof dashboard>>;

const received = { status: 200, body: { received: true, eventCount: 1 } };
const refused = (status: number, code: string) => ({ status, body: { error: { code, message: expect.any(String) } } });

/** Asserts the inbox is empty, by the list and by the badge. */
async function expectEmptyInbox(dash: Dashboard) {
  expect(await dash.inbox()).toEqual([]);
  expect(await dash.unread()).toBe(0);
}

describe('a correctly signed delivery', () => {
  it('of each of the five integrations is stored as a notification of its project, with its title, url and severity', async () => {
    const dash = await dashboard();
    const receivedAt = new Date(dash.clock.now()).toISOString();
    const linearAt = new Date(dash.clock.now()).toISOString();
    for (const provider of PROVIDERS) expect(await dash.receive(dash.sign[provider]()), provider).toEqual(received);

    const common = {
      id: expect.any(String),
      seq: expect.any(Number),
      createdSeq: expect.any(Number),
      receivedAt,
      readAt: null,
      eventCount: 1,
      resolvedAt: null,
      subjectKey: expect.toBeOneOf([null, expect.any(String)]),
      snoozedUntil: null,
      mutedUntil: null,
      decision: expect.objectContaining({ trace: expect.any(Array) }),
    };
    const expected: Partial<Notification>[] = [
      {
        integration: 'code_host',
        type: 'pr.merged',
        title: 'PR #2 merged: Update the README with new information.',
        url: 'https://github.com/Codertocat/Hello-World/pull/2',
        project: 'web',
        severity: 'success',
        resolved: null,
        occurredAt: '2019-05-15T15:21:18.000Z',
        lastAt: '2019-05-15T15:21:18.000Z',
      },
      {
        integration: 'deploy_host',
        type: 'deploy.error',
        title: 'Deploy failed: my-app (production)',
        url: 'https://my-app-abc123.vercel.app',
        project: 'web',
        severity: 'error',
        resolved: false,
        occurredAt: '2024-05-20T16:00:00.000Z',
        lastAt: '2024-05-20T16:00:00.000Z',
      },
      {
        integration: 'error_tracker',
        type: 'error.issue_created',
        title: 'New issue FRONT-END-9: ReferenceError: blooopy is not defined',
        url: 'https://sentry.io/organizations/test-org/issues/1170820242/',
        project: 'ops',
        severity: 'error',
        resolved: false,
        occurredAt: '2019-08-19T20:58:37.391Z',
        lastAt: '2019-08-19T20:58:37.391Z',
      },
      {
        integration: 'issue_tracker',
        type: 'issue.updated',
        title: 'ENG-123 moved to Done: Billing page',
        url: 'https://linear.app/acme/issue/ENG-123/billing-page',
        project: 'ops',
        severity: 'success',
        resolved: null,
        occurredAt: linearAt,
        lastAt: linearAt,
      },
      {
        integration: 'uptime_monitor',
        type: 'monitor.down',
        title: 'Monitor down: Tesla.com homepage (Error 500)',
        url: 'https://tesla.com',
        project: 'ops',
        severity: 'error',
        resolved: false,
        occurredAt: '2020-10-21T10:51:28.151Z',
        lastAt: '2020-10-21T10:51:28.151Z',
      },
    ];
    const inbox = await dash.inbox();
    // Newest first: the reverse of the order they came in.
    expect([...inbox].reverse()).toEqual(expected.map((fields) => ({ ...common, ...fields })));
    expect(await dash.unread()).toBe(5);
  });

  it("is taken under the provider's name in the path too, as the same integration", async () => {
    const dash = await dashboard();
    const paths = { github: 'github', vercel: 'vercel', sentry: 'sentry', linear: 'linear', betterstack: 'betterstack' } as const;
    for (const provider of PROVIDERS) expect(await dash.receive(dash.sign[provider](), paths[provider]), provider).toEqual(received);
    const inbox = await dash.inbox();
    expect(inbox.map((n) => [n.integration, n.project]).reverse()).toEqual([
      ['code_host', 'web'],
      ['deploy_host', 'web'],
      ['error_tracker', 'ops'],
      ['issue_tracker', 'ops'],
      ['uptime_monitor', 'ops'],
    ]);
  });

  it('of an event no project claims is kept with no project', async () => {
    const dash = await dashboard();
    const payload = JSON.parse(github.pullRequest('closed', true)) as { repository: Record<string, unknown> };
    Object.assign(payload.repository, { full_name: 'acme/elsewhere', html_url: 'https://github.com/acme/elsewhere' });
    expect(await dash.receive(dash.sign.github(`${JSON.stringify(payload, null, 2)}\n`))).toEqual(received);
    expect(await dash.inbox()).toEqual([expect.objectContaining({ integration: 'code_host', type: 'pr.merged', project: null })]);
  });

  it('of a kind nothing is shown for (a GitHub ping) is answered 200 with no event and stores nothing', async () => {
    const dash = await dashboard();
    expect(await dash.receive(dash.sign.github(github.ping, 'ping'))).toEqual({ status: 200, body: { received: true, eventCount: 0 } });
    await expectEmptyInbox(dash);
  });

  it('is accepted with a charset in its content type', async () => {
    const dash = await dashboard();
    const delivery = dash.sign.betterstack();
    delivery.headers['content-type'] = 'application/json; charset=utf-8';
    expect(await dash.receive(delivery)).toEqual(received);
    expect(await dash.inbox()).toHaveLength(1);
  });
});

describe('refusals, each leaving the inbox as it was', () => {
  it('answers 404 to an unknown integration', async () => {
    const dash = await dashboard();
    for (const name of ['gitlab', 'stripe', 'GitHub', 'code-host', '']) {
      expect(await dash.receive(dash.sign.github(), name), name).toEqual(refused(404, 'NOT_FOUND'));
    }
    await expectEmptyInbox(dash);
  });

  it('answers 503 to every integration while RELAY_ENABLED=false', async () => {
    const dash = await dashboard({ ...SECRET_ENV, RELAY_ENABLED: 'false' });
    for (const provider of PROVIDERS) expect(await dash.receive(dash.sign[provider]()), provider).toEqual(refused(503, 'SERVICE_UNAVAILABLE'));
    await expectEmptyInbox(dash);
  });

  it('answers 503 to an integration switched off by RELAY_DISABLE_<X>, under either name, and still takes the others', async () => {
    const dash = await dashboard({ ...SECRET_ENV, RELAY_DISABLE_GITHUB: 'true', RELAY_DISABLE_ERROR_TRACKER: 'TRUE' });
    expect(await dash.receive(dash.sign.github())).toEqual(refused(503, 'SERVICE_UNAVAILABLE'));
    expect(await dash.receive(dash.sign.github(), 'github')).toEqual(refused(503, 'SERVICE_UNAVAILABLE'));
    expect(await dash.receive(dash.sign.sentry(), 'sentry')).toEqual(refused(503, 'SERVICE_UNAVAILABLE'));
    await expectEmptyInbox(dash);
    expect(await dash.receive(dash.sign.vercel())).toEqual(received);
    expect((await dash.inbox()).map((n) => n.integration)).toEqual(['deploy_host']);
  });

  it('answers 415 to a body that is not sent as application/json', async () => {
    const dash = await dashboard();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', undefined]) {
      const delivery = dash.sign.github();
      if (type === undefined) delete delivery.headers['content-type'];
      else delivery.headers['content-type'] = type;
      expect(await dash.receive(delivery), String(type)).toEqual(refused(415, 'UNSUPPORTED_MEDIA_TYPE'));
    }
    await expectEmptyInbox(dash);
  });

  /** A signed merged-PR delivery of exactly `size` bytes (JSON allows trailing whitespace). */
  const ofSize = (sign: Signer, size: number) => {
    const body = github.pullRequest('closed', true);
    return sign.github(`${body.slice(0, -1)}${' '.repeat(size - body.length)}\n`);
  };

  it('takes a body of exactly 256 KB', async () => {
    const dash = await dashboard();
    expect(await dash.receive(ofSize(dash.sign, 256 * 1024))).toEqual(received);
    expect(await dash.inbox()).toHaveLength(1);
  });

  it('answers 413 to a correctly signed body one byte over 256 KB, as the relay does', async () => {
    const dash = await dashboard();
    const over = ofSize(dash.sign, 256 * 1024 + 1);
    expect(await dash.receiveFrom('203.0.113.7', over)).toEqual(refused(413, 'PAYLOAD_TOO_LARGE'));
    expect(await dash.receive(over)).toEqual(refused(413, 'PAYLOAD_TOO_LARGE'));
    await expectEmptyInbox(dash);
  });

  it('refuses a 1 MB body at the procedure, storing nothing', async () => {
    const dash = await dashboard();
    await expect(dash.receive(ofSize(dash.sign, 1024 * 1024))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expectEmptyInbox(dash);
  });

  it("answers 401 to a signature that does not match, for every provider", async () => {
    const dash = await dashboard();
    const wrong = signer(() => dash.clock.now(), {
      code_host: 'not-it',
      deploy_host: 'not-it',
      error_tracker: 'not-it',
      issue_tracker: 'not-it',
      uptime_monitor: 'not-it',
    });
    for (const provider of PROVIDERS) expect(await dash.receive(wrong[provider]()), provider).toEqual(refused(401, 'UNAUTHORIZED'));

    // The right signature of other bytes: one character of the body changed after signing.
    for (const provider of ['github', 'vercel', 'sentry', 'linear'] as const) {
      const delivery = dash.sign[provider]();
      delivery.body = delivery.body.replace('"', ' "');
      expect(await dash.receive(delivery), `${provider} changed`).toEqual(refused(401, 'UNAUTHORIZED'));
    }
    // No signature header at all.
    const unsigned = dash.sign.github();
    delete unsigned.headers['x-hub-signature-256'];
    expect(await dash.receive(unsigned)).toEqual(refused(401, 'UNAUTHORIZED'));
    await expectEmptyInbox(dash);
  });

  it('answers 401 when no secret is configured for the integration, however the delivery is signed', async () => {
    const dash = await dashboard({});
    for (const provider of PROVIDERS) expect(await dash.receive(dash.sign[provider]()), provider).toEqual(refused(401, 'UNAUTHORIZED'));
    await expectEmptyInbox(dash);
    const status = await dash.caller.relay.status();
    expect(status.localWebhooks.map((w) => [w.integration, w.secretSet, w.secretSource])).toEqual([
      ['code_host', false, null],
      ['deploy_host', false, null],
      ['error_tracker', false, null],
      ['issue_tracker', false, null],
      ['uptime_monitor', false, null],
    ]);
  });

  it('answers 400 to a correctly signed body that is not JSON', async () => {
    const dash = await dashboard();
    expect(await dash.receive(dash.sign.github('{"action": "closed", '))).toEqual(refused(400, 'BAD_REQUEST'));
    await expectEmptyInbox(dash);
  });

  it('answers 409 to a Sentry delivery sent more than 5 minutes ago', async () => {
    const dash = await dashboard();
    expect(await dash.receive(dash.sign.sentry(sentry.issue('created'), 'issue', dash.clock.now() - 6 * 60_000))).toEqual(refused(409, 'CONFLICT'));
    await expectEmptyInbox(dash);
    expect(await dash.receive(dash.sign.sentry(sentry.issue('created'), 'issue', dash.clock.now() - 4 * 60_000))).toEqual(received);
  });

  it('answers 409 to the same delivery a second time and keeps one notification', async () => {
    const dash = await dashboard();
    const once = dash.sign.github();
    expect(await dash.receive(once)).toEqual(received);
    expect(await dash.receive(once)).toEqual(refused(409, 'CONFLICT'));
    // Better Stack sends no delivery id: the same body is the same delivery.
    expect(await dash.receive(dash.sign.betterstack())).toEqual(received);
    expect(await dash.receive(dash.sign.betterstack())).toEqual(refused(409, 'CONFLICT'));
    // Vercel's id is in the body.
    expect(await dash.receive(dash.sign.vercel())).toEqual(received);
    expect(await dash.receive(dash.sign.vercel())).toEqual(refused(409, 'CONFLICT'));
    const inbox = await dash.inbox();
    expect(inbox.map((n) => n.integration)).toEqual(['deploy_host', 'uptime_monitor', 'code_host']);
    expect(inbox.every((n) => n.eventCount === 1)).toBe(true);

    // The same event under a new delivery id (GitHub's redelivery of a lost one) is answered but stays one notification.
    expect(await dash.receive(dash.sign.github())).toEqual(received);
    expect(await dash.inbox()).toEqual(inbox);
    expect(await dash.unread()).toBe(3);
  });

  it('answers 429 with a retry time once an address has sent 100 deliveries in a minute, and still takes another address', async () => {
    const dash = await dashboard();
    const from = (ip: string) => createCaller({ ...dash.ctx, request: { ip, userAgent: undefined, identity: undefined } });
    const busy = from('198.51.100.7');
    const unsigned = dash.sign.github();
    unsigned.headers['x-hub-signature-256'] = 'sha256=00';
    // A hundred refused deliveries count as much as accepted ones.
    for (let i = 0; i < 100; i++) expect((await dash.receive(unsigned, 'code_host', busy)).status).toBe(401);

    const limited = await dash.receive(dash.sign.github(), 'code_host', busy);
    expect(limited).toEqual({ ...refused(429, 'TOO_MANY_REQUESTS'), retryAfterMs: expect.any(Number) });
    expect(limited.retryAfterMs).toBeGreaterThan(0);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(60_000);
    await expectEmptyInbox(dash);

    // Another address, and another integration from the same one, are their own windows.
    expect(await dash.receive(dash.sign.github(), 'code_host', from('198.51.100.8'))).toEqual(received);
    expect(await dash.receive(dash.sign.betterstack(), 'uptime_monitor', busy)).toEqual(received);
    expect((await dash.inbox()).map((n) => n.integration)).toEqual(['uptime_monitor', 'code_host']);
  });
});

describe('a signing secret saved in settings', () => {
  it('verifies deliveries without the environment, is never shown back, and stops working when removed', async () => {
    const dash = await dashboard({});
    const saved = 'saved-github-secret-4f1c9e';
    expect(await dash.caller.relay.saveWebhookSecret({ integration: 'code_host', secret: saved })).toEqual({ ok: true });

    const savedSign = signer(() => dash.clock.now(), { ...SECRETS, code_host: saved });
    expect(await dash.receive(savedSign.github())).toEqual(received);
    expect(await dash.receive(savedSign.github(), 'github')).toEqual(received);
    // The other integrations still have none.
    expect(await dash.receive(dash.sign.vercel())).toEqual(refused(401, 'UNAUTHORIZED'));

    const status = await dash.call('GET', '/api/relay/status');
    expect(status.status).toBe(200);
    expect(status.json.localWebhooks).toEqual([
      { integration: 'code_host', provider: 'GitHub', path: '/api/webhooks/code_host', secretSet: true, secretSource: 'settings' },
      { integration: 'deploy_host', provider: 'Vercel', path: '/api/webhooks/deploy_host', secretSet: false, secretSource: null },
      { integration: 'error_tracker', provider: 'Sentry', path: '/api/webhooks/error_tracker', secretSet: false, secretSource: null },
      { integration: 'issue_tracker', provider: 'Linear', path: '/api/webhooks/issue_tracker', secretSet: false, secretSource: null },
      { integration: 'uptime_monitor', provider: 'Better Stack', path: '/api/webhooks/uptime_monitor', secretSet: false, secretSource: null },
    ]);
    for (const path of ['/api/relay/status', '/api/settings']) expect((await dash.call('GET', path)).text, path).not.toContain(saved);
    expect(dash.log.lines.join('\n')).not.toContain(saved);

    await dash.caller.relay.saveWebhookSecret({ integration: 'code_host', secret: null });
    expect(await dash.receive(savedSign.github())).toEqual(refused(401, 'UNAUTHORIZED'));
    expect((await dash.caller.relay.status()).localWebhooks[0]).toMatchObject({ secretSet: false, secretSource: null });
    expect(await dash.inbox()).toHaveLength(1);
  });

  it('takes a rotation list, and is tried beside the environment\'s secret', async () => {
    const dash = await dashboard(SECRET_ENV);
    await dash.caller.relay.saveWebhookSecret({ integration: 'uptime_monitor', secret: 'old-token-1, new-token-2' });
    const withToken = (token: string) => {
      const delivery = dash.sign.betterstack(betterstack.incident('started', { id: token }));
      delivery.headers['x-betterstack-token'] = token;
      return delivery;
    };
    expect(await dash.receive(withToken('old-token-1'))).toEqual(received);
    expect(await dash.receive(withToken('new-token-2'))).toEqual(received);
    expect(await dash.receive(withToken(SECRETS.uptime_monitor))).toEqual(received);
    expect(await dash.receive(withToken('old-token-1, new-token-2'))).toEqual(refused(401, 'UNAUTHORIZED'));
    expect((await dash.caller.relay.status()).localWebhooks[4]).toMatchObject({ secretSet: true, secretSource: 'settings' });
    // Three incidents of the one monitor while it is down: one open outage holding the three events.
    expect(await dash.inbox()).toEqual([expect.objectContaining({ integration: 'uptime_monitor', resolved: false, eventCount: 3 })]);
  });
});
