import { createECDH } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PASSWORD, readToken, session, writeToken } from '../testing/identities.ts';
import { deviceBody, pushTests } from './push-testing.ts';
import { newVapidKeys } from './vapid-keys.ts';

// Subscribing a device through /api/push/subscriptions: what is stored and answered, endpoints sealed and carried by
// an export, bad input and private addresses refused, who may subscribe, a browser subscribing again.

const { sandbox, dashboard, browserSubscription } = pushTests();

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
