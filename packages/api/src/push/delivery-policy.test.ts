import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { HOUR, iso, MINUTE, pushDeliveryTests, t0 } from './delivery-testing.ts';

// Push under the policy: no channel while no device is subscribed, each device named in the dry run, a warning left
// to the browser kept off the phone, quiet hours deferring into one digest push, a muted subject pushed nothing.

const { sandbox, dashboard, received } = pushDeliveryTests();

describe('push notifications', () => {
  it('opens no push channel while no device is subscribed, and says so in the policy and the dry run', async () => {
    const dash = await dashboard(t0);
    await dash.ingest(events.down('web', 'inc2', t0));
    await dash.at(t0 + 5 * MINUTE);
    const [row] = (await dash.caller.notifications.list({})).notifications;
    expect(row?.decision?.channels).not.toContain('push');
    expect((await dash.caller.notifications.policy()).push).toEqual({ available: false, devices: 0, reason: expect.stringContaining('Notify this device') });
    const failed = { integration: 'deploy_host', type: 'deploy.error', severity: 'error', title: 'Deploy failed', transition: null } as const;
    expect((await dash.caller.notifications.dryRun({ event: failed })).delivery.push).toEqual({
      status: 'none',
      until: null,
      why: 'no push: no device is subscribed (Settings → Notifications → Devices)',
    });
    await dash.subscribe('Phone');
    expect((await dash.caller.notifications.policy()).push).toEqual({ available: true, devices: 1, reason: null });
  });

  it('names each device in the dry run, and keeps a warning the preferences leave to the browser off the phone', async () => {
    const dash = await dashboard(t0);
    const phone = await dash.subscribe('Phone');
    dash.clock.advance(1_000);
    const laptop = await dash.subscribe('Work laptop');
    const failed = { integration: 'deploy_host', type: 'deploy.error', severity: 'error', title: 'Deploy failed', transition: null } as const;
    expect((await dash.caller.notifications.dryRun({ event: failed })).delivery.push).toEqual({
      status: 'now',
      until: null,
      why: 'queued for each subscribed device',
      devices: [
        { id: phone.deviceId, name: 'Phone' },
        { id: laptop.deviceId, name: 'Work laptop' },
      ],
    });
    // The "Why?" of the deploy that then fails names the devices its push went to.
    await dash.ingest({
      id: randomUUID(),
      integration: 'deploy_host',
      type: 'deploy.error',
      sourceEventId: 'vercel:dpl_9:error',
      title: 'Deploy failed',
      severity: 'error',
      occurredAt: iso(t0),
      receivedAt: iso(t0),
    });
    const [row] = (await dash.caller.notifications.list({})).notifications;
    expect(row?.decision?.trace.at(-1)).toMatchObject({ stage: 'delivery', verdict: 'sent', why: expect.stringMatching(/; pushed to Phone and Work laptop$/) });
    // A warning: the browser only, by default (push goes as email does: errors).
    const issue = { integration: 'error_tracker', type: 'error.issue_created', severity: 'warning', title: 'TypeError', transition: null } as const;
    expect((await dash.caller.notifications.dryRun({ event: issue })).delivery.push).toMatchObject({ status: 'none', why: 'no push: its decision does not open that channel' });
    // A preference's own push switch decides.
    await dash.caller.notifications.savePreferences({
      preferences: [{ integration: 'error_tracker', type: '*', enabled: true, minSeverity: 'warning', channels: { browser: false, email: false, push: true } }],
    });
    expect((await dash.caller.notifications.dryRun({ event: issue })).delivery).toMatchObject({ browser: { status: 'none' }, push: { status: 'now' } });
  });

  it('defers pushes through quiet hours into one digest push, lets critical through, and pushes nothing for a muted subject', async () => {
    const night = Date.parse('2026-11-25T22:30:00Z');
    const dash = await dashboard(night);
    const phone = await dash.subscribe('Phone');
    await dash.caller.notifications.saveQuietHours({ enabled: true, timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '22:00', end: '07:00' }] });
    await dash.caller.notifications.saveRules({
      rules: [{ id: 'w', name: 'Warnings to the phone', enabled: true, match: { integrations: ['error_tracker'] }, actions: { addChannels: ['push'] }, stop: false }],
    });
    await dash.ingest(events.issue('1', night + 10 * MINUTE));
    await dash.at(night + 11 * MINUTE);
    expect(sandbox.pushes()).toEqual([]);
    // A muted monitor's outage is not pushed even though critical goes through quiet hours.
    await dash.caller.notifications.mute({ subjectKey: 'betterstack:monitor:muted', until: iso(night + 10 * HOUR) });
    await dash.ingest(events.down('muted', 'inc-m', night + 20 * MINUTE));
    await dash.at(night + 25 * MINUTE);
    expect(sandbox.pushes()).toEqual([]);
    // A failed production deploy (critical) goes through at once.
    await dash.ingest({
      id: randomUUID(),
      integration: 'deploy_host',
      type: 'deploy.error',
      sourceEventId: 'vercel:dpl_1:error',
      title: 'Deploy failed: web',
      severity: 'error',
      occurredAt: iso(night + 30 * MINUTE),
      receivedAt: iso(night + 30 * MINUTE),
    });
    await dash.at(night + 31 * MINUTE);
    expect(received().map((push) => push.payload.title)).toEqual(['Deploy failed: web']);

    // 07:00: one digest push with the warning; a digest may wait for an offline phone (12 h), and it opens the inbox.
    await dash.at(Date.parse('2026-11-26T07:00:00Z'));
    const digest = received()[1];
    expect(digest?.subscriptionId).toBe(phone.id);
    expect(digest?.payload).toMatchObject({ kind: 'digest', notificationId: null, tag: 'digest', url: '/' });
    expect(String(digest?.payload.body)).toContain('TypeError in checkout (1)');
    expect(String(digest?.payload.body)).not.toContain('muted');
    expect(digest).toMatchObject({ ttl: 12 * 3600, urgency: 'normal' });
    expect(sandbox.pushes()).toHaveLength(2);

    // The digest told the phone of the issue, so the phone hears of its end; a laptop subscribed since does not.
    const laptop = await dash.subscribe('Laptop');
    const resolvedAt = Date.parse('2026-11-26T08:00:00Z');
    dash.clock.advance(resolvedAt - dash.clock.now());
    await dash.ingest(events.issue('1', resolvedAt, 'resolved'));
    await dash.at(resolvedAt + 1_000);
    expect(received().slice(2).map((push) => [push.subscriptionId, push.payload.kind])).toEqual([[phone.id, 'resolve']]);
    expect(received().some((push) => push.subscriptionId === laptop.id)).toBe(false);
  });
});
