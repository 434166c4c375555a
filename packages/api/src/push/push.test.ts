import { createECDH } from 'node:crypto';
import { startSandbox, type PushSubscriptionJson, type Sandbox } from '@dash/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { pushServiceError } from './adapter.ts';
import { newVapidKeys } from './vapid-keys.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;

const FIREFOX_ANDROID = 'Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0';
const PASSWORD = 'correct horse battery staple';
const writeToken: Identity = { via: 'token', scope: 'write', tokenId: 'tok1' };
const readToken: Identity = { via: 'token', scope: 'read', tokenId: 'tok2' };
const session: Identity = { via: 'session', scope: 'write', sessionId: 'sess1' };

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
 * A dashboard on a clock a test moves (the test-send limiter allows one a minute), its alerts to founder@example.com,
 * and PUSH_ALLOW_PRIVATE_ENDPOINTS (the fake push service is on 127.0.0.1) unless `push` says otherwise.
 */
async function dashboard(options: Parameters<typeof createTestApi>[0] = {}) {
  let now = Date.now();
  const api = await createTestApi({
    scheduler: false,
    clock: { now: () => now, sleep: () => Promise.resolve() },
    email: { ALERT_EMAIL_TO: 'founder@example.com' },
    ...options,
    push: options.push ?? { PUSH_ALLOW_PRIVATE_ENDPOINTS: true },
  });
  apis.push(api);
  const as = (identity: Identity | undefined, userAgent = FIREFOX_ANDROID) =>
    restClient(() => (identity ? createCaller({ ...api.ctx, request: { ip: '203.0.113.9', userAgent, identity } }) : api.caller));
  return {
    api,
    call: as({ via: 'open', scope: 'write' }),
    as,
    /** Moves the dashboard's clock past the test-send limiter's minute. */
    nextMinute: () => {
      now += 61_000;
    },
    now: () => now,
  };
}

/** A browser subscribing at the fake push service with the dashboard's key, as `pushManager.subscribe` does. */
async function browserSubscription(call: ReturnType<typeof restClient>): Promise<PushSubscriptionJson & { id: string }> {
  const { publicKey } = (await call('GET', '/api/push/key')).json as { publicKey: string };
  return sandbox.subscribePush({ applicationServerKey: publicKey });
}

const deviceBody = (subscription: PushSubscriptionJson, name = 'Phone') => ({
  endpoint: subscription.endpoint,
  expirationTime: subscription.expirationTime,
  keys: subscription.keys,
  name,
});

describe('the VAPID key', () => {
  it('is an uncompressed P-256 point in base64url, made once and the same after a restart on the same store', async () => {
    const first = await dashboard();
    const key = ((await first.call('GET', '/api/push/key')).json as { publicKey: string }).publicKey;
    expect(key).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(Buffer.from(key, 'base64url')[0]).toBe(4);
    expect(((await first.call('GET', '/api/push/key')).json as { publicKey: string }).publicKey).toBe(key);
    // The private key is sealed in the store: nowhere in the export in clear, and the stored value is the vault's.
    const stored = await first.api.store.meta.get('vapidKeys');
    expect(stored).toMatch(/^v1\./);
    const again = await createTestApi({ dir: first.api.dir, credentialsKey: first.api.credentialsKey, scheduler: false });
    apis.push(again);
    expect((await again.caller.push.key()).publicKey).toBe(key);
  });

  it('comes from VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY when they are set, over a stored one; a pair that does not match is refused', async () => {
    const stored = await dashboard();
    const storedKey = (await stored.api.caller.push.key()).publicKey;
    const pair = newVapidKeys();
    const env = await createTestApi({
      dir: stored.api.dir,
      credentialsKey: stored.api.credentialsKey,
      scheduler: false,
      push: { VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey },
    });
    apis.push(env);
    expect((await env.caller.push.key()).publicKey).toBe(pair.publicKey);
    expect(pair.publicKey).not.toBe(storedKey);
    const mismatched = await createTestApi({ scheduler: false, push: { VAPID_PUBLIC_KEY: newVapidKeys().publicKey, VAPID_PRIVATE_KEY: pair.privateKey } });
    apis.push(mismatched);
    await expect(mismatched.caller.push.key()).rejects.toThrow(/VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY/);
  });
});

describe('subscribing a device', () => {
  it('stores the browser’s subscription and answers 201 with the device, never its keys', async () => {
    const { call, as, api } = await dashboard();
    const subscription = await browserSubscription(call);
    const created = await as(session)('POST', '/api/push/subscriptions', deviceBody(subscription));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'Phone', browser: 'Firefox on Android', pushService: new URL(subscription.endpoint).host, lastSuccessAt: null, removedAt: null });
    const listed = await call('GET', '/api/push/subscriptions');
    expect(listed.json).toEqual({ devices: [created.json] });
    // Neither the keys nor the endpoint's path (the device's capability) in any answer or the log.
    for (const text of [created.text, listed.text, api.log.lines.join('\n')]) {
      expect(text).not.toContain(subscription.keys.p256dh);
      expect(text).not.toContain(subscription.keys.auth);
      expect(text).not.toContain(subscription.id);
    }
    // The export carries the device (a database switch or a restore keeps it) with its keys and endpoint sealed, as a
    // read token downloads it too.
    for (const exported of [await call('GET', '/api/database/export'), await as(readToken)('GET', '/api/database/export')]) {
      expect(exported.status).toBe(200);
      for (const secret of [subscription.keys.p256dh, subscription.keys.auth, subscription.id]) expect(exported.text).not.toContain(secret);
      const dumped = (exported.json as { tables: { push_subscriptions: { name: string; sealedKeys: string }[] } }).tables.push_subscriptions;
      expect(dumped).toMatchObject([{ name: 'Phone', sealedKeys: expect.stringMatching(/^v1\./) }]);
    }
    // Stored sealed: the endpoint as its push service's origin and a digest.
    const [row] = await api.store.push.list();
    expect(row?.sealedKeys).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(subscription.keys.auth);
    expect(row?.endpoint).toMatch(new RegExp(`^${new URL(subscription.endpoint).origin}/#[\\w-]{43}$`));
  });

  it('seals the endpoint of a device saved in clear before, at the next start, and it still gets its pushes', async () => {
    const { call, api } = await dashboard();
    const subscription = await browserSubscription(call);
    const device = (await call('POST', '/api/push/subscriptions', deviceBody(subscription))).json as { id: string };
    // As a device was stored before endpoints were sealed: the endpoint in clear, only the keys sealed.
    const [row] = await api.store.push.list();
    await api.store.push.reseal(device.id, row?.endpoint ?? '', subscription.endpoint, api.ctx.vault.seal(`push:${device.id}`, subscription.keys));
    expect((await call('GET', '/api/database/export')).text).not.toContain(subscription.id);
    await api.ctx.database?.reload();
    const [sealed] = await api.store.push.list();
    expect(JSON.stringify(sealed)).not.toContain(subscription.id);
    expect((await call('POST', '/api/push/test', {})).json).toMatchObject({ results: [{ id: device.id, outcome: 'sent' }] });
    expect(sandbox.pushes().map((push) => push.subscriptionId)).toEqual([subscription.id]);
    // Found again by its endpoint: the same browser subscribing again replaces it.
    await call('POST', '/api/push/subscriptions', deviceBody(subscription, 'Phone again'));
    expect((await api.store.push.list()).map((device) => device.name)).toEqual(['Phone again']);
  });

  it('comes back with an import under the same credentials key, and is skipped (named) under another', async () => {
    const { call, api } = await dashboard();
    const subscription = await browserSubscription(call);
    await call('POST', '/api/push/subscriptions', deviceBody(subscription));
    const dump = (await call('GET', '/api/database/export')).json;
    const same = await dashboard({ credentialsKey: api.credentialsKey });
    expect((await same.call('POST', '/api/database/import', dump)).status).toBe(200);
    expect(((await same.call('GET', '/api/push/subscriptions')).json as { devices: { name: string }[] }).devices.map((d) => d.name)).toEqual(['Phone']);
    const other = await dashboard();
    const imported = await other.call('POST', '/api/database/import', dump);
    expect((imported.json as { skipped: unknown[] }).skipped).toContainEqual({
      table: 'push_subscriptions',
      key: 'Phone',
      reason: 'its keys are sealed with another credentials key: subscribe the device again',
    });
    expect((await other.call('GET', '/api/push/subscriptions')).json).toEqual({ devices: [] });
  });

  it('keeps the VAPID private key out of the export in clear', async () => {
    const pair = newVapidKeys();
    const { call, api } = await dashboard();
    await api.store.meta.put('vapidKeys', api.ctx.vault.seal('vapidKeys', { ...pair }));
    expect((await call('GET', '/api/push/key')).json).toEqual({ publicKey: pair.publicKey });
    const exported = await call('GET', '/api/database/export');
    expect(exported.status).toBe(200);
    expect(exported.text).not.toContain(pair.privateKey);
  });

  it('refuses bad input with 400 and stores nothing', async () => {
    const { call } = await dashboard();
    const subscription = await browserSubscription(call);
    const good = deviceBody(subscription);
    const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url');
    const compressed = createECDH('prime256v1');
    compressed.generateKeys();
    const cases: [string, unknown][] = [
      ['no keys', { endpoint: good.endpoint, name: 'Phone' }],
      ['no auth', { ...good, keys: { p256dh: good.keys.p256dh } }],
      ['a point off the curve', { ...good, keys: { ...good.keys, p256dh: offCurve } }],
      ['a compressed point', { ...good, keys: { ...good.keys, p256dh: compressed.getPublicKey(null, 'compressed').toString('base64url') } }],
      ['an auth of 12 bytes', { ...good, keys: { ...good.keys, auth: Buffer.alloc(12).toString('base64url') } }],
      ['ftp:', { ...good, endpoint: 'ftp://push.example.com/x' }],
      ['http: beyond loopback', { ...good, endpoint: 'http://push.example.com/x' }],
      ['cloud metadata', { ...good, endpoint: 'https://169.254.169.254/latest/meta-data' }],
      ['IPv6 link-local', { ...good, endpoint: 'https://[fe80::1]/push' }],
      ['mapped metadata', { ...good, endpoint: 'https://[::ffff:169.254.169.254]/push' }],
      ['not a URL', { ...good, endpoint: 'push me' }],
      ['no name', { ...good, name: ' ' }],
    ];
    for (const [what, body] of cases) {
      const res = await call('POST', '/api/push/subscriptions', body);
      expect({ what, status: res.status, code: (res.json.error as { code?: string } | undefined)?.code }).toEqual({ what, status: 400, code: 'BAD_REQUEST' });
    }
    expect((await call('GET', '/api/push/subscriptions')).json).toEqual({ devices: [] });
  });

  it('refuses an endpoint on loopback, a private, link-local or shared (CGNAT) address unless PUSH_ALLOW_PRIVATE_ENDPOINTS=true', async () => {
    const { call } = await dashboard({ push: {} });
    const good = deviceBody(sandbox.subscribePush());
    for (const endpoint of [
      'http://127.0.0.1:8080/push/abc',
      'https://10.1.2.3/push/abc',
      'https://192.168.1.20/push/abc',
      'https://172.20.0.1/push/abc',
      'https://169.254.10.1/push/abc',
      'https://100.64.0.1/push/abc',
      'http://[::1]:8080/push/abc',
      'https://[fc00::1]/push/abc',
      'https://[fd12:3456::1]/push/abc',
      'https://[::ffff:10.0.0.1]/push/abc',
    ]) {
      const res = await call('POST', '/api/push/subscriptions', { ...good, endpoint });
      const error = res.json.error as { code?: string; message?: string } | undefined;
      expect({ endpoint, status: res.status, code: error?.code }).toEqual({ endpoint, status: 400, code: 'BAD_REQUEST' });
      expect(error?.message).toMatch(/^endpoint: The address \S+ \((loopback, private, link-local or shared|link-local or cloud metadata)\) is not allowed/);
      expect(error?.message).not.toContain('/push/abc');
    }
    expect((await call('GET', '/api/push/subscriptions')).json).toEqual({ devices: [] });
    // With the variable, the same fake push service on 127.0.0.1 is a device like any other.
    const allowed = await dashboard();
    expect((await allowed.call('POST', '/api/push/subscriptions', deviceBody(await browserSubscription(allowed.call)))).status).toBe(201);
  });

  it('refuses at connect time a name that resolves to loopback: the test push fails, nothing reaches it, nothing of an answer kept', async () => {
    const { call, api } = await dashboard({ push: {} });
    const subscription = await browserSubscription(call);
    const byName = subscription.endpoint.replace('//127.0.0.1:', '//localhost:');
    expect(byName).not.toBe(subscription.endpoint);
    const device = (await call('POST', '/api/push/subscriptions', { ...deviceBody(subscription), endpoint: byName })).json as { id: string };
    const test = (await call('POST', '/api/push/test', { id: device.id })).json as { results: { outcome: string; message: string }[] };
    expect(test.results).toMatchObject([{ outcome: 'refused' }]);
    expect(test.results[0]?.message).toMatch(/^The address (127\.0\.0\.1|::1) \(loopback, private, link-local or shared\) is not allowed here: only a public address \(localhost resolves to it\)$/);
    expect(sandbox.pushes()).toEqual([]);
    expect((await api.store.push.get(device.id))?.lastFailure).toBe(test.results[0]?.message);
  });

  it('refuses an API token, even write, on subscribing, removing and testing (403), and lets one list', async () => {
    const { call, as } = await dashboard();
    const subscription = await browserSubscription(call);
    const device = (await call('POST', '/api/push/subscriptions', deviceBody(subscription))).json as { id: string };
    for (const token of [writeToken, readToken]) {
      const client = as(token);
      for (const [method, path, body] of [
        ['POST', '/api/push/subscriptions', deviceBody(sandbox.subscribePush(), 'Attacker')],
        ['DELETE', `/api/push/subscriptions/${device.id}`, undefined],
        ['POST', '/api/push/test', {}],
        ['POST', '/api/push/test', { id: device.id }],
      ] as const) {
        const res = await client(method, path, body);
        expect({ path, scope: token.scope, status: res.status }).toEqual({ path, scope: token.scope, status: 403 });
      }
      expect((await client('GET', '/api/push/subscriptions')).status).toBe(200);
    }
    expect(((await call('GET', '/api/push/subscriptions')).json as { devices: { name: string }[] }).devices.map((d) => d.name)).toEqual(['Phone']);
    expect(sandbox.pushes()).toEqual([]);
  });

  it('asks a signed-in session for the password once one is set, as for an outgoing channel’s credentials', async () => {
    const { call, as, api } = await dashboard();
    await api.caller.auth.changePassword({ newPassword: PASSWORD });
    const subscription = await browserSubscription(call);
    const none = await as(session)('POST', '/api/push/subscriptions', deviceBody(subscription));
    expect([none.status, (none.json.error as { message: string }).message]).toEqual([403, 'Confirm this with the dashboard password (the password field).']);
    expect(await api.store.push.list()).toEqual([]);
    const confirmed = await as(session)('POST', '/api/push/subscriptions', { ...deviceBody(subscription), password: PASSWORD });
    expect(confirmed.status).toBe(201);
  });

  it('replaces the device when the same browser subscribes again, and removes one on DELETE', async () => {
    const { call } = await dashboard();
    const subscription = await browserSubscription(call);
    await call('POST', '/api/push/subscriptions', deviceBody(subscription, 'Old name'));
    const again = (await call('POST', '/api/push/subscriptions', deviceBody(subscription, 'Phone'))).json as { id: string };
    expect(((await call('GET', '/api/push/subscriptions')).json as { devices: { id: string; name: string }[] }).devices).toMatchObject([{ id: again.id, name: 'Phone' }]);
    expect((await call('DELETE', `/api/push/subscriptions/${again.id}`)).json).toEqual({ ok: true, removed: true });
    expect((await call('DELETE', `/api/push/subscriptions/${again.id}`)).json).toEqual({ ok: true, removed: false });
    expect((await call('GET', '/api/push/subscriptions')).json).toEqual({ devices: [] });
  });
});

describe('the test push', () => {
  it('reaches the push service, which decrypts it to what was sent, signed with our VAPID key for the endpoint’s origin', async () => {
    const { call, now } = await dashboard();
    const subscription = await browserSubscription(call);
    const device = (await call('POST', '/api/push/subscriptions', deviceBody(subscription))).json as { id: string };
    const res = await call('POST', '/api/push/test', {});
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ results: [{ id: device.id, name: 'Phone', outcome: 'sent', status: 201, retryAt: null, message: expect.any(String) }] });
    const [received] = sandbox.pushes();
    const { publicKey } = (await call('GET', '/api/push/key')).json as { publicKey: string };
    expect(received?.subscriptionId).toBe(subscription.id);
    expect(JSON.parse(received?.payload ?? '')).toMatchObject({ kind: 'test', title: 'Test from your founder dashboard', tag: 'dashboard-push-test', url: '/' });
    // The fake verified the ES256 JWT with k; k is our key, aud the endpoint's origin, sub the alert address.
    expect(received?.vapid.publicKey).toBe(publicKey);
    expect(received?.vapid.claims).toMatchObject({ aud: new URL(subscription.endpoint).origin, sub: 'mailto:founder@example.com' });
    const nowSeconds = Math.floor(Date.now() / 1000);
    expect(received?.vapid.claims.exp).toBeGreaterThan(nowSeconds);
    expect(received?.vapid.claims.exp).toBeLessThanOrEqual(nowSeconds + 24 * 3600);
    expect(received).toMatchObject({ urgency: 'high', ttl: 120 });
    expect(received?.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    const listed = (await call('GET', '/api/push/subscriptions')).json as { devices: { lastSuccessAt: string | null }[] };
    expect(listed.devices[0]?.lastSuccessAt).toBe(new Date(now()).toISOString());
  });

  it('sends one test a minute (429 with Retry-After), and nothing for no device', async () => {
    const { call, nextMinute } = await dashboard();
    expect((await call('POST', '/api/push/test', {})).json).toEqual({ results: [] });
    const subscription = await browserSubscription(call);
    const device = (await call('POST', '/api/push/subscriptions', deviceBody(subscription))).json as { id: string };
    expect((await call('POST', '/api/push/test', { id: device.id })).status).toBe(200);
    const limited = await call('POST', '/api/push/test', { id: device.id });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '60']);
    expect(sandbox.pushes()).toHaveLength(1);
    nextMinute();
    expect((await call('POST', '/api/push/test', { id: 'no-such-device' })).status).toBe(404);
  });

  for (const status of [404, 410]) {
    it(`removes a device the push service answers ${status} for, and says so in the list`, async () => {
      const { call } = await dashboard();
      const subscription = await browserSubscription(call);
      const device = (await call('POST', '/api/push/subscriptions', deviceBody(subscription))).json as { id: string };
      if (status === 410) sandbox.unsubscribePush(subscription.id);
      else sandbox.inject('push', { status: 404, times: 1 });
      const res = await call('POST', '/api/push/test', {});
      expect(res.json).toMatchObject({ results: [{ id: device.id, outcome: 'gone', status }] });
      const [listed] = ((await call('GET', '/api/push/subscriptions')).json as { devices: { removedAt: string | null; lastFailure: string | null }[] }).devices;
      expect(listed?.removedAt).not.toBeNull();
      expect(listed?.lastFailure).toContain(`answered ${status}`);
      // Its keys are gone from the store; a test to every device no longer includes it.
      expect((await call('POST', '/api/push/test', {})).json).toEqual({ results: [] });
      expect(sandbox.pushes()).toEqual([]);
    });
  }

  it('reports a 429’s Retry-After as when to retry, and sends nothing to that push service before then', async () => {
    const { call, now, nextMinute } = await dashboard();
    const subscription = await browserSubscription(call);
    await call('POST', '/api/push/subscriptions', deviceBody(subscription));
    sandbox.inject('push', { status: 429, headers: { 'retry-after': '300' }, times: 1 });
    const asked = now();
    const res = await call('POST', '/api/push/test', {});
    expect(res.json).toMatchObject({ results: [{ outcome: 'retry', status: 429, retryAt: new Date(asked + 300_000).toISOString() }] });
    const [device] = ((await call('GET', '/api/push/subscriptions')).json as { devices: { lastFailure: string | null; removedAt: string | null }[] }).devices;
    expect(device).toMatchObject({ lastFailure: expect.stringContaining('answered 429'), removedAt: null });
    const requests = sandbox.requestsTo('push').length;
    nextMinute();
    const waiting = await call('POST', '/api/push/test', {});
    expect(waiting.json).toMatchObject({ results: [{ outcome: 'retry', status: null, retryAt: new Date(asked + 300_000).toISOString() }] });
    expect(sandbox.requestsTo('push')).toHaveLength(requests);
  });

  it('keeps a push service’s status as the last failure, never its answer (an internal service’s page)', async () => {
    const { call } = await dashboard();
    const subscription = await browserSubscription(call);
    await call('POST', '/api/push/subscriptions', deviceBody(subscription));
    sandbox.inject('push', { status: 403, body: 'INTERNAL-ONLY-DATA: admin panel secret=x', times: 1 });
    const test = (await call('POST', '/api/push/test', {})).json as { results: { outcome: string; message: string }[] };
    expect(test.results).toMatchObject([{ outcome: 'refused', message: `The push service ${new URL(subscription.endpoint).host} answered 403` }]);
    const [device] = ((await call('GET', '/api/push/subscriptions')).json as { devices: { lastFailure: string | null }[] }).devices;
    expect(device?.lastFailure).toBe(`The push service ${new URL(subscription.endpoint).host} answered 403`);
  });

  it('lets only the owner read what a push service answered: an API token lists the device without it', async () => {
    const { call, as } = await dashboard();
    await call('POST', '/api/push/subscriptions', deviceBody(await browserSubscription(call)));
    sandbox.inject('push', { status: 503, times: 1 });
    await call('POST', '/api/push/test', {});
    type Listed = { devices: { lastFailure: string | null; lastFailureAt: string | null }[] };
    expect(((await as(session)('GET', '/api/push/subscriptions')).json as Listed).devices[0]?.lastFailure).toMatch(/answered 503$/);
    for (const token of [readToken, writeToken]) {
      const listed = await as(token)('GET', '/api/push/subscriptions');
      expect(listed.status).toBe(200);
      expect((listed.json as Listed).devices).toMatchObject([{ lastFailure: null, lastFailureAt: expect.any(String) }]);
      // Nor in the export a token may download.
      const exported = (await as(token)('GET', '/api/database/export')).json as { tables: { push_subscriptions: { lastFailure: string | null }[] } };
      expect(exported.tables.push_subscriptions).toMatchObject([{ lastFailure: null }]);
    }
    const owned = (await as(session)('GET', '/api/database/export')).json as { tables: { push_subscriptions: { lastFailure: string | null }[] } };
    expect(owned.tables.push_subscriptions[0]?.lastFailure).toMatch(/answered 503$/);
  });

  it('records a 5xx as the device’s last failure and keeps the device', async () => {
    const { call } = await dashboard();
    const subscription = await browserSubscription(call);
    await call('POST', '/api/push/subscriptions', deviceBody(subscription));
    sandbox.inject('push', { status: 503, times: 1 });
    expect((await call('POST', '/api/push/test', {})).json).toMatchObject({ results: [{ outcome: 'retry', status: 503 }] });
    const [device] = ((await call('GET', '/api/push/subscriptions')).json as { devices: { lastFailure: string | null; lastFailureAt: string | null; removedAt: string | null }[] }).devices;
    expect(device).toMatchObject({ lastFailure: expect.stringContaining('answered 503'), removedAt: null });
    expect(device?.lastFailureAt).not.toBeNull();
  });
});

describe('a push service’s error in a failure', () => {
  const page = 'INTERNAL-ONLY-DATA: admin panel secret=x';
  it('keeps Mozilla autopush’s message and errno, and Apple’s reason, from their documented JSON answers', () => {
    const autopush = JSON.stringify({ code: 410, errno: 106, error: 'Gone', message: 'Request did not validate User was deleted', more_info: 'https://autopush.readthedocs.io/en/latest/http.html#error-codes' });
    expect(pushServiceError('https://updates.push.services.mozilla.com/wpush/v2/gAAA', autopush)).toBe('Request did not validate User was deleted, errno 106');
    expect(pushServiceError('https://web.push.apple.com/QGuQyavXuto', JSON.stringify({ reason: 'BadJwtToken' }))).toBe('BadJwtToken');
  });

  it('keeps nothing of another answer: FCM’s (no documented body), an unknown host’s, or a known host’s that is not JSON', () => {
    expect(pushServiceError('https://fcm.googleapis.com/fcm/send/abc', JSON.stringify({ reason: page }))).toBeUndefined();
    expect(pushServiceError('https://push.example.com/abc', JSON.stringify({ message: page, reason: page }))).toBeUndefined();
    expect(pushServiceError('http://127.0.0.1:9000/abc', page)).toBeUndefined();
    expect(pushServiceError('https://updates.push.services.mozilla.com/wpush/v2/gAAA', page)).toBeUndefined();
    expect(pushServiceError('https://web.push.apple.com.evil.example/x', JSON.stringify({ reason: page }))).toBeUndefined();
  });
});
