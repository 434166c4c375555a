import { beforeAll, describe, expect, it } from 'vitest';
import { briefingEmailSchema, briefingSettingsSchema, type BriefingSchedule, type BriefingScheduleInput } from '@dash/contracts';
import { systemClock } from '@dash/connectors';
import { testClock } from '@dash/connectors/testing';
import { PG_SERVER, postgresProblem, scratchPostgres } from '@dash/db/testing';
import { demoSetup, demoUpstreamsOf, sandboxTokens, sendgridError } from '@dash/sandbox';
import { handleRest } from '../rest/index.ts';
import { startDemo } from '../router/demo.ts';
import { createTestApi, restClient } from '../testing.ts';
import { deliveryTests } from '../testing/delivery.ts';
import { BRIEFING_ATTEMPTS } from './mailer.ts';

// The briefing email over the demo's sandbox (its SendGrid connection points at the fake SendGrid) with an injected
// clock: exactly one email per scheduled day from two dashboard processes on one database and across a restart at the
// send time, counted at the fake; the pause suppresses it and quiet hours do not; turning it on without SendGrid is a
// 400 that stores nothing; the preview is what is sent; a failed send is recorded and tried again only a few times.

type Api = Awaited<ReturnType<typeof createTestApi>>;
type Clock = ReturnType<typeof testClock>;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ORIGIN = 'https://dash.example.com';
const everyDay: BriefingSchedule['days'] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

const { sandbox, cleanup } = deliveryTests();

beforeAll(() => {
  // The refresh before each email asks RevenueCat eight times; its real limit (5 a minute) would make the fake clock
  // jump through back-offs. Here it never holds the test up, so the clock stands still while the email is written.
  sandbox.limit('revenuecat', { limit: 1_000, windowMs: MINUTE });
});

/**
 * A dashboard process with no scheduler of its own (the test calls `ctx.briefing.tick()` at the instants it wants),
 * the backup's delays at zero, and its public address known (the email's links are absolute).
 */
async function dashboard(options: Parameters<typeof createTestApi>[0] & { clock: Clock }) {
  const api = await createTestApi({
    scheduler: false,
    demo: { setup: () => Promise.resolve(demoSetup(demoUpstreamsOf(sandbox))) },
    backup: { delays: { revenue: 0, storefront: 0, other: 0 } },
    rateLimits: { revenuecat: { limit: 1_000, windowMs: MINUTE } },
    access: { mode: 'local', origin: ORIGIN },
    ...options,
  });
  // The notification emails the demo's events queue are another sender's: stopped, so the fake SendGrid counts briefings.
  await api.ctx.notifications.emails.stop();
  // A second process in the same directory leaves the shared SQLite file to the first.
  cleanup(() => (stopped.has(api) ? Promise.resolve() : api.dispose({ keepFiles: options.dir !== undefined })));
  return api;
}

const stopped = new WeakSet<Api>();
/** A process stops (its files stay: another process uses them). */
async function stop(api: Api) {
  stopped.add(api);
  await api.dispose({ keepFiles: true });
}

async function withDemo(clock: Clock, options: Omit<Parameters<typeof createTestApi>[0], 'clock'> = {}) {
  const api = await dashboard({ ...options, clock });
  await startDemo(api.ctx);
  await api.ctx.notifications.emails.stop();
  sandbox.reset();
  return api;
}

/**
 * A schedule whose time comes two to three minutes after the clock's now, that instant, and the local day it sends for.
 * Its time zone is a fixed offset that puts the send at about 08:00 local, so the hours a test then moves through stay
 * inside that day whatever the hour the suite runs at (in UTC, a run at 22:00 would see the day end three hours on).
 */
function soon(clock: Clock): { schedule: BriefingScheduleInput; sendAt: number; date: string; dayOf: (ms: number) => string } {
  const sendAt = Math.floor((clock.now() + 3 * MINUTE) / MINUTE) * MINUTE;
  // Hours east of UTC, within the -12..+14 the Etc zones cover.
  let east = (((8 - new Date(sendAt).getUTCHours()) % 24) + 24) % 24;
  if (east > 14) east -= 24;
  // Etc/GMT names count the other way: Etc/GMT-3 is three hours east.
  const timezone = east === 0 ? 'UTC' : `Etc/GMT${east > 0 ? '-' : '+'}${Math.abs(east)}`;
  const local = (ms: number) => new Date(ms + east * HOUR).toISOString();
  const dayOf = (ms: number) => local(ms).slice(0, 10);
  return { schedule: { enabled: true, time: local(sendAt).slice(11, 16), timezone, days: everyDay }, sendAt, date: dayOf(sendAt), dayOf };
}

const iso = (ms: number) => new Date(ms).toISOString();
const mailParts = (mail: { subject: string; html: string; text: string } | undefined) => ({ subject: mail?.subject, html: mail?.html, text: mail?.text });
const sendgridPosts = () => sandbox.requestsTo('sendgrid', '/v3/mail/send').length;

const pgProblem = await postgresProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): the briefing email's two processes are tested on SQLite only. ***\n`);

describe.for([
  { kind: 'SQLite file', skip: false },
  { kind: 'Postgres database', skip: pgProblem !== undefined && !inCI },
])('two dashboard processes on one $kind', ({ kind, skip }) => {
  it.skipIf(skip)('send exactly one email for the day, and a restart at the send time sends none', async () => {
    // Started a little behind, so that at the send time it agrees with the sandbox's own clock (App Store Connect's
    // fake refuses a token issued in its future, and this test holds the refresh to no failures).
    const clock = testClock(Date.now() - 4 * MINUTE);
    let databaseUrl: string | undefined;
    if (kind === 'Postgres database') {
      const scratch = await scratchPostgres();
      databaseUrl = scratch.url;
      // Dropped after both dashboards are gone (cleanup runs last-in first-out).
      cleanup(() => scratch.drop());
    }
    const shared = (a: Api) => (databaseUrl ? { databaseUrl, credentialsKey: a.credentialsKey } : { dir: a.dir, credentialsKey: a.credentialsKey });
    const a = await withDemo(clock, databaseUrl ? { databaseUrl } : {});
    const b = await dashboard({ clock, ...shared(a) });
    const { schedule, sendAt, date } = soon(clock);
    const saved = await a.caller.briefing.saveSchedule(schedule);
    expect(saved).toMatchObject({ schedule, emailAvailable: true, nextSendAt: iso(sendAt), lastSent: null });
    expect(await b.caller.briefing.settings()).toEqual(saved);

    // Before its time: nothing.
    expect(await Promise.all([a.ctx.briefing.tick(), b.ctx.briefing.tick()])).toEqual([{ action: 'waiting' }, { action: 'waiting' }]);
    clock.advance(sendAt - clock.now());

    // Both wake at the send time: one sends, the other finds the lease taken (or, if it looks after, the day done).
    const outcomes = await Promise.all([a.ctx.briefing.tick(), b.ctx.briefing.tick()]);
    expect(outcomes.filter((outcome) => outcome.action === 'sent')).toHaveLength(1);
    expect(outcomes.map((outcome) => outcome.action).filter((action) => action !== 'sent')).toEqual([expect.stringMatching(/^(busy|done)$/)]);
    expect(sandbox.mails()).toHaveLength(1);
    const [mail] = sandbox.mails();
    expect(mail?.subject).toMatch(/^Briefing for /);
    expect(mail?.html).toContain(`href="${ORIGIN}/briefing"`);

    // Every later look that day does nothing, in either process.
    expect(await a.ctx.briefing.tick()).toEqual({ action: 'done', date });
    expect(await b.ctx.briefing.tick()).toEqual({ action: 'done', date });

    // The one that did not send restarts at the send time: its new process sees the record and does nothing.
    const sender = outcomes[0]?.action === 'sent' ? a : b;
    const other = sender === a ? b : a;
    await stop(other);
    const restarted = await dashboard({ clock, ...shared(a) });
    expect(await restarted.ctx.briefing.tick()).toEqual({ action: 'done', date });
    clock.advance(30 * MINUTE);
    expect(await restarted.ctx.briefing.tick()).toEqual({ action: 'done', date });
    expect(sandbox.mails()).toHaveLength(1);
    expect(sendgridPosts()).toBe(1);

    // The record: sent, for the window it covered; the next is tomorrow at the same time.
    const settings = briefingSettingsSchema.parse(await restarted.caller.briefing.settings());
    expect(settings.lastSent).toEqual({ at: iso(sendAt), until: iso(sendAt), status: 'sent', error: null });
    expect(settings.nextSendAt).toBe(iso(sendAt + DAY));
    // Its numbers were refreshed first through the backup's lanes, and the app's own briefing is still unread.
    expect((await restarted.caller.backup.status()).last).toMatchObject({ trigger: 'briefing', startedAt: iso(sendAt), failed: 0 });
    expect((await restarted.caller.briefing.get({})).unread).toBe(true);

    // The next day, one more, covering the day since the last one.
    clock.advance(sendAt + DAY - clock.now());
    const next = await Promise.all([sender.ctx.briefing.tick(), restarted.ctx.briefing.tick()]);
    expect(next.filter((outcome) => outcome.action === 'sent')).toHaveLength(1);
    expect(sandbox.mails()).toHaveLength(2);
    // Four dashboards, a demo and two refreshes through every connector: a loaded machine has taken over 20 s on Postgres.
  }, 60_000);
});

describe('a weekly email, its parts, and a missed day', () => {
  it('covers the week before with only the chosen parts; a day the dashboard missed by over 6 hours is skipped and said so', async () => {
    const clock = testClock(Date.now() - 4 * MINUTE);
    const api = await withDemo(clock);
    const { schedule, sendAt, date } = soon(clock);
    await api.caller.briefing.saveSchedule({ ...schedule, period: 'week', parts: ['needs_you', 'shipped'] });
    clock.advance(sendAt - clock.now());
    expect(await api.ctx.briefing.tick()).toMatchObject({ action: 'sent', date });
    const [mail] = sandbox.mails();
    expect(mail?.text).toContain('Your weekly briefing');
    // The window is the week before the send, and only what shipped (with what needs you) is in it: no figures, reviews or alerts.
    expect(mail?.subject).toMatch(/week/i);
    expect(mail?.text).not.toMatch(/\n(Revenue|Visitors|Errors|Uptime|Funding|Bugs|Reviews): /);
    expect(mail?.text).toMatch(/\nShipped: /);
    expect((await api.caller.briefing.settings()).schedule).toMatchObject({ period: 'week', parts: ['needs_you', 'shipped'] });

    // Off for the next day's time and 7 hours after: that day's is not sent late, and the settings say why.
    clock.advance(DAY + 7 * HOUR);
    expect(await api.ctx.briefing.tick()).toMatchObject({ action: 'skipped' });
    expect(await api.ctx.briefing.tick()).toEqual({ action: 'waiting' });
    expect(sandbox.mails()).toHaveLength(1);
    const { lastSent } = await api.caller.briefing.settings();
    expect(lastSent).toMatchObject({ status: 'skipped', error: expect.stringContaining('more than 6 hours late') });
  }, 60_000);
});

describe('the pause and quiet hours', () => {
  it('the pause suppresses the day it covers (not sent after it ends either); quiet hours do not', async () => {
    const clock = testClock();
    const api = await withDemo(clock);
    const { schedule, sendAt, date } = soon(clock);
    await api.caller.briefing.saveSchedule(schedule);
    // Quiet hours all day, every day: the briefing is what was asked for at that hour, so they do not hold it.
    await api.caller.notifications.saveQuietHours({ enabled: true, timezone: 'UTC', windows: [{ days: everyDay, start: '00:00', end: '24:00' }] });
    await api.caller.notifications.pause({ until: iso(sendAt + 2 * HOUR) });

    clock.advance(sendAt - clock.now());
    expect(await api.ctx.briefing.tick()).toEqual({ action: 'paused', date });
    clock.advance(3 * HOUR);
    expect(await api.ctx.briefing.tick()).toEqual({ action: 'done', date });
    expect(sandbox.mails()).toHaveLength(0);
    expect((await api.caller.briefing.settings()).lastSent).toBeNull();

    // The pause over, the next day's goes out, quiet hours and all.
    clock.advance(sendAt + DAY - clock.now());
    expect(await api.ctx.briefing.tick()).toMatchObject({ action: 'sent' });
    expect(sandbox.mails()).toHaveLength(1);
  });
});

describe('PUT /api/briefing/schedule', () => {
  it('refuses to turn the email on before SendGrid is set up: a 400 naming `enabled`, and nothing stored changes', async () => {
    const clock = testClock();
    const api = await dashboard({ clock, demo: undefined });
    const call = restClient(() => api.caller);
    const before = await call('GET', '/api/briefing/settings');
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({ emailAvailable: false, schedule: { enabled: false }, nextSendAt: null, lastSent: null });

    const refused = await call('PUT', '/api/briefing/schedule', { enabled: true, time: '07:30', timezone: 'Europe/Berlin', days: ['mon', 'fri'] });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { code: 'BAD_REQUEST', issues: [{ path: ['enabled'], message: expect.stringContaining('SendGrid') }] } });
    expect((await call('GET', '/api/briefing/settings')).json).toEqual(before.json);
    expect((await api.store.meta.get('briefing.schedule')) ?? null).toBeNull();
    expect((await api.store.meta.get('briefing.schedule.savedAt')) ?? null).toBeNull();

    // Bad input names its fields; nothing is stored either.
    const bad = await call('PUT', '/api/briefing/schedule', { enabled: false, time: '24:00', timezone: 'Mars/Olympus', days: [] });
    expect(bad.status).toBe(400);
    const paths = (bad.json.error as { issues: { path: string[] }[] }).issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['time', 'timezone', 'days']));
    const extra = await call('PUT', '/api/briefing/schedule', { enabled: false, time: '07:30', timezone: 'UTC', days: ['mon'], to: 'someone@else.example' });
    expect(extra.status).toBe(400);
    expect((await api.store.meta.get('briefing.schedule')) ?? null).toBeNull();

    // Off, it may be saved (the time and days wait for email); nothing is ever due.
    const off = await call('PUT', '/api/briefing/schedule', { enabled: false, time: '07:30', timezone: 'Europe/Berlin', days: ['mon', 'fri'] });
    expect(off.status).toBe(200);
    expect(off.json).toMatchObject({ schedule: { enabled: false, time: '07:30', timezone: 'Europe/Berlin', days: ['mon', 'fri'] }, nextSendAt: null });
    expect(await api.ctx.briefing.tick()).toEqual({ action: 'off' });
    // The test send says email is not set up, and sends nothing.
    expect(await call('POST', '/api/briefing/test')).toMatchObject({ status: 200, json: { configured: false } });
  });
});

describe('the preview', () => {
  it('is what the test send and the scheduled send deliver, and is served as HTML on its own', async () => {
    const clock = testClock();
    const api = await withDemo(clock);
    const call = restClient(() => api.caller);
    const preview = briefingEmailSchema.parse((await call('GET', '/api/briefing/preview')).json);
    expect(preview.html).toContain('<table role="presentation"');
    expect(preview.text).toContain(`Open it on the dashboard: ${ORIGIN}/briefing`);

    const test = await call('POST', '/api/briefing/test');
    expect(test.status).toBe(200);
    const [tested] = sandbox.mails();
    expect(test.json).toEqual({ sent: true, id: tested?.messageId });
    expect(mailParts(tested)).toEqual(preview);
    // A test send is not the day's email: nothing recorded, the window of the next one unchanged.
    expect((await api.caller.briefing.settings()).lastSent).toBeNull();

    const page = await handleRest(new Request(`http://dash.test/api/briefing/preview.html`), api.caller);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toBe(preview.html);

    // The `email` destination's "send now" is the same send, under the same one-a-minute limit.
    expect((await call('POST', '/api/briefing/send', { destination: 'email' })).status).toBe(429);
    clock.advance(61_000);
    const now = await call('POST', '/api/briefing/send', { destination: 'email' });
    expect([now.status, now.json]).toEqual([200, { destination: 'email', posted: 1, messages: 1 }]);
    expect(sandbox.mails().map((mail) => mail.subject)).toEqual([preview.subject, preview.subject]);

    // The scheduled one refreshes every source first, then sends: the preview asked at that same instant (from the
    // data the refresh just cached) is what went out. Asked before the refresh it could differ, and rightly: the
    // sandbox answers on the real clock, so an item can cross the edge of a window between the two fetches.
    const { schedule, sendAt } = soon(clock);
    await api.caller.briefing.saveSchedule(schedule);
    clock.advance(sendAt - clock.now());
    sandbox.reset();
    expect(await api.ctx.briefing.tick()).toMatchObject({ action: 'sent' });
    expect(sandbox.requests.some((request) => request.service !== 'sendgrid')).toBe(true);
    const atSendTime = briefingEmailSchema.parse((await call('GET', '/api/briefing/preview')).json);
    expect(mailParts(sandbox.mails()[0])).toEqual(atSendTime);
  });
});

describe('a failed send', () => {
  it("is recorded with SendGrid's reason (never the key) and tried again only a few times that day", async () => {
    const clock = testClock();
    const api = await withDemo(clock);
    const { schedule, sendAt, date, dayOf } = soon(clock);
    await api.caller.briefing.saveSchedule(schedule);
    sandbox.inject('sendgrid', sendgridError(503, 'Service Unavailable'));
    clock.advance(sendAt - clock.now());

    const first = await api.ctx.briefing.tick();
    expect(first).toMatchObject({ action: 'failed', date, error: expect.stringContaining('503') });
    const settings = await api.caller.briefing.settings();
    expect(settings.lastSent).toMatchObject({ status: 'failed', error: expect.stringContaining('Service Unavailable') });
    const retryAt = Date.parse(settings.nextSendAt ?? '');
    expect(retryAt).toBeGreaterThan(clock.now());
    // Not before its retry time.
    expect(await api.ctx.briefing.tick()).toEqual({ action: 'done', date });

    let ticks = 1;
    for (let i = 0; i < 10; i++) {
      const next = Date.parse((await api.caller.briefing.settings()).nextSendAt ?? '');
      if (dayOf(next) !== date) break;
      clock.advance(next - clock.now());
      expect(await api.ctx.briefing.tick()).toMatchObject({ action: 'failed' });
      ticks += 1;
    }
    expect(ticks).toBe(BRIEFING_ATTEMPTS);
    const posts = sendgridPosts();
    // Each attempt is SendGrid's own few tries at most (429/5xx), and then the day is over.
    expect(posts).toBeGreaterThanOrEqual(BRIEFING_ATTEMPTS);
    expect(posts).toBeLessThanOrEqual(BRIEFING_ATTEMPTS * 3);
    clock.advance(2 * HOUR);
    expect(await api.ctx.briefing.tick()).toEqual({ action: 'done', date });
    expect(sendgridPosts()).toBe(posts);
    expect((await api.caller.briefing.settings()).nextSendAt).toBe(iso(sendAt + DAY));

    const said = JSON.stringify(await api.caller.briefing.settings()) + api.log.lines.join('\n');
    expect(said).not.toContain(sandboxTokens.sendgrid);
    expect(sandbox.mails()).toHaveLength(0);

    // A refusal that will not change by itself (an unverified sender) is not tried again that day.
    sandbox.reset();
    sandbox.inject('sendgrid', sendgridError(403, 'The from address does not match a verified Sender Identity.'));
    clock.advance(sendAt + DAY - clock.now());
    expect(await api.ctx.briefing.tick()).toMatchObject({ action: 'failed', error: expect.stringContaining('verified Sender Identity') });
    expect((await api.caller.briefing.settings()).nextSendAt).toBe(iso(sendAt + 2 * DAY));
    expect(sendgridPosts()).toBe(1);
  });
});

describe('a process that died while sending', () => {
  it('leaves a day marked `sending`, which is not sent again (SendGrid may have taken it) and says why', async () => {
    const clock = testClock();
    const api = await withDemo(clock);
    const { schedule, sendAt, date } = soon(clock);
    await api.caller.briefing.saveSchedule(schedule);
    clock.advance(sendAt - clock.now());
    // What a process writes just before asking SendGrid, left behind as it died (its lease ran out since).
    await api.store.meta.put('briefing.email', {
      days: { [date]: { status: 'sending', attempts: 1, at: sendAt, until: iso(sendAt), id: null, error: null, retryAt: null } },
      lastSent: null,
      deliveredUntil: null,
    });
    expect(await api.ctx.briefing.tick()).toEqual({ action: 'done', date });
    expect(await api.ctx.briefing.tick()).toEqual({ action: 'done', date });
    expect(sandbox.mails()).toHaveLength(0);
    expect(await api.store.meta.get('briefing.email')).toMatchObject({ days: { [date]: { status: 'failed', error: expect.stringContaining('stopped midway') } } });
    expect((await api.caller.briefing.settings()).nextSendAt).toBe(iso(sendAt + DAY));
  });
});

describe('the sender on its own', () => {
  it('wakes at the scheduled minute and sends, with no one calling it', async () => {
    // A real clock, shifted so that the next whole minute is two seconds away.
    const offset = Math.ceil((Date.now() + 2_000) / MINUTE) * MINUTE - (Date.now() + 2_000);
    const clock = { now: () => Date.now() + offset, sleep: (ms: number, signal?: AbortSignal) => systemClock.sleep(ms, signal) };
    const api = await createTestApi({
      clock,
      demo: { setup: () => Promise.resolve(demoSetup(demoUpstreamsOf(sandbox))) },
      backup: { delays: { revenue: 0, storefront: 0, other: 0 } },
      rateLimits: { revenuecat: { limit: 1_000, windowMs: MINUTE } },
      access: { mode: 'local', origin: ORIGIN },
    });
    cleanup(() => api.dispose());
    await startDemo(api.ctx);
    const sendAt = Math.ceil(clock.now() / MINUTE) * MINUTE;
    const settings = await api.caller.briefing.saveSchedule({ enabled: true, time: iso(sendAt).slice(11, 16), timezone: 'UTC', days: everyDay });
    expect(settings.nextSendAt).toBe(iso(sendAt));
    const briefings = () => sandbox.mails().filter((mail) => mail.categories.includes('briefing'));
    const started = Date.now();
    let lastSent = settings.lastSent;
    while (lastSent === null && Date.now() - started < 15_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      lastSent = (await api.caller.briefing.settings()).lastSent;
    }
    expect(lastSent).toMatchObject({ status: 'sent' });
    expect(Date.parse(lastSent?.at ?? '')).toBeGreaterThanOrEqual(sendAt);
    expect(briefings()).toHaveLength(1);
  });
});

