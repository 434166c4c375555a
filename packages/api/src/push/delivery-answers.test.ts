import { pushPointerSchema } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { HOUR, iso, MINUTE, pushDeliveryTests, t0 } from './delivery-testing.ts';
import { PUSH_RETRY_MS } from './sender.ts';

// What a push service answers: 404/410 removing the device, 429 and 5xx tried again until the TTL, 413 sent as a
// pointer the service worker fetches, and a device whose keys cannot be opened failed with its reason.

const { sandbox, dashboard, received } = pushDeliveryTests();

describe('push notifications', () => {
  for (const status of [404, 410] as const) {
    it(`removes a device its push service answers ${status} for, says so in Settings, and sends it nothing more`, async () => {
      const dash = await dashboard(t0);
      // 410: the browser unsubscribed; 404: the push service never knew the endpoint (or forgot it).
      const phone = await dash.subscribe('Phone', status === 404 ? (real) => real.replace(/[^/]+$/, 'unknown-subscription') : undefined);
      const laptop = await dash.subscribe('Laptop');
      if (status === 410) sandbox.unsubscribePush(phone.id);
      await dash.ingest(events.down('web', 'inc3', t0));
      await dash.at(t0 + 121_000);
      expect(received().map((push) => push.subscriptionId)).toEqual([laptop.id]);
      const devices = ((await dash.call('GET', '/api/push/subscriptions')).json as { devices: { name: string; removedAt: string | null; lastFailure: string | null }[] }).devices;
      expect(devices.find((device) => device.name === 'Phone')).toMatchObject({ removedAt: iso(t0 + 121_000), lastFailure: expect.stringContaining(`answered ${status}`) });
      expect((await dash.sends()).find((send) => send.subscriptionId === phone.deviceId)).toMatchObject({ state: 'gone', status });
      // The next outage goes to the laptop only.
      await dash.ingest(events.down('docs', 'inc4', t0 + HOUR));
      await dash.at(t0 + HOUR + 121_000);
      expect(received().map((push) => push.subscriptionId)).toEqual([laptop.id, laptop.id]);
    });
  }

  it('tries a 429 again no sooner than its Retry-After and a 5xx at growing intervals; once too late for its TTL, it gives up', async () => {
    const dash = await dashboard(t0);
    await dash.subscribe('Phone');
    sandbox.inject('push', { status: 429, headers: { 'retry-after': '600' }, times: 1 });
    await dash.ingest(events.down('web', 'inc5', t0));
    const released = t0 + 121_000;
    await dash.at(released);
    let [send] = await dash.sends();
    expect(send).toMatchObject({ state: 'queued', attempts: 1, status: 429, dueAt: released + 600_000, error: expect.stringContaining('answered 429') });
    // Before the Retry-After: nothing goes.
    await dash.at(released + 5 * MINUTE);
    expect(sandbox.pushes()).toEqual([]);
    sandbox.inject('push', { status: 503, times: 1 });
    await dash.at(released + 10 * MINUTE);
    [send] = await dash.sends();
    expect(send).toMatchObject({ state: 'queued', attempts: 2, status: 503, dueAt: released + 10 * MINUTE + (PUSH_RETRY_MS[1] ?? 0) });
    await dash.at(released + 10 * MINUTE + (PUSH_RETRY_MS[1] ?? 0));
    [send] = await dash.sends();
    expect(send).toMatchObject({ state: 'delivered', attempts: 3, error: null });
    expect(sandbox.pushes()).toHaveLength(1);

    // A push service down for over an hour: the outage is not pushed late.
    sandbox.inject('push', { status: 503, times: 20 });
    await dash.ingest(events.down('docs', 'inc6', t0 + 2 * HOUR));
    for (let at = t0 + 2 * HOUR + 121_000; at <= t0 + 4 * HOUR; at += 10 * MINUTE) await dash.at(at);
    const late = (await dash.sends()).find((candidate) => candidate.delivery.message.title === 'Monitor down: docs');
    expect(late).toMatchObject({ state: 'failed' });
    expect(late?.error).toMatch(/answered 503|would arrive after/);
    expect(sandbox.pushes()).toHaveLength(1);
  });

  it('sends a message too large for the push service as a pointer the service worker fetches', async () => {
    const dash = await dashboard(t0);
    const phone = await dash.subscribe('Phone');
    // A push service that takes less than 4 KB answers 413 once: the pointer goes, and the worker asks for the rest.
    sandbox.inject('push', { status: 413, times: 1 });
    await dash.ingest(events.down('web', 'inc7', t0));
    await dash.at(t0 + 121_000);
    const [push] = received();
    expect(push?.subscriptionId).toBe(phone.id);
    const pointer = pushPointerSchema.parse(push?.payload);
    const [row] = (await dash.caller.notifications.list({})).notifications;
    expect(pointer).toEqual({ fetch: expect.any(String), tag: 'betterstack:monitor:web', url: `/?notification=${row?.id}` });
    const fetched = await dash.call('GET', `/api/push/messages/${pointer.fetch}`);
    expect(fetched.status).toBe(200);
    expect(fetched.json).toMatchObject({ kind: 'alert', title: 'Monitor down: web', tag: 'betterstack:monitor:web' });
    expect((await dash.call('GET', '/api/push/messages/no-such-message')).status).toBe(404);

    // A digest over 4 KB never reaches the push service whole: it goes as a pointer at once.
    const long = 'x'.repeat(450);
    const night = Date.parse('2026-11-25T23:00:00Z');
    await dash.caller.notifications.saveQuietHours({ enabled: true, timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '22:00', end: '07:00' }] });
    await dash.caller.notifications.saveRules({
      rules: [{ id: 'w', name: 'Warnings to the phone', enabled: true, match: { integrations: ['error_tracker'] }, actions: { addChannels: ['push'] }, stop: false }],
    });
    await dash.at(night);
    for (let i = 0; i < 12; i += 1) await dash.ingest({ ...events.issue(`${i}`, night + i * MINUTE), title: `${long} ${i}` });
    await dash.at(Date.parse('2026-11-26T07:00:00Z'));
    const digest = received().at(-1);
    const short = pushPointerSchema.parse(digest?.payload);
    expect(short.tag).toBe('digest');
    const whole = (await dash.call('GET', `/api/push/messages/${short.fetch}`)).json as { kind: string; body: string };
    expect(whole.kind).toBe('digest');
    expect(whole.body.length).toBeGreaterThan(4096);
  });

  it('fails, with its reason, a push to a device whose keys cannot be opened, and still sends to the others', async () => {
    const dash = await dashboard(t0);
    const broken = await dash.subscribe('Broken');
    const phone = await dash.subscribe('Phone');
    // The device's keys stored as another credentials key sealed them (a database restored by hand, say).
    const stored = await dash.store.push.get(broken.deviceId);
    await dash.store.push.add({ ...(stored as NonNullable<typeof stored>), sealedKeys: 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA' });
    await dash.ingest(events.down('web', 'inc9', t0));
    await dash.at(t0 + 121_000);
    expect(received().map((push) => push.subscriptionId)).toEqual([phone.id]);
    const failed = (await dash.sends()).find((send) => send.subscriptionId === broken.deviceId);
    expect(failed).toMatchObject({ state: 'failed', attempts: 1, error: expect.stringMatching(/^The push could not be made: /) });
    const devices = ((await dash.call('GET', '/api/push/subscriptions')).json as { devices: { name: string; lastFailure: string | null }[] }).devices;
    expect(devices.find((device) => device.name === 'Broken')?.lastFailure).toBe(failed?.error);
  });
});
