// The notification policy as its user meets it, in a real Chromium against the built dashboard:
// Settings → Notifications (quiet hours, rules with the server's validation, the live preview), the
// desktop-alerts permission, and interruptions from provider-signed webhooks delivered to the
// dashboard's own route: a desktop notification when the tab is hidden (one per thread, one across
// tabs), a toast when it is looked at, and the bell's per-row Snooze, Mute and "Why?".
import type { NotificationPolicyView } from '@dash/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import * as betterstack from '../../../packages/webhooks/src/betterstack/fixtures.ts';
import { deliverySigner } from '../../../packages/webhooks/src/signed-deliveries.ts';
import * as vercel from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { gotoHydrated, launchChromium, screenshotDir } from './browser.ts';
import { raw } from './http.ts';
import { startDashboard, type RunningDashboard } from './server.ts';
import { sleep, takeDownAfterEach, until } from './waiting.ts';

// ---------------------------------------------------------------------------------------------------
// Everything a test starts is taken down after it, last started first (pages and browsers before the
// dashboard: an open page's live stream would hold its shutdown up).

const cleanup = takeDownAfterEach();

// ---------------------------------------------------------------------------------------------------
// The dashboard, with Vercel's signing secret for its local webhook route

const VERCEL_SECRET = 'vercel-signing-secret';
const signed = deliverySigner({ vercel: VERCEL_SECRET });
/** The fixture deployment's subject: its project and target. A recovery has the same, so the same tag. */
const SUBJECT = 'vercel:prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB:production';
const FAILED = 'Deploy failed: my-app (production)';
const DEPLOYED = 'Deployed: my-app (production)';

const BETTERSTACK_TOKEN = 'betterstack-shared-token';
const OUTAGE = 'Monitor down: Tesla.com homepage (Error 500)';

async function dashboard(): Promise<RunningDashboard> {
  const running = await startDashboard({ env: { WEBHOOK_SECRET_VERCEL: VERCEL_SECRET, WEBHOOK_SECRET_BETTERSTACK: BETTERSTACK_TOKEN } });
  cleanup.push(() => running.stop());
  return running;
}

/** Vercel's deployment fixture of `type` (deployment.error, deployment.succeeded), signed as Vercel signs, to the local route. */
async function deliverVercel(target: RunningDashboard, type: string) {
  const body = vercel.deployment(type);
  const response = await fetch(`${target.url}/api/webhooks/deploy_host`, { method: 'POST', body, headers: signed.vercel(body).headers });
  expect([response.status, await response.json()]).toEqual([200, { received: true, eventCount: 1 }]);
}

/** Better Stack's incident fixture at `stage` (started, resolved), with the token Better Stack sends, to the local route. */
async function deliverBetterStack(target: RunningDashboard, stage: 'started' | 'resolved') {
  const response = await fetch(`${target.url}/api/webhooks/uptime_monitor`, {
    method: 'POST',
    body: betterstack.incident(stage),
    headers: { 'content-type': 'application/json', 'x-betterstack-token': BETTERSTACK_TOKEN },
  });
  expect([response.status, await response.json()]).toEqual([200, { received: true, eventCount: 1 }]);
}

async function policy(target: RunningDashboard): Promise<NotificationPolicyView> {
  const response = await fetch(`${target.url}/api/notifications/policy`);
  expect(response.status).toBe(200);
  return (await response.json()) as NotificationPolicyView;
}

// ---------------------------------------------------------------------------------------------------
// The browser

async function browser(): Promise<Browser> {
  const launched = await launchChromium({ whole: true });
  cleanup.push(() => launched.close());
  return launched;
}

/** What the page showed on the desktop (through the service worker's registration, or `new Notification(…)`), and how often it asked for the permission. */
interface Shown {
  title: string;
  tag: string;
  renotify: boolean | undefined;
  requireInteraction: boolean | undefined;
}
type Spied = Window & { __shown: Shown[]; __asked: number };

/** Wraps the ways to notify before the page's scripts run: every notification and permission request is recorded. */
function spyOnNotifications() {
  const spied = window as unknown as Spied;
  spied.__shown = [];
  spied.__asked = 0;
  const record = (title: string, options?: NotificationOptions & { renotify?: boolean }) =>
    spied.__shown.push({ title, tag: options?.tag ?? '', renotify: options?.renotify, requireInteraction: options?.requireInteraction });
  const show = Object.getOwnPropertyDescriptor(ServiceWorkerRegistration.prototype, 'showNotification')?.value as (this: ServiceWorkerRegistration, title: string, options?: NotificationOptions) => Promise<void>;
  ServiceWorkerRegistration.prototype.showNotification = function (this: ServiceWorkerRegistration, title: string, options?: NotificationOptions) {
    record(title, options);
    return show.call(this, title, options);
  };
  const Real = window.Notification;
  class Spy extends Real {
    constructor(title: string, options?: NotificationOptions & { renotify?: boolean }) {
      // Recorded first: what the dashboard asked for, whether or not headless Chromium shows it.
      record(title, options);
      super(title, options);
    }
    static override requestPermission(...args: Parameters<typeof Notification.requestPermission>) {
      spied.__asked += 1;
      return Real.requestPermission(...args);
    }
  }
  Object.defineProperty(window, 'Notification', { value: Spy, configurable: true, writable: true });
}

/** A tab in the background: hidden and without focus (Playwright's pages otherwise all count as looked at). */
function hideThePage() {
  Object.defineProperty(Document.prototype, 'visibilityState', { get: () => 'hidden', configurable: true });
  Object.defineProperty(Document.prototype, 'hidden', { get: () => true, configurable: true });
  Document.prototype.hasFocus = () => false;
}

interface ContextOptions {
  granted?: boolean;
  hidden?: boolean;
  timezoneId?: string;
}

async function context(chromium: Browser, target: RunningDashboard, options: ContextOptions = {}): Promise<BrowserContext> {
  const created = await chromium.newContext({ viewport: { width: 1280, height: 1000 }, ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}) });
  cleanup.push(() => created.close());
  if (options.granted) await created.grantPermissions(['notifications'], { origin: target.url });
  await created.addInitScript(spyOnNotifications);
  if (options.hidden) await created.addInitScript(hideThePage);
  return created;
}

/** A page whose uncaught errors and console errors are collected. */
async function open(ctx: BrowserContext, url: string, problems: string[] = []): Promise<Page> {
  const page = await ctx.newPage();
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  // Hydrated with its live stream open: interruptions from now on reach this tab.
  await gotoHydrated(page, url);
  return page;
}

const shownIn = (page: Page) => page.evaluate(() => (window as unknown as Spied).__shown);
const askedIn = (page: Page) => page.evaluate(() => (window as unknown as Spied).__asked);

// ---------------------------------------------------------------------------------------------------

describe('notification policy in the browser', () => {
  it('saves quiet hours and a rule from Settings → Notifications, shows the server’s error at the field it names, and previews unsaved edits live', async () => {
    const target = await dashboard();
    const ctx = await context(await browser(), target, { timezoneId: 'America/New_York' });
    const problems: string[] = [];
    const page = await open(ctx, `${target.url}/settings#notifications`, problems);
    const section = page.locator('#notifications');
    const preview = section.locator('[data-preview-status]');

    // Never set up (off, in UTC): the browser's own zone is offered.
    await until(() => section.getByLabel('Time zone').inputValue(), (zone) => zone === 'America/New_York', 5_000, 'the browser’s zone offered');

    // Quiet hours: on, in Berlin, the first window from Monday to Saturday, 23:00 to 07:00.
    await section.getByRole('switch', { name: 'Quiet hours on' }).check();
    await section.getByLabel('Time zone').fill('Europe/Berlin');
    const window1 = section.getByRole('group', { name: 'Window 1' });
    await window1.getByRole('checkbox', { name: 'Sun' }).uncheck();
    await window1.getByLabel('From').fill('23:00');
    await window1.getByLabel('To').fill('07:00');
    await section.getByRole('button', { name: 'Save quiet hours' }).click();
    await section.getByText('Quiet hours saved: they are on.').waitFor();
    expect((await policy(target)).quietHours).toEqual({
      enabled: true,
      timezone: 'Europe/Berlin',
      windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'], start: '23:00', end: '07:00' }],
      pauseUntil: null,
    });

    // The preview's sample is a failed production deploy: an error, which interrupts at once (quiet hours or not).
    await until(() => preview.getAttribute('data-preview-status'), (status) => status === 'now', 10_000, 'the preview answering');
    expect(await preview.locator('.outcome').innerText()).toBe('Browser notification now');

    // A rule with a type the server refuses: its message next to that rule's type field.
    await section.getByRole('button', { name: 'Add a rule' }).click();
    const rule = section.getByRole('group', { name: /^Rule 1:/ });
    await rule.getByLabel('Name').fill('Quiet deploys');
    await rule.getByLabel('Event type').fill('deploy.**');
    await rule.getByRole('checkbox', { name: 'Silence (in the inbox only)' }).check();
    await section.getByRole('button', { name: 'Save rules' }).click();
    const type = rule.getByLabel('Event type');
    await until(() => type.getAttribute('aria-invalid'), (invalid) => invalid === 'true', 10_000, 'the type field marked invalid');
    const describedBy = await type.getAttribute('aria-describedby');
    expect(describedBy).toBeTruthy();
    expect(await page.locator(`[id="${describedBy}"]`).innerText()).toMatch(/\*\*/);
    // The other fields of the rule are not blamed, and nothing was saved.
    expect(await rule.getByLabel('Name').getAttribute('aria-invalid')).toBeNull();
    expect((await policy(target)).rules).toEqual([]);
    // The preview cannot judge invalid settings, and says so.
    await until(() => preview.getAttribute('data-preview-status'), (status) => status === 'error', 10_000, 'the preview refusing');

    await type.fill('deploy.*');
    await section.getByRole('button', { name: 'Save rules' }).click();
    await section.getByText('Saved 1 rule.').waitFor();
    expect(await type.getAttribute('aria-invalid')).toBeNull();
    const saved = await policy(target);
    expect(saved.rules).toEqual([
      { id: expect.stringMatching(/^rule-/), name: 'Quiet deploys', enabled: true, match: { type: 'deploy.*' }, actions: { silence: true }, stop: false },
    ]);

    // The silencing rule keeps the failed deploy in the inbox; switched off (unsaved), it interrupts again.
    await until(() => preview.getAttribute('data-preview-status'), (status) => status === 'none', 10_000, 'the preview silenced');
    expect(await preview.locator('.outcome').innerText()).toBe('In the inbox only');
    expect(await preview.getByRole('list', { name: 'How it was decided' }).innerText()).toContain('Quiet deploys');
    await rule.getByRole('switch', { name: 'Enabled' }).uncheck();
    await until(() => preview.getAttribute('data-preview-status'), (status) => status === 'now', 10_000, 'the preview interrupting again');
    expect(await preview.getByRole('list', { name: 'How it was decided' }).innerText()).not.toContain('Quiet deploys');
    await rule.getByRole('switch', { name: 'Enabled' }).check();
    await until(() => preview.getAttribute('data-preview-status'), (status) => status === 'none', 10_000, 'the preview silenced again');
    // Only previewed: the saved rule is as it was.
    expect((await policy(target)).rules).toEqual(saved.rules);

    // Pause and resume, with the state shown.
    await section.getByRole('button', { name: 'Pause for 1 h' }).click();
    await section.locator('[data-quiet-state="paused"]').waitFor();
    expect((await policy(target)).quietNow).toMatchObject({ quiet: true, reason: 'pause' });
    await section.getByRole('button', { name: 'Resume' }).click();
    await section.getByText('Resumed: notifications interrupt again.').waitFor();
    expect((await policy(target)).quietHours.pauseUntil).toBeNull();

    // A reload shows what was saved.
    await page.reload();
    await section.getByRole('switch', { name: 'Quiet hours on' }).waitFor();
    expect(await section.getByRole('switch', { name: 'Quiet hours on' }).isChecked()).toBe(true);
    expect(await section.getByLabel('Time zone').inputValue()).toBe('Europe/Berlin');
    expect(await section.getByRole('group', { name: 'Window 1' }).getByLabel('From').inputValue()).toBe('23:00');
    expect(await section.getByRole('group', { name: /^Rule 1:/ }).getByLabel('Event type').inputValue()).toBe('deploy.*');
    await page.screenshot({ path: `${screenshotDir}settings-notifications.png`, fullPage: true });
    expect(problems).toEqual([]);
  });

  it('asks for the desktop-alerts permission only on a click, and shows it granted', async () => {
    const target = await dashboard();
    const ctx = await context(await browser(), target);
    const page = await open(ctx, `${target.url}/settings#notifications`);
    const state = page.locator('#notifications [data-permission]');
    await until(() => state.getAttribute('data-permission'), (permission) => permission === 'default', 5_000, 'the permission shown as default');
    expect(await state.innerText()).toContain('default');
    // Loading asked for nothing.
    await sleep(500);
    expect(await askedIn(page)).toBe(0);
    // The bell offers the same button.
    await page.locator('.bell > button').click();
    await page.getByRole('dialog', { name: 'Notifications' }).getByRole('button', { name: 'Enable desktop alerts' }).waitFor();
    await page.keyboard.press('Escape');

    // The browser's answer (granted here through the context, as a user's "Allow" would be).
    await ctx.grantPermissions(['notifications'], { origin: target.url });
    await page.locator('#notifications').getByRole('button', { name: 'Enable desktop alerts' }).click();
    await until(() => state.getAttribute('data-permission'), (permission) => permission === 'granted', 5_000, 'the permission shown as granted');
    expect(await state.innerText()).toContain('granted');
    expect(await askedIn(page)).toBe(1);
  });

  it('shows a desktop notification for a failed deploy while the tab is hidden, and replaces it (same tag) with its recovery', async () => {
    const target = await dashboard();
    const ctx = await context(await browser(), target, { granted: true, hidden: true });
    const problems: string[] = [];
    const page = await open(ctx, target.url, problems);
    expect(await page.evaluate(() => [document.visibilityState, document.hasFocus(), Notification.permission])).toEqual(['hidden', false, 'granted']);
    // The service worker active: the notification goes through its registration, as a push's does.
    await page.evaluate(() => navigator.serviceWorker.ready);

    await deliverVercel(target, 'deployment.error');
    const first = await until(() => shownIn(page), (shown) => shown.length >= 1, 10_000, 'a desktop notification');
    await sleep(1_000);
    expect(await shownIn(page)).toEqual([{ title: FAILED, tag: SUBJECT, renotify: true, requireInteraction: true }]);
    expect(first[0]?.tag).toBe(SUBJECT);
    // Hidden: no toast.
    expect(await page.locator('[data-tag]').count()).toBe(0);

    await deliverVercel(target, 'deployment.succeeded');
    const both = await until(() => shownIn(page), (shown) => shown.length >= 2, 10_000, 'the recovery notification');
    expect(both[1]).toMatchObject({ title: DEPLOYED, tag: SUBJECT, renotify: false });
    await sleep(1_000);
    expect(await shownIn(page)).toHaveLength(2);

    // One notice on the device for the thread, now the recovery; a click on it opens the bell at its row. (CDP cannot
    // click a system notification: the worker's click handler is called with it, as push-client-notifications.test.ts does.)
    const worker = ctx.serviceWorkers().at(-1);
    if (!worker) throw new Error('no service worker running');
    const showing = await worker.evaluate(async (tag) => {
      const scope = self as unknown as { registration: ServiceWorkerRegistration; openFromNotification: (notice: Notification) => Promise<unknown> };
      const notices = await scope.registration.getNotifications();
      const clicked = notices.find((notice) => notice.tag === tag);
      if (clicked) await scope.openFromNotification(clicked);
      return notices.map(({ title, tag }) => ({ title, tag }));
    }, SUBJECT);
    expect(showing).toEqual([{ title: DEPLOYED, tag: SUBJECT }]);
    const row = page.getByRole('dialog', { name: 'Notifications' }).locator('li.highlight');
    await row.waitFor({ timeout: 10_000 });
    expect(await row.innerText()).toContain(FAILED);
    expect(problems).toEqual([]);
  });

  it('shows a toast, not a desktop notification, while the tab is looked at; the toast leads to the row in the bell', async () => {
    const target = await dashboard();
    const ctx = await context(await browser(), target, { granted: true });
    const problems: string[] = [];
    const page = await open(ctx, target.url, problems);
    expect(await page.evaluate(() => [document.visibilityState, document.hasFocus()])).toEqual(['visible', true]);

    await deliverVercel(target, 'deployment.error');
    const alerts = page.getByRole('status', { name: 'Alerts' });
    const toast = alerts.locator(`[data-tag="${SUBJECT}"]`);
    await toast.waitFor({ timeout: 10_000 });
    expect(await toast.innerText()).toContain(FAILED);
    await sleep(1_000);
    expect(await shownIn(page)).toEqual([]);

    // Its "In the inbox" opens the bell at that row.
    await toast.getByRole('button', { name: 'In the inbox' }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const row = panel.locator('li.highlight');
    await row.waitFor({ timeout: 10_000 });
    expect(await row.innerText()).toContain(FAILED);
    expect(await row.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await alerts.locator('[data-tag]').count()).toBe(0);

    // A toast goes by itself after a few seconds, unless the pointer rests on it (it waits for the reader
    // then): the pointer leaves the spot where the last click left it, over the toasts.
    await page.mouse.move(0, 0);
    await deliverVercel(target, 'deployment.succeeded');
    const recovery = alerts.locator(`[data-tag="${SUBJECT}"]`);
    await recovery.waitFor({ timeout: 10_000 });
    expect(await recovery.innerText()).toContain(DEPLOYED);
    await recovery.waitFor({ state: 'detached', timeout: 10_000 });
    expect(await shownIn(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('shows one desktop notification in all, with two tabs of the dashboard open', async () => {
    const target = await dashboard();
    const ctx = await context(await browser(), target, { granted: true, hidden: true });
    const problems: string[] = [];
    const pages = [await open(ctx, target.url, problems), await open(ctx, target.url, problems)];
    // Both tabs are up: one holds the lock, the other waits for it.
    await sleep(500);

    await deliverVercel(target, 'deployment.error');
    const total = async () => (await Promise.all(pages.map(shownIn))).flat();
    await until(total, (shown) => shown.length >= 1, 10_000, 'a desktop notification');
    await sleep(1_500);
    expect(await total()).toEqual([{ title: FAILED, tag: SUBJECT, renotify: true, requireInteraction: true }]);

    // The tab that showed it goes away: the other takes over.
    const [shower, other] = (await shownIn(pages[0] as Page)).length === 1 ? pages : [...pages].reverse();
    await (shower as Page).close();
    await sleep(500);
    await deliverVercel(target, 'deployment.succeeded');
    await until(() => shownIn(other as Page), (shown) => shown.length >= 1, 10_000, 'the other tab notifying');
    expect(await shownIn(other as Page)).toEqual([{ title: DEPLOYED, tag: SUBJECT, renotify: false, requireInteraction: false }]);
    expect(problems).toEqual([]);
  });

  it('lets a row in the bell say why, be muted and unmuted, and be snoozed out of the list', async () => {
    const target = await dashboard();
    const ctx = await context(await browser(), target);
    const problems: string[] = [];
    const page = await open(ctx, target.url, problems);
    await deliverVercel(target, 'deployment.error');
    await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor({ timeout: 10_000 });
    await page.locator('.bell > button').click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const row = panel.locator('li[data-notification]').filter({ hasText: FAILED });
    await row.waitFor();

    // Why? The preference, then the delivery.
    await row.getByText('Why?').click();
    const trace = row.getByRole('list', { name: `How “${FAILED}” was decided` });
    await trace.waitFor();
    expect(await trace.innerText()).toMatch(/Built-in defaults[\s\S]*Delivery/);

    await row.getByRole('button', { name: `Mute 1 h “${FAILED}”` }).click();
    await row.getByRole('button', { name: `Unmute “${FAILED}”` }).waitFor();
    expect((await policy(target)).mutes).toEqual([{ subjectKey: SUBJECT, until: expect.any(String), title: FAILED }]);
    await row.getByRole('button', { name: `Unmute “${FAILED}”` }).click();
    await row.getByRole('button', { name: `Mute 24 h “${FAILED}”` }).waitFor();
    expect((await policy(target)).mutes).toEqual([]);

    // Muted again, it is listed in Settings → Notifications, where it can be unmuted too.
    await row.getByRole('button', { name: `Mute 24 h “${FAILED}”` }).click();
    await row.getByRole('button', { name: `Unmute “${FAILED}”` }).waitFor();
    await gotoHydrated(page, `${target.url}/settings#notifications`);
    const mutes = page.locator('#notifications').getByRole('list', { name: 'Muted subjects' });
    expect(await mutes.innerText()).toContain(FAILED);
    await mutes.getByRole('button', { name: `Unmute ${FAILED}` }).click();
    await page.locator('#notifications').getByText('Nothing is muted.').waitFor();
    expect((await policy(target)).mutes).toEqual([]);
    await gotoHydrated(page, target.url);
    await page.locator('.bell > button').click();
    await row.getByRole('button', { name: `Mute 1 h “${FAILED}”` }).waitFor();

    await row.getByText('Snooze').first().click();
    await row.getByRole('button', { name: '1 hour' }).click();
    await row.waitFor({ state: 'detached' });
    await page.locator('.bell > button[aria-label="Notifications"]').waitFor();
    await panel.getByText('No notifications yet.').waitFor();
    const inbox = (await (await fetch(`${target.url}/api/notifications`)).json()) as { notifications: unknown[]; unreadCount: number };
    expect(inbox.unreadCount).toBe(0);
    expect(problems).toEqual([]);
  });
  it('says in "Why?" what became of each event of a thread: the outage held, then sent when the hold ended; its recovery, its own', async () => {
    const target = await dashboard();
    // As the dashboard's own page sends it (a write needs its origin, or a token).
    const saved = await raw(`${target.url}/api/notifications/flap-hold`, { method: 'PUT', headers: { 'content-type': 'application/json', origin: target.url }, body: JSON.stringify({ seconds: 1 }) });
    expect(saved.status).toBe(200);
    const ctx = await context(await browser(), target);
    const problems: string[] = [];
    const page = await open(ctx, target.url, problems);

    // Held for the (1 s) flap hold, then sent by the scheduler: the toast is the release.
    await deliverBetterStack(target, 'started');
    await page.locator('[data-tag="betterstack:monitor:4"]').waitFor({ timeout: 10_000 });
    await page.locator('.bell > button').click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const row = panel.locator('li[data-notification]').filter({ hasText: OUTAGE });
    const why = row.locator('details.why');
    await why.getByText('Why?').click();
    const trace = row.getByRole('list', { name: `How “${OUTAGE}” was decided` });
    await trace.waitFor();
    const lines = trace.locator('li');
    expect(await lines.last().innerText()).toMatch(/^\d\d:\d\d\s+Delivery sent: still down after the 1 s hold; sent to the open dashboard tabs/);
    expect(await lines.nth((await lines.count()) - 2).innerText()).toMatch(/^Flap hold held: held 1 s in case it recovers at once/);

    // The recovery: the open "Why?" reads the thread again as it arrives; it now has two events, and the outage's
    // trace is still the outage's.
    await deliverBetterStack(target, 'resolved');
    const events = row.getByRole('list', { name: `Events of “${OUTAGE}”` });
    await events.waitFor({ timeout: 10_000 });
    const [outage, recovery] = await events.locator(':scope > li').all();
    expect(await outage?.innerText()).toMatch(/Flap hold held[\s\S]*Delivery sent: still down after the 1 s hold/);
    expect(await recovery?.innerText()).toMatch(/^Monitor up[\s\S]*Delivery sent: the outage interrupted, so its recovery replaces that notification/);
    await page.screenshot({ path: `${screenshotDir}bell-why-thread.png` });
    expect(problems).toEqual([]);
  });
});
