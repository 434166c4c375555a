import { startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { NO_CONTACT, PushContacts } from './contact.ts';
import { vapidSubject } from './vapid-keys.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;

const session: Identity = { via: 'session', scope: 'write', sessionId: 'sess1' };
const writeToken: Identity = { via: 'token', scope: 'write', tokenId: 'tok1' };
const readToken: Identity = { via: 'token', scope: 'read', tokenId: 'tok2' };

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const apis: Api[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((api) => api.dispose()));
});

/**
 * A dashboard as a new user has it: no VAPID_SUBJECT, no alert email, a plain-http address (unless `options` say
 * otherwise), on a clock a test moves past the one-test-a-minute limit; the fake push service is on 127.0.0.1.
 */
async function dashboard(options: Parameters<typeof createTestApi>[0] = {}) {
  let now = Date.now();
  const api = await createTestApi({ scheduler: false, clock: { now: () => now, sleep: () => Promise.resolve() }, push: { PUSH_ALLOW_PRIVATE_ENDPOINTS: true }, ...options });
  apis.push(api);
  const as = (identity: Identity) => restClient(() => createCaller({ ...api.ctx, request: { ip: '203.0.113.9', userAgent: undefined, identity } }));
  return {
    api,
    call: restClient(() => api.caller),
    as,
    nextMinute: () => {
      now += 61_000;
    },
  };
}

describe('the contact push services write to (the VAPID subject)', () => {
  it('is VAPID_SUBJECT, else the saved address, else the first alert address, else an https origin, else none', () => {
    const all = { saved: 'owner@example.com', alertAddress: 'alerts@example.com', origin: 'https://dash.example.com' };
    expect(vapidSubject({ VAPID_SUBJECT: 'mailto:ops@example.com' }, all)).toEqual({ subject: 'mailto:ops@example.com', source: 'env' });
    expect(vapidSubject({}, all)).toEqual({ subject: 'mailto:owner@example.com', source: 'saved' });
    expect(vapidSubject({}, { ...all, saved: undefined })).toEqual({ subject: 'mailto:alerts@example.com', source: 'alert_email' });
    expect(vapidSubject({}, { origin: all.origin })).toEqual({ subject: 'https://dash.example.com', source: 'origin' });
    // Push services take only mailto: and https:.
    expect(vapidSubject({}, { origin: 'http://192.168.1.20:3000' })).toBeUndefined();
    expect(vapidSubject({}, {})).toBeUndefined();
  });

  it('reads the saved address from the store, under the environment and over the alert address and the origin', async () => {
    const { api } = await dashboard();
    const { store, vault, log } = api.ctx;
    const contacts = (env: { VAPID_SUBJECT?: string }, alert: string | undefined, origin: string | undefined) =>
      new PushContacts({ store, vault, log, env, alertAddress: () => Promise.resolve(alert), origin });
    const order = async () =>
      Promise.all([
        contacts({ VAPID_SUBJECT: 'https://ops.example.com' }, 'alerts@example.com', 'https://dash.example.com').resolve(),
        contacts({}, 'alerts@example.com', 'https://dash.example.com').resolve(),
        contacts({}, undefined, 'https://dash.example.com').resolve(),
      ]);
    expect(await order()).toEqual([
      { subject: 'https://ops.example.com', source: 'env' },
      { subject: 'mailto:alerts@example.com', source: 'alert_email' },
      { subject: 'https://dash.example.com', source: 'origin' },
    ]);
    await contacts({}, undefined, undefined).save('owner@example.com');
    expect(await order()).toEqual([
      { subject: 'https://ops.example.com', source: 'env' },
      { subject: 'mailto:owner@example.com', source: 'saved' },
      { subject: 'mailto:owner@example.com', source: 'saved' },
    ]);
    // Sealed in the store, never in clear; the log says it was saved, not what.
    expect(await store.meta.get('push.contact')).toMatch(/^v1\./);
    expect(api.log.lines.join('\n')).not.toContain('owner@example.com');
    await contacts({}, undefined, undefined).save(null);
    expect(await contacts({}, undefined, 'https://dash.example.com').resolve()).toEqual({ subject: 'https://dash.example.com', source: 'origin' });
  });

  it('signs a push with the saved address once the owner saves one: refused before, received by the push service after', async () => {
    const { call, as, nextMinute } = await dashboard();
    expect((await call('GET', '/api/push/contact')).json).toEqual({ configured: false, source: null, subject: null, saved: null, suggestion: null });
    const { publicKey } = (await call('GET', '/api/push/key')).json as { publicKey: string };
    const subscription = sandbox.subscribePush({ applicationServerKey: publicKey });
    const body = { endpoint: subscription.endpoint, expirationTime: null, keys: subscription.keys, name: 'Phone' };
    const device = (await as(session)('POST', '/api/push/subscriptions', body)).json as { id: string };

    // No contact: the push is refused here, and nothing reaches the push service.
    const refused = (await as(session)('POST', '/api/push/test', { id: device.id })).json as { results: { outcome: string; message: string }[] };
    expect(refused.results).toMatchObject([{ outcome: 'refused', message: NO_CONTACT }]);
    expect(sandbox.requestsTo('push')).toEqual([]);

    const saved = await as(session)('PUT', '/api/push/contact', { email: '  founder@example.com ' });
    expect([saved.status, saved.json]).toEqual([
      200,
      { configured: true, source: 'saved', subject: 'mailto:founder@example.com', saved: 'founder@example.com', suggestion: null },
    ]);
    nextMinute();
    const sent = (await as(session)('POST', '/api/push/test', { id: device.id })).json as { results: { outcome: string }[] };
    expect(sent.results).toMatchObject([{ outcome: 'sent' }]);
    // The fake push service verified the ES256 JWT with our key; its `sub` is the saved address.
    const [received] = sandbox.pushes();
    expect(received?.subscriptionId).toBe(subscription.id);
    expect(received?.vapid.publicKey).toBe(publicKey);
    expect(received?.vapid.claims).toMatchObject({ aud: new URL(subscription.endpoint).origin, sub: 'mailto:founder@example.com' });
  });

  it('refuses bad input with a 400 naming email, and stores nothing', async () => {
    const { call, api } = await dashboard();
    const cases: [string, unknown][] = [
      ['not an address', { email: 'founder' }],
      ['no domain', { email: 'founder@' }],
      ['a host without a dot', { email: 'founder@localhost' }],
      ['two addresses', { email: 'a@example.com, b@example.com' }],
      ['a mailto: URL', { email: 'mailto:founder@example.com' }],
      ['too long', { email: `${'a'.repeat(250)}@example.com` }],
      ['a number', { email: 42 }],
      ['no email', {}],
    ];
    for (const [what, body] of cases) {
      const res = await call('PUT', '/api/push/contact', body);
      const error = res.json.error as { code?: string; message?: string; issues?: { path: string[] }[] } | undefined;
      expect({ what, status: res.status, code: error?.code, path: error?.issues?.[0]?.path }).toEqual({ what, status: 400, code: 'BAD_REQUEST', path: ['email'] });
      expect(error?.message, what).toMatch(/^Invalid input: email: /);
    }
    const extra = await call('PUT', '/api/push/contact', { email: 'founder@example.com', subject: 'mailto:x@example.com' });
    expect([extra.status, (extra.json.error as { message: string }).message]).toEqual([400, expect.stringContaining('subject')]);
    expect(await api.store.meta.get('push.contact')).toBeUndefined();
    expect((await call('GET', '/api/push/contact')).json).toMatchObject({ configured: false, saved: null });
  });

  it('is set by the owner only: an API token, even write, gets 403 and stores nothing, and reads only whether and where from', async () => {
    const { call, as, api } = await dashboard({ email: { ALERT_EMAIL_TO: 'alerts@example.com' } });
    for (const token of [writeToken, readToken]) {
      const res = await as(token)('PUT', '/api/push/contact', { email: 'attacker@example.com' });
      expect({ scope: token.scope, status: res.status }).toEqual({ scope: token.scope, status: 403 });
    }
    expect(await api.store.meta.get('push.contact')).toBeUndefined();
    // Before anything is saved, the owner is offered the alert address, which is in use meanwhile.
    expect((await call('GET', '/api/push/contact')).json).toEqual({
      configured: true,
      source: 'alert_email',
      subject: 'mailto:alerts@example.com',
      saved: null,
      suggestion: 'alerts@example.com',
    });
    expect((await as(session)('PUT', '/api/push/contact', { email: 'founder@example.com' })).status).toBe(200);
    const read = await as(readToken)('GET', '/api/push/contact');
    expect([read.status, read.json]).toEqual([200, { configured: true, source: 'saved', subject: null, saved: null, suggestion: null }]);
    // Nor in the export a read token may download: it travels sealed.
    const exported = await as(readToken)('GET', '/api/database/export');
    expect(exported.status).toBe(200);
    expect(exported.text).not.toContain('founder@example.com');
    // null removes it: the alert address again.
    expect((await call('PUT', '/api/push/contact', { email: null })).json).toMatchObject({ source: 'alert_email', saved: null });
  });

  it('comes back with an import under the same credentials key, and is skipped (named) under another', async () => {
    const { call, api } = await dashboard();
    await call('PUT', '/api/push/contact', { email: 'founder@example.com' });
    const dump = (await call('GET', '/api/database/export')).json;
    const same = await dashboard({ credentialsKey: api.credentialsKey });
    expect((await same.call('POST', '/api/database/import', dump)).status).toBe(200);
    expect((await same.call('GET', '/api/push/contact')).json).toMatchObject({ source: 'saved', saved: 'founder@example.com' });
    const other = await dashboard();
    const imported = await other.call('POST', '/api/database/import', dump);
    expect((imported.json as { skipped: unknown[] }).skipped).toContainEqual({ table: 'user_settings', key: 'push.contact', reason: expect.stringContaining('another credentials key') });
    expect((await other.call('GET', '/api/push/contact')).json).toMatchObject({ configured: false, saved: null });
  });
});
