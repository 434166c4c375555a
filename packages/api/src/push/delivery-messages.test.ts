import { pushPayloadSchema } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { HOUR, iso, MINUTE, pushDeliveryTests, t0 } from './delivery-testing.ts';
import { pushTopic } from './sender.ts';

// What each device is pushed, end to end against the fake push service (which decrypts each message with the
// device's keys and verifies its VAPID signature): an outage after its hold, one push per device, its recovery under
// the same tag and Topic and only to the devices its outage went to; a metric alert and its return to range.

const { sandbox, dashboard, received } = pushDeliveryTests();

describe('push notifications', () => {
  it('pushes an outage once to each device after the hold, and its recovery under the same tag and Topic', async () => {
    const dash = await dashboard(t0);
    const phone = await dash.subscribe('Phone');
    const laptop = await dash.subscribe('Laptop');
    await dash.ingest(events.down('api.formfox.app', 'inc1', t0));
    await dash.at(t0 + 30_000);
    expect(sandbox.pushes()).toEqual([]);
    await dash.at(t0 + 121_000);
    await dash.at(t0 + 5 * MINUTE);
    const [row] = (await dash.caller.notifications.list({})).notifications;
    expect(row?.decision?.channels).toEqual(['inApp', 'browser', 'push']);
    const outage = received();
    expect(outage.map((push) => push.subscriptionId).sort()).toEqual([phone.id, laptop.id].sort());
    for (const push of outage) {
      expect(pushPayloadSchema.parse(push.payload)).toEqual({
        kind: 'alert',
        notificationId: row?.id,
        title: 'Monitor down: api.formfox.app',
        body: 'Better Stack',
        severity: 'error',
        tag: 'betterstack:monitor:api.formfox.app',
        url: `/?notification=${row?.id}`,
        renotify: true,
        requireInteraction: true,
      });
      // Critical goes at once (high); an outage notice an hour late is noise (TTL an hour).
      expect(push).toMatchObject({ urgency: 'high', ttl: 3600, topic: pushTopic('betterstack:monitor:api.formfox.app') });
      expect(push.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    }

    await dash.ingest(events.up('api.formfox.app', 'inc1', t0 + 20 * MINUTE));
    await dash.at(t0 + 20 * MINUTE);
    const recovery = received().slice(2);
    expect(recovery).toHaveLength(2);
    for (const push of recovery) {
      expect(push.payload).toMatchObject({ kind: 'resolve', title: 'Monitor up: api.formfox.app', body: 'Down 20 min, recovered', tag: 'betterstack:monitor:api.formfox.app', renotify: false });
      // The same Topic: a push service still holding the outage for an offline phone replaces it.
      expect(push).toMatchObject({ urgency: 'normal', topic: outage[0]?.topic });
    }
    const devices = ((await dash.call('GET', '/api/push/subscriptions')).json as { devices: { name: string; lastSuccessAt: string | null }[] }).devices;
    // (Added in the same millisecond of the test's clock: their order is the ids'.)
    expect(devices.map((device) => [device.name, device.lastSuccessAt]).sort()).toEqual([
      ['Laptop', iso(t0 + 20 * MINUTE)],
      ['Phone', iso(t0 + 20 * MINUTE)],
    ]);
    expect((await dash.sends()).every((send) => send.state === 'delivered' && send.attempts === 1)).toBe(true);
  });

  it('pushes a metric alert with what else happened, a reminder a week on, and its return to range under the same tag (issue 51)', async () => {
    const dash = await dashboard(t0);
    const phone = await dash.subscribe('Phone');
    await dash.caller.projects.create({ slug: 'shop', name: 'Shop' });
    const alert = { integration: 'metrics' as const, subject: 'metric:shop:revenue.mrr', url: null, projectSlug: 'shop' };
    const trigger = { ...alert, type: 'metric.threshold', transition: 'trigger' as const, severity: 'error' as const };
    await dash.ctx.notifications.inbox.ingestOwn([{ ...trigger, sourceEventId: 'metric:r1:0:2026-11-25:open', title: 'MRR below $10,000: $9,420', occurredAt: iso(t0), context: ['Balance down $1,200'] }]);
    await dash.at(t0 + MINUTE);
    // The same day again (another evaluation): nothing more.
    await dash.ctx.notifications.inbox.ingestOwn([{ ...trigger, sourceEventId: 'metric:r1:0:2026-11-25:open', title: 'MRR below $10,000: $9,420', occurredAt: iso(t0), context: ['Balance down $1,200'] }]);
    const week = t0 + 7 * 24 * HOUR;
    await dash.at(week);
    await dash.ctx.notifications.inbox.ingestOwn([{ ...trigger, sourceEventId: 'metric:r1:0:2026-12-02:remind', title: 'MRR below $10,000 for 7 days now: $9,300', occurredAt: iso(week), reminder: true }]);
    await dash.at(week + MINUTE);
    await dash.ctx.notifications.inbox.ingestOwn([
      { ...alert, sourceEventId: 'metric:x:2026-12-03:resolved', type: 'metric.resolved', transition: 'resolve', lasted: 'Out of range for', severity: 'success', title: 'MRR back above $10,000: $10,250', occurredAt: iso(week + HOUR) },
    ]);
    await dash.at(week + HOUR);
    expect(received().map((push) => [push.subscriptionId, push.payload.kind, push.payload.title, push.payload.body, push.payload.tag])).toEqual([
      [phone.id, 'alert', 'MRR below $10,000: $9,420', 'shop · Metric alerts\nBalance down $1,200', 'metric:shop:revenue.mrr'],
      [phone.id, 'alert', 'MRR below $10,000 for 7 days now: $9,300', 'shop · Metric alerts', 'metric:shop:revenue.mrr'],
      [phone.id, 'resolve', 'MRR back above $10,000: $10,250', 'Out of range for 7 d 1 h', 'metric:shop:revenue.mrr'],
    ]);
  });

  it('pushes a recovery only to the devices its outage went to, not to one subscribed since (issue 48)', async () => {
    const dash = await dashboard(t0);
    const phone = await dash.subscribe('Phone');
    await dash.ingest(events.down('api.formfox.app', 'inc1', t0));
    await dash.at(t0 + 121_000);
    expect(received().map((push) => [push.subscriptionId, push.payload.kind])).toEqual([[phone.id, 'alert']]);
    // A laptop subscribed during the outage: it never showed the outage, so its recovery does not wake it.
    dash.clock.advance(5 * MINUTE);
    const laptop = await dash.subscribe('Laptop');
    const up = { integration: 'uptime_monitor', type: 'monitor.up', severity: 'success', title: 'Monitor up: api.formfox.app', transition: 'resolve', subjectKey: 'betterstack:monitor:api.formfox.app' } as const;
    expect((await dash.caller.notifications.dryRun({ event: up })).delivery.push).toMatchObject({ status: 'now', devices: [{ id: phone.deviceId, name: 'Phone' }] });
    await dash.ingest(events.up('api.formfox.app', 'inc1', t0 + 10 * MINUTE));
    await dash.at(t0 + 10 * MINUTE);
    expect(received().map((push) => [push.subscriptionId, push.payload.kind])).toEqual([
      [phone.id, 'alert'],
      [phone.id, 'resolve'],
    ]);
    // The next outage, and its recovery, go to both.
    await dash.ingest(events.down('api.formfox.app', 'inc2', t0 + 30 * MINUTE));
    await dash.at(t0 + 30 * MINUTE + 121_000);
    await dash.ingest(events.up('api.formfox.app', 'inc2', t0 + 40 * MINUTE));
    await dash.at(t0 + 40 * MINUTE);
    const later = received().slice(2);
    expect(later.map((push) => [push.subscriptionId, push.payload.kind]).sort()).toEqual(
      [
        [laptop.id, 'alert'],
        [laptop.id, 'resolve'],
        [phone.id, 'alert'],
        [phone.id, 'resolve'],
      ].sort(),
    );
  });
});
