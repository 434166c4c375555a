import { describe, expect, it } from 'vitest';
import { readToken, session, writeToken } from '../testing/identities.ts';
import { deviceBody, pushTests } from './push-testing.ts';

// The test push (POST /api/push/test) against the fake push service: what it decrypts, one a minute, 404/410, 429 and
// 5xx answers kept as the device's last failure, and who may read a push service's answer.

const { sandbox, dashboard, browserSubscription } = pushTests();

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
