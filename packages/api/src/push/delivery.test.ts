import { randomUUID } from 'node:crypto';
import { pushPayloadSchema, pushPointerSchema } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { deliveryTests, notificationsTo } from '../testing/delivery.ts';
import { PUSH_RETRY_MS, pushTopic } from './sender.ts';

// Web Push as a channel of the notification policy, end to end against the fake push service (which decrypts each
// message with the device's keys and verifies its VAPID signature): an outage held, then one push per device; its
// recovery under the same tag and Topic; quiet hours, mutes, the dry run; 404/410, 413, 429 and 5xx; two processes
// and a process that dies holding a claim.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
const t0 = Date.parse('2026-11-25T10:00:00Z');

const { sandbox, dashboard: deliveryDashboard } = deliveryTests();

/** A dashboard with its own clock (the test ticks and drains), alerts addressed to the founder (the VAPID subject). */
async function dashboard(start: number, options: { dir?: string; credentialsKey?: Buffer } = {}) {
  // The fake push service is on 127.0.0.1: PUSH_ALLOW_PRIVATE_ENDPOINTS, as a private push service would need.
  const dash = await deliveryDashboard(start, {
    prefix: 'dash-push-',
    email: { ALERT_EMAIL_TO: 'founder@example.com' },
    push: { PUSH_ALLOW_PRIVATE_ENDPOINTS: true },
    after: notificationsTo('pushes'),
    ...options,
  });
  return { ...dash, sends: () => dash.store.push.sends.recent(100) };
}

/** Two processes of one dashboard on one store, whose senders the test drains (neither wakes by itself), and a phone subscribed. */
async function twoProcessesAndAPhone() {
  const a = await dashboard(t0);
  const b = await dashboard(t0, { dir: a.dir, credentialsKey: a.credentialsKey });
  await Promise.all([a.ctx.notifications.pushes.stop(), b.ctx.notifications.pushes.stop()]);
  await a.subscribe('Phone');
  return [a, b] as const;
}

/** What each device received, decrypted: its payload parsed, with the headers the push service saw. */
const received = () =>
  sandbox.pushes().map((push) => ({ subscriptionId: push.subscriptionId, payload: JSON.parse(push.payload) as Record<string, unknown>, ttl: push.ttl, urgency: push.urgency, topic: push.topic }));

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

  it('pushes a recovery after its outage when the outage waits for a retry, even from another process (issue 48)', async () => {
    const [a, b] = await twoProcessesAndAPhone();
    await a.ingest(events.down('api', 'inc1', t0));
    // The hold ends and the push service answers the outage 429, Retry-After 120 (process a holds the endpoint back).
    sandbox.inject('push', { status: 429, headers: { 'retry-after': '120' }, times: 1 });
    await a.at(t0 + 121_000);
    // Recovered 10 s later; process b, which knows nothing of a's pause, comes to the recovery first: it waits.
    const upAt = t0 + 131_000;
    a.clock.advance(upAt - a.clock.now());
    b.clock.advance(upAt - b.clock.now());
    await a.ingest(events.up('api', 'inc1', upAt));
    await b.ctx.notifications.pushes.drain();
    expect(sandbox.pushes()).toEqual([]);
    // Once the Retry-After has passed: the outage, then its recovery, whichever process sends them.
    for (const at of [t0 + 250_000, t0 + 260_000]) {
      a.clock.advance(at - a.clock.now());
      b.clock.advance(at - b.clock.now());
      await b.ctx.notifications.pushes.drain();
      await a.ctx.notifications.pushes.drain();
    }
    expect(received().map((push) => push.payload.kind)).toEqual(['alert', 'resolve']);
  });

  it('holds a push service that asked for a pause back in every process, not only the one it told (issue 48)', async () => {
    const [a, b] = await twoProcessesAndAPhone();
    // Two monitors down 10 s apart; process a is answered 429, Retry-After 120, for the first one's outage.
    await a.ingest(events.down('api', 'inc-a', t0));
    a.clock.advance(10_000);
    await a.ingest(events.down('web', 'inc-b', t0 + 10_000));
    sandbox.inject('push', { status: 429, headers: { 'retry-after': '120' }, times: 1 });
    await a.at(t0 + 121_000);
    // The second's hold ends 10 s later, and process b comes to it: it waits for the same push service's pause.
    const later = t0 + 131_000;
    for (const dash of [a, b]) dash.clock.advance(later - dash.clock.now());
    await a.ctx.notifications.inbox.tick();
    await b.ctx.notifications.pushes.drain();
    expect(sandbox.pushes()).toEqual([]);
    expect((await b.sends()).filter((send) => send.state === 'queued').map((send) => send.dueAt)).toEqual([t0 + 241_000, t0 + 241_000]);
    // Once the pause is over, b sends both.
    for (const dash of [a, b]) dash.clock.advance(t0 + 241_000 - dash.clock.now());
    await b.ctx.notifications.pushes.drain();
    expect(received().map((push) => push.payload.title)).toEqual(expect.arrayContaining(['Monitor down: api', 'Monitor down: web']));
  });

  it('sends each push once per device when two processes drain the same database', async () => {
    const a = await dashboard(t0);
    const b = await dashboard(t0, { dir: a.dir, credentialsKey: a.credentialsKey });
    await a.subscribe('Phone');
    await a.subscribe('Laptop');
    await a.ingest(...['x1', 'x2', 'x3', 'x4'].map((monitor) => events.down(monitor, `two-${monitor}`, t0)));
    a.clock.advance(121_000);
    b.clock.advance(121_000);
    await a.ctx.notifications.inbox.tick();
    await Promise.all([a.ctx.notifications.pushes.drain(), b.ctx.notifications.pushes.drain()]);
    expect(sandbox.pushes()).toHaveLength(8);
    expect(new Set(sandbox.pushes().map((push) => `${push.subscriptionId} ${(JSON.parse(push.payload) as { title: string }).title}`)).size).toBe(8);
  });

  it('sends once what a process claimed and died holding, after its claim runs out', async () => {
    const first = await dashboard(t0);
    await first.subscribe('Phone');
    // Its sender has not come to it yet (stopped here, so the tick's release does not wake it).
    await first.ctx.notifications.pushes.stop();
    await first.ingest(events.down('web', 'inc8', t0));
    first.clock.advance(121_000);
    await first.ctx.notifications.inbox.tick();
    // The process claims the push (as its sender does first) and dies before it reaches the push service.
    const [claimed] = await first.store.push.sends.claim('the-process-that-died', first.clock.now(), MINUTE, 10);
    expect(claimed?.delivery.message.title).toBe('Monitor down: web');
    await first.dispose({ keepFiles: true });

    const restarted = await dashboard(t0 + 121_000, { dir: first.dir, credentialsKey: first.credentialsKey });
    await restarted.at(t0 + 150_000);
    expect(sandbox.pushes()).toEqual([]);
    await restarted.at(t0 + 121_000 + MINUTE);
    await restarted.at(t0 + 10 * MINUTE);
    expect(sandbox.pushes()).toHaveLength(1);
    // The dead process's late answer (had it lived) changes nothing: it no longer holds the claim.
    await restarted.store.push.sends.settle(claimed?.id ?? '', 'the-process-that-died', { state: 'failed', attempts: 1, dueAt: 0, status: null, error: 'late', sentAt: null });
    expect((await restarted.sends())[0]).toMatchObject({ state: 'delivered', attempts: 1, error: null });
  });
});
