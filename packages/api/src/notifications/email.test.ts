import { randomUUID } from 'node:crypto';
import { sandboxEmail, sandboxTokens, sendgridError } from '@dash/sandbox';
import { describe, expect, it } from 'vitest';
import { deliveryTests, notificationsTo } from '../testing/delivery.ts';
import { EMAIL_RETRY_MS, EMAILS_PER_HOUR } from './email-sender.ts';
import { events } from './test-events.ts';

// The email channel of the notification policy, end to end: an outage held, then one email through the fake SendGrid;
// its recovery a reply in the same thread; retries, refusals, the hourly cap, two processes, quiet hours' digest.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

const { sandbox, dashboard: deliveryDashboard } = deliveryTests();

/** A dashboard with its own clock (the test ticks and drains), email pointing at the fake SendGrid unless `email` is off. */
async function dashboard(start: number, options: { dir?: string; email?: boolean; credentialsKey?: Buffer } = {}) {
  const { email: on, ...same } = options;
  const email =
    on === false
      ? {}
      : { SENDGRID_API_KEY: sandboxTokens.sendgrid, ALERT_EMAIL_FROM: sandboxEmail.from, ALERT_EMAIL_TO: 'founder@example.com', SENDGRID_API_URL: sandbox.services.sendgrid.url };
  const dash = await deliveryDashboard(start, {
    prefix: 'dash-email-',
    email,
    after: notificationsTo('emails'),
    ...same,
  });
  return { ...dash, sends: () => dash.store.emails.recent(100) };
}

const t0 = Date.parse('2026-11-25T10:00:00Z');

describe('email notifications', () => {
  it('emails an outage once after the hold, and its recovery as a reply in the same thread', async () => {
    const dash = await dashboard(t0);
    await dash.ingest(events.down('api.formfox.app <b>', 'inc1', t0));
    await dash.at(t0 + 30_000);
    expect(sandbox.mails()).toHaveLength(0);
    // Still down after the 120 s hold: one email (another poll bringing the same outage joins its thread).
    await dash.ingest({ ...events.down('api.formfox.app <b>', 'inc1', t0), id: randomUUID() });
    await dash.at(t0 + 121_000);
    await dash.at(t0 + 5 * MINUTE);
    expect(sandbox.mails()).toHaveLength(1);
    const [outage] = sandbox.mails();
    expect(outage).toMatchObject({ to: ['founder@example.com'], subject: '[ALERT] Monitor down: api.formfox.app <b>' });
    expect(outage?.html).toContain('Monitor down: api.formfox.app &lt;b&gt;');
    expect(outage?.html).not.toContain('<b>');
    expect(outage?.text).toContain('Monitor down: api.formfox.app <b>');

    await dash.ingest(events.up('api.formfox.app <b>', 'inc1', t0 + 20 * MINUTE));
    await dash.at(t0 + 20 * MINUTE);
    const [, recovery] = sandbox.mails();
    expect(recovery?.subject).toBe('Re: [ALERT] Monitor down: api.formfox.app <b>');
    expect(recovery?.text).toContain('Down 20 min, recovered');
    expect(recovery?.headers['In-Reply-To']).toBe(outage?.headers.References);
    expect(recovery?.headers.References).toBe(outage?.headers.References);

    const sends = await dash.sends();
    expect(sends.map((send) => [send.delivery.purpose, send.state, send.providerId])).toEqual([
      ['resolve', 'delivered', recovery?.messageId],
      ['first', 'delivered', outage?.messageId],
    ]);
    // The browser got its interruptions too; the stream never carries an email row.
    expect((await dash.caller.notifications.policy()).email).toEqual({ available: true, reason: null });
  });

  it('emails a metric alert with what else happened as lines of its own, escaped, and its return to range as a reply (issue 51)', async () => {
    const dash = await dashboard(t0);
    await dash.caller.projects.create({ slug: 'shop', name: 'Shop' });
    const alert = { integration: 'metrics' as const, subject: 'metric:shop:analytics.visitors', url: null, projectSlug: 'shop' };
    const lines = ['2 production deploys on Tue 24 Nov (latest: "<img src=x onerror=alert(1)> checkout")', 'Referrer news.ycombinator.com: 31 % of visitors, up from 2 %'];
    await dash.ctx.notifications.inbox.ingestOwn([
      { ...alert, sourceEventId: 'metric:r1:0:2026-11-25:open', type: 'metric.unusual', transition: 'trigger', severity: 'error', title: 'Visitors unusually low: 610 on a Wednesday, expected 1,020–1,340', occurredAt: iso(t0), context: lines },
    ]);
    await dash.at(t0 + MINUTE);
    const [mail] = sandbox.mails();
    expect(mail?.subject).toBe('[ALERT] Visitors unusually low: 610 on a Wednesday, expected 1,020–1,340');
    for (const line of lines) expect(mail?.text).toContain(line);
    expect(mail?.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(mail?.html).not.toContain('<img');

    dash.clock.advance(HOUR);
    await dash.ctx.notifications.inbox.ingestOwn([
      { ...alert, sourceEventId: 'metric:x:2026-11-26:resolved', type: 'metric.resolved', transition: 'resolve', lasted: 'Out of range for', severity: 'success', title: 'Visitors back in range: 1,100 (expected 1,020–1,340)', occurredAt: iso(dash.clock.now()) },
    ]);
    await dash.at(dash.clock.now());
    const [, back] = sandbox.mails();
    expect(back?.subject).toBe('Re: [ALERT] Visitors unusually low: 610 on a Wednesday, expected 1,020–1,340');
    expect(back?.text).toContain('Visitors back in range: 1,100 (expected 1,020–1,340)');
    expect(back?.text).toContain('Out of range for 1 h');
  });

  it('sends nothing for an outage that recovers within the hold', async () => {
    const dash = await dashboard(t0);
    await dash.ingest(events.down('web', 'inc2', t0));
    await dash.ingest(events.up('web', 'inc2', t0 + 60_000));
    await dash.at(t0 + 10 * MINUTE);
    expect(sandbox.mails()).toHaveLength(0);
    expect(await dash.sends()).toEqual([]);
  });

  it('opens no email channel while email is not set up', async () => {
    const dash = await dashboard(t0, { email: false });
    await dash.ingest(events.down('web', 'inc3', t0));
    await dash.at(t0 + 5 * MINUTE);
    expect(await dash.sends()).toEqual([]);
    const [row] = (await dash.caller.notifications.list({})).notifications;
    expect(row?.decision?.channels).not.toContain('email');
    expect((await dash.caller.notifications.policy()).email.available).toBe(false);
  });

  it('tries 429 and 5xx again at growing intervals, and fails a refusal at once with its reason', async () => {
    const dash = await dashboard(t0);
    sandbox.inject('sendgrid', { ...sendgridError(503, 'Service Unavailable'), times: 2 });
    await dash.ingest(events.down('web', 'inc4', t0));
    await dash.at(t0 + 121_000);
    let [send] = await dash.sends();
    expect(send).toMatchObject({ state: 'queued', attempts: 1, dueAt: t0 + 121_000 + (EMAIL_RETRY_MS[0] ?? 0), error: 'SendGrid refused the email (503): Service Unavailable' });
    await dash.at(t0 + 121_000 + (EMAIL_RETRY_MS[0] ?? 0));
    [send] = await dash.sends();
    expect(send).toMatchObject({ state: 'queued', attempts: 2, dueAt: t0 + 121_000 + (EMAIL_RETRY_MS[0] ?? 0) + (EMAIL_RETRY_MS[1] ?? 0) });
    await dash.at(t0 + HOUR);
    [send] = await dash.sends();
    expect(send).toMatchObject({ state: 'delivered', attempts: 3, error: null });
    expect(sandbox.mails()).toHaveLength(1);

    sandbox.reset();
    sandbox.inject('sendgrid', { ...sendgridError(403, 'The from address does not match a verified Sender Identity.', 'from') });
    await dash.ingest(events.down('docs', 'inc5', t0 + HOUR));
    await dash.at(t0 + HOUR + 121_000);
    const refused = (await dash.sends()).find((candidate) => candidate.delivery.message.title === 'Monitor down: docs');
    expect(refused).toMatchObject({ state: 'failed', attempts: 1, error: 'SendGrid refused the email (403): The from address does not match a verified Sender Identity.' });
    expect(sandbox.requestsTo('sendgrid', '/v3/mail/send')).toHaveLength(1);
    expect(JSON.stringify(await dash.sends())).not.toContain(sandboxTokens.sendgrid);
  });

  it(`sends at most ${EMAILS_PER_HOUR} an hour; the rest wait for a place`, async () => {
    const dash = await dashboard(t0);
    const monitors = Array.from({ length: EMAILS_PER_HOUR + 2 }, (_, i) => `m${i}`);
    await dash.ingest(...monitors.map((monitor) => events.down(monitor, `cap-${monitor}`, t0)));
    await dash.at(t0 + 121_000);
    expect(sandbox.mails()).toHaveLength(EMAILS_PER_HOUR);
    expect((await dash.sends()).filter((send) => send.state === 'queued')).toHaveLength(2);
    await dash.at(t0 + 121_000 + HOUR);
    expect(sandbox.mails()).toHaveLength(EMAILS_PER_HOUR + 2);
  });

  it('emails a recovery after its outage when the outage waits for a retry: the outage, then the reply (issue 48)', async () => {
    const dash = await dashboard(t0);
    await dash.ingest(events.down('api', 'inc1', t0));
    // The hold ends; SendGrid answers 503 and the outage is tried again a minute later.
    sandbox.inject('sendgrid', { ...sendgridError(503, 'Service Unavailable'), times: 1 });
    await dash.at(t0 + 121_000);
    await dash.ingest(events.up('api', 'inc1', t0 + 130_000));
    await dash.at(t0 + 130_000);
    expect(sandbox.mails()).toHaveLength(0);
    await dash.at(t0 + 185_000);
    await dash.at(t0 + 190_000);
    const [outage, recovery] = sandbox.mails();
    expect(sandbox.mails().map((mail) => mail.subject)).toEqual(['[ALERT] Monitor down: api', 'Re: [ALERT] Monitor down: api']);
    expect(recovery?.headers['In-Reply-To']).toBe(outage?.headers.References);
  });

  it('sends each email once when two processes drain the same database', async () => {
    const a = await dashboard(t0);
    const b = await dashboard(t0, { dir: a.dir, credentialsKey: a.credentialsKey });
    await a.ingest(...['x1', 'x2', 'x3', 'x4', 'x5'].map((monitor) => events.down(monitor, `two-${monitor}`, t0)));
    a.clock.advance(121_000);
    b.clock.advance(121_000);
    await a.ctx.notifications.inbox.tick();
    await Promise.all([a.ctx.notifications.emails.drain(), b.ctx.notifications.emails.drain()]);
    expect(sandbox.mails()).toHaveLength(5);
    expect(new Set(sandbox.mails().map((mail) => mail.subject)).size).toBe(5);
  });

  it('holds emails through quiet hours and sends one digest email when they end', async () => {
    const dash = await dashboard(Date.parse('2026-11-25T22:30:00Z'));
    await dash.caller.notifications.saveQuietHours({
      enabled: true,
      timezone: 'UTC',
      windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '22:00', end: '07:00' }],
    });
    // A warning-level error-tracker issue at night: it would email (a rule sends warnings there too), but it waits.
    await dash.caller.notifications.saveRules({
      rules: [{ id: 'w', name: 'Warnings by email', enabled: true, match: { integrations: ['error_tracker'] }, actions: { addChannels: ['email'] }, stop: false }],
    });
    const at = Date.parse('2026-11-25T23:10:00Z');
    await dash.ingest({
      id: randomUUID(),
      integration: 'error_tracker',
      type: 'error.issue_created',
      sourceEventId: 'sentry:issue:1:created',
      title: 'TypeError in checkout',
      severity: 'warning',
      occurredAt: iso(at),
      receivedAt: iso(at),
      subject: 'sentry:issue:1',
      transition: 'trigger',
    });
    await dash.at(at + MINUTE);
    expect(sandbox.mails()).toHaveLength(0);
    await dash.at(Date.parse('2026-11-26T07:00:00Z'));
    expect(sandbox.mails()).toHaveLength(1);
    expect(sandbox.mails()[0]?.text).toContain('TypeError in checkout');
    expect((await dash.sends())[0]?.delivery.purpose).toBe('digest');

    // Its recovery: the digest told of it, so the recovery is emailed, but as a message of its own: the outage's own
    // email was never sent, so there is nothing to reply to (no "Re:", no In-Reply-To).
    await dash.ingest({
      id: randomUUID(),
      integration: 'error_tracker',
      type: 'error.issue_resolved',
      sourceEventId: 'sentry:issue:1:resolved',
      title: 'TypeError in checkout resolved',
      severity: 'success',
      occurredAt: '2026-11-26T08:00:00.000Z',
      receivedAt: '2026-11-26T08:00:00.000Z',
      subject: 'sentry:issue:1',
      transition: 'resolve',
    });
    await dash.at(Date.parse('2026-11-26T08:00:00Z'));
    const recovery = sandbox.mails()[1];
    expect(recovery?.subject).toBe('[RECOVERED] TypeError in checkout resolved');
    expect(recovery?.headers['In-Reply-To']).toBeUndefined();
  });

  it('emails no recovery of an issue read in the app before its digest: the founder was never told of it by email', async () => {
    const dash = await dashboard(Date.parse('2026-11-25T22:30:00Z'));
    await dash.caller.notifications.saveQuietHours({ enabled: true, timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '22:00', end: '07:00' }] });
    await dash.caller.notifications.saveRules({
      rules: [{ id: 'w', name: 'Warnings by email', enabled: true, match: { integrations: ['error_tracker'] }, actions: { addChannels: ['email'] }, stop: false }],
    });
    await dash.ingest({ ...events.issue('7', Date.parse('2026-11-25T23:10:00Z')) });
    await dash.caller.notifications.markRead({ all: true });
    await dash.at(Date.parse('2026-11-26T07:00:00Z'));
    await dash.ingest(events.issue('7', Date.parse('2026-11-26T08:00:00Z'), 'resolved'));
    await dash.at(Date.parse('2026-11-26T08:00:00Z'));
    expect(sandbox.mails()).toEqual([]);
    expect(await dash.sends()).toEqual([]);
  });
});
