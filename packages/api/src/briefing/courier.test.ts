import type { BriefingDestination } from '@dash/contracts';
import { demoSetup, demoUpstreamsOf } from '@dash/sandbox';
import { describe, expect, it } from 'vitest';
import type { Identity } from '../auth/access.ts';
import { handleRest } from '../rest/index.ts';
import { createCaller } from '../root.ts';
import { startDemo } from '../router/demo.ts';
import { deliveryTests } from '../testing/delivery.ts';

// The briefing on the chat connections (issue 52), end to end over the demo's sandbox and the sandbox's Slack and
// Telegram: each destination at its own time in the owner's zone, once however many processes look, across a
// daylight-saving change; a late one sent up to six hours late, a later one skipped and said so; the send-now route's
// guard, limit and errors.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const { sandbox, dashboard: deliveryDashboard, slackHook, chatAtSandbox } = deliveryTests();

/** A dashboard process over `dir` (a second one shares the first's), its scheduler ticked by the test. */
async function dashboard(start: Parameters<typeof deliveryDashboard>[0], dir?: string) {
  const dash = await deliveryDashboard(start, {
    prefix: 'dash-courier-',
    ...(dir ? { dir } : {}),
    credentialsKey: Buffer.alloc(32, 7),
    // The fake push service is on 127.0.0.1, and push services need a contact.
    email: { ALERT_EMAIL_TO: 'founder@example.com' },
    push: { PUSH_ALLOW_PRIVATE_ENDPOINTS: true },
    demo: { setup: () => Promise.resolve(demoSetup(demoUpstreamsOf(sandbox))) },
    rateLimits: { revenuecat: { limit: 1_000, windowMs: MINUTE } },
    chat: chatAtSandbox(),
    // Moving the clock lets the courier look.
    after: (ctx) => ctx.briefingCourier.tick(),
  });
  return {
    ...dash,
    async destination(id: string): Promise<BriefingDestination | undefined> {
      return (await dash.ctx.briefingCourier.destinations()).destinations.find((d) => d.id === id);
    },
  };
}

async function withSlackAndTelegram(dash: Awaited<ReturnType<typeof dashboard>>) {
  await startDemo(dash.ctx);
  const slack = (await dash.add({ name: '#founders', destination: { kind: 'slack', webhookUrl: slackHook('#founders').pasted } })).connection;
  const bot = sandbox.createTelegramBot();
  const chat = sandbox.createTelegramChat('supergroup', 'Founders');
  const telegram = (await dash.add({ name: 'Founders group', destination: { kind: 'telegram', botToken: bot.token, chatId: String(chat.id) } })).connection;
  return { slack: `chat:${slack.id}`, telegram: `chat:${telegram.id}` };
}

const monday = Date.parse('2026-11-30T07:00:00Z');

describe('the briefing on a schedule per destination', () => {
  it('goes to each destination at its own time, once, however many processes look; the next is listed', async () => {
    const a = await dashboard(monday);
    const { slack, telegram } = await withSlackAndTelegram(a);
    const b = await dashboard(a.clock, a.dir);
    await a.ctx.briefingCourier.save(slack, { cadence: { every: 'day', time: '08:00' }, parts: ['needs_you', 'figures'] });
    await a.ctx.briefingCourier.save(telegram, { cadence: { every: 'week', day: 'mon', time: '09:30' }, parts: ['needs_you', 'figures', 'shipped', 'reviews', 'metric_alerts'] });

    await a.at(monday + 59 * MINUTE);
    expect(sandbox.slackMessages()).toEqual([]);
    // 08:00 UTC (the owner's zone is their quiet hours', UTC here): both processes look at once; one sends.
    a.clock.advance(HOUR + 30_000 - 59 * MINUTE);
    await Promise.all([a.ctx.briefingCourier.tick(), b.ctx.briefingCourier.tick(), a.ctx.briefingCourier.tick()]);
    expect(sandbox.slackMessages()).toHaveLength(1);
    expect(sandbox.telegramMessages()).toEqual([]);
    const [posted] = sandbox.slackMessages();
    expect(JSON.stringify(posted?.body)).toContain('Pocket Ledger');

    await a.at(monday + 2.5 * HOUR + MINUTE);
    await b.at(monday + 2.5 * HOUR + 2 * MINUTE);
    expect(sandbox.slackMessages()).toHaveLength(1);
    const telegrams = sandbox.telegramMessages().length;
    expect(telegrams).toBeGreaterThan(0);
    // A restart: a new process over the same store sends nothing again.
    const c = await dashboard(a.clock, a.dir);
    await c.at(monday + 3 * HOUR);
    expect([sandbox.slackMessages().length, sandbox.telegramMessages().length]).toEqual([1, telegrams]);

    expect(await a.destination(slack)).toMatchObject({
      cadence: { every: 'day', time: '08:00' },
      nextAt: '2026-12-01T08:00:00.000Z',
      last: { date: '2026-11-30', period: 'day', status: 'sent', posted: 1, messages: 1, error: null },
    });
    expect(await a.destination(telegram)).toMatchObject({ nextAt: '2026-12-07T09:30:00.000Z', last: { period: 'week', status: 'sent', posted: telegrams, messages: telegrams } });
    // The next day's goes the next day.
    await a.at(Date.parse('2026-12-01T08:00:10Z'));
    expect(sandbox.slackMessages()).toHaveLength(2);
  });

  it('pushes a one-line briefing to a device, which opens the briefing', async () => {
    const dash = await dashboard(monday);
    await startDemo(dash.ctx);
    const device = `push:${(await dash.subscribe('Phone')).deviceId}`;
    await dash.ctx.briefingCourier.save(device, { cadence: { every: 'day', time: '08:00' }, parts: ['needs_you', 'figures'] });
    await dash.at(monday + HOUR + 10_000);
    const pushes = sandbox.pushes().map((push) => ({ payload: JSON.parse(push.payload) as Record<string, unknown>, ttl: push.ttl }));
    expect(pushes).toEqual([{ payload: expect.objectContaining({ kind: 'digest', tag: 'briefing-day', url: '/briefing', body: expect.stringMatching(/products?/) }), ttl: 12 * 3_600 }]);
    expect((await dash.destination(device))?.last).toMatchObject({ status: 'sent', posted: 1 });
  });

  it('keeps a weekly time across a daylight-saving change in the owner’s zone', async () => {
    const before = Date.parse('2026-03-22T06:30:00Z');
    const dash = await dashboard(before);
    const { slack } = await withSlackAndTelegram(dash);
    await dash.ctx.notifications.inbox.policy.save({ quietHours: { enabled: false, timezone: 'Europe/Berlin', windows: [] } });
    await dash.ctx.briefingCourier.save(slack, { cadence: { every: 'week', day: 'sun', time: '08:00' }, parts: ['figures'] });
    // Sunday 22 March: 08:00 CET is 07:00 UTC.
    await dash.at(Date.parse('2026-03-22T06:59:00Z'));
    expect(sandbox.slackMessages()).toHaveLength(0);
    await dash.at(Date.parse('2026-03-22T07:00:30Z'));
    expect(sandbox.slackMessages()).toHaveLength(1);
    // Sunday 29 March, clocks gone forward: 08:00 CEST is 06:00 UTC.
    expect((await dash.destination(slack))?.nextAt).toBe('2026-03-29T06:00:00.000Z');
    await dash.at(Date.parse('2026-03-29T05:59:00Z'));
    expect(sandbox.slackMessages()).toHaveLength(1);
    await dash.at(Date.parse('2026-03-29T06:00:30Z'));
    expect(sandbox.slackMessages()).toHaveLength(2);
  });

  it('sends one up to six hours late when the dashboard was off at its time; later, skips it and says so', async () => {
    const sunday = monday - DAY;
    const dash = await dashboard(sunday);
    const { slack } = await withSlackAndTelegram(dash);
    await dash.ctx.briefingCourier.save(slack, { cadence: { every: 'day', time: '08:00' }, parts: ['needs_you'] });
    // Off from Sunday until Monday 13:30: five and a half hours late, it goes.
    await dash.at(monday + 6.5 * HOUR);
    expect(sandbox.slackMessages()).toHaveLength(1);
    // Off again until Tuesday 14:30: six and a half hours late, skipped, and the destination says why.
    await dash.at(monday + DAY + 7.5 * HOUR);
    expect(sandbox.slackMessages()).toHaveLength(1);
    expect((await dash.destination(slack))?.last).toMatchObject({ date: '2026-12-01', status: 'skipped', error: expect.stringContaining('more than 6 hours late') });
    expect((await dash.destination(slack))?.nextAt).toBe('2026-12-02T08:00:00.000Z');
  });

  it('tries a briefing the service answered 5xx again later, and sends it once', async () => {
    const dash = await dashboard(monday);
    const { slack } = await withSlackAndTelegram(dash);
    await dash.ctx.briefingCourier.save(slack, { cadence: { every: 'day', time: '08:00' }, parts: ['needs_you', 'figures'] });
    sandbox.inject('slack', { status: 503, body: 'service_unavailable', times: 1 });
    await dash.at(monday + HOUR + 10_000);
    expect(sandbox.slackMessages()).toEqual([]);
    expect((await dash.destination(slack))?.last).toMatchObject({ status: 'failed', posted: 0, error: expect.stringContaining('503') });
    // Not again before its retry (10 minutes), then once.
    await dash.at(monday + HOUR + 5 * MINUTE);
    expect(sandbox.slackMessages()).toEqual([]);
    await dash.at(monday + HOUR + 11 * MINUTE);
    await dash.at(monday + HOUR + 12 * MINUTE);
    expect(sandbox.slackMessages()).toHaveLength(1);
    expect((await dash.destination(slack))?.last).toMatchObject({ status: 'sent', posted: 1, error: null });
  });

  it('never sends a time that had passed when the schedule was saved', async () => {
    const dash = await dashboard(monday + 2 * HOUR);
    const { slack } = await withSlackAndTelegram(dash);
    await dash.ctx.briefingCourier.save(slack, { cadence: { every: 'day', time: '08:00' }, parts: ['needs_you'] });
    await dash.at(monday + 2 * HOUR + MINUTE);
    expect(sandbox.slackMessages()).toEqual([]);
    expect((await dash.destination(slack))?.nextAt).toBe('2026-12-01T08:00:00.000Z');
  });
});

describe('the destinations over the API', () => {
  it('lists every connection; saving and sending now are the owner’s, once a minute; bad input is a 400 and stores nothing', async () => {
    const dash = await dashboard(monday);
    const { slack } = await withSlackAndTelegram(dash);
    const listed = await dash.call('GET', '/api/briefing/destinations');
    expect(listed.status).toBe(200);
    expect((listed.json as { destinations: BriefingDestination[] }).destinations.map((d) => [d.medium, d.name, d.cadence.every]).sort()).toEqual([
      ['slack', '#founders', 'off'],
      ['telegram', 'Founders group', 'off'],
    ]);

    const bad = await dash.call('PUT', `/api/briefing/destinations/${slack}`, { cadence: { every: 'week', time: '25:00' }, parts: [] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toMatch(/time|day|parts/);
    const unknown = await dash.call('PUT', '/api/briefing/destinations/chat:nope', { cadence: { every: 'off' }, parts: ['figures'] });
    expect(unknown.status).toBe(400);
    expect(((await dash.call('GET', '/api/briefing/destinations')).json as { destinations: BriefingDestination[] }).destinations.every((d) => d.cadence.every === 'off')).toBe(true);

    // Tokens read the list; even a write token neither schedules the founder's figures to a chat nor sends them there.
    const as = (identity: Identity) => (method: string, path: string, body?: unknown) =>
      handleRest(new Request(`http://dash.test${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) }), createCaller({ ...dash.ctx, request: { identity, ip: '127.0.0.1', userAgent: undefined } }));
    const writer = as({ via: 'token', scope: 'write', tokenId: 'tok-write' });
    expect((await as({ via: 'token', scope: 'read', tokenId: 'tok-read' })('GET', '/api/briefing/destinations')).status).toBe(200);
    expect((await writer('PUT', `/api/briefing/destinations/${slack}`, { cadence: { every: 'day', time: '18:00' }, parts: ['figures'] })).status).toBe(403);
    expect((await writer('POST', '/api/briefing/send', { destination: slack })).status).toBe(403);
    expect(sandbox.slackMessages()).toEqual([]);

    const saved = await dash.call('PUT', `/api/briefing/destinations/${slack}`, { cadence: { every: 'day', time: '18:00' }, parts: ['figures'] });
    expect(saved.status).toBe(200);
    expect((await dash.destination(slack))?.cadence).toEqual({ every: 'day', time: '18:00' });

    const sent = await dash.call('POST', '/api/briefing/send', { destination: slack });
    expect([sent.status, sent.json]).toEqual([200, { destination: slack, posted: 1, messages: 1 }]);
    expect(sandbox.slackMessages()).toHaveLength(1);
    const again = await dash.call('POST', '/api/briefing/send', { destination: slack });
    expect(again.status).toBe(429);
    // The email is a destination too, once email is set up (not here): a 400 that says so.
    const email = await dash.call('POST', '/api/briefing/send', { destination: 'email' });
    expect([email.status, JSON.stringify(email.json)]).toEqual([400, expect.stringContaining('email is not set up')]);
    expect(sandbox.slackMessages()).toHaveLength(1);
  });
});
