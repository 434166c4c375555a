// Web Push on the device, in a real Chromium against the built dashboard: the service worker turns a push into one
// notification (none while a dashboard tab is in view, but a test always), a recovery replaces its outage, a click
// brings the dashboard to the thread, and Settings → Notifications → Devices adds, lists, tests and removes devices.
//
// What is real and what is not:
// - A push is delivered to the worker by Chromium itself (CDP `ServiceWorker.deliverPushMessage`): the worker's real
//   `push` event, its real `showNotification`, read back with `registration.getNotifications()` once Chromium reports
//   the event over (see `pusher`: never while one is being shown). Only the push service's leg is left out (it is the
//   server's test, packages/api/src/push).
// - "No tab in view": headless Chromium keeps every page `visible`, even a background one, and the worker's
//   `clients.matchAll` says so; so no dashboard tab is open at all (a phone, a closed laptop), and another page (about:blank)
//   keeps the browser context alive.
// - A click: CDP cannot click a system notification, and a synthetic `notificationclick` grants no right to focus or
//   open a window. The worker's click handler's own function (`self.openFromNotification`) is called in the worker with
//   the notification from getNotifications(): it closes it and navigates the open tab, which a worker may do without a
//   click. What it cannot do without a real click (focus a window, open a new one) is left out.
// - Subscribing: headless Chromium cannot reach a push service here (a profile's `pushManager.subscribe` never
//   answers; a private window's is refused at once). The refusal is tested as the user sees it; the rest of the flow
//   runs with `pushManager.subscribe` answered by a subscription at the project's fake push service
//   (packages/sandbox/src/push), so the dashboard encrypts to it, the fake decrypts, and Chromium delivers what it
//   decrypted to the worker.
// - The iPhone state is Chromium with an iPhone's user agent and no `PushManager`, as Safari outside a Home Screen app has none.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@dash/sandbox';
import type { PushPayload } from '@dash/contracts';
import type { Browser, BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as vercel from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { gotoHydrated, launchChromium, screenshotDir } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';
import { sleep, takeDownAfterEach, until } from './waiting.ts';

const cleanup = takeDownAfterEach();
const VERCEL_SECRET = 'vercel-signing-secret';
const PASSWORD = 'correct horse battery staple';
/** How long a wait for what the worker or a page does on its own lasts at most (a busy machine is slow to run them). */
const WHILE = { timeout: 30_000 };

let browser: Browser;
let sandbox: Sandbox;
beforeAll(async () => {
  [browser, sandbox] = await Promise.all([launchChromium({ whole: true }), startSandbox()]);
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

async function dashboard(env: Record<string, string> = {}): Promise<RunningDashboard> {
  const running = await startDashboard({
    // The fake push service is on 127.0.0.1: a private push service, as PUSH_ALLOW_PRIVATE_ENDPOINTS allows.
    env: { WEBHOOK_SECRET_VERCEL: VERCEL_SECRET, VAPID_SUBJECT: 'mailto:founder@example.com', PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true', ...env },
  });
  cleanup.push(() => running.stop());
  return running;
}

async function context(target: RunningDashboard, options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
  const created = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  cleanup.push(() => created.close());
  // Over CDP (Browser.grantPermissions), as a user's "Allow" would leave it.
  await created.grantPermissions(['notifications'], { origin: target.url });
  return created;
}

/** A failed production deploy, signed as Vercel signs: an inbox row (thread) of its own; its id. */
async function failedDeploy(target: RunningDashboard): Promise<string> {
  const body = vercel.deployment('deployment.error', { id: 'dpl_push_client' });
  const signature = createHmac('sha1', VERCEL_SECRET).update(body).digest('hex');
  const response = await fetch(`${target.url}/api/webhooks/deploy_host`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-vercel-signature': signature } });
  expect(response.status).toBe(200);
  const { notifications } = (await (await target.fetch('/api/notifications?limit=10')).json()) as { notifications: { id: string; title: string }[] };
  const row = notifications[0];
  if (!row) throw new Error('the deploy made no inbox row');
  return row.id;
}

/** The worker's registration as CDP names it, for `deliverPushMessage`, once a page of `origin` is controlled. */
async function registrationOf(cdp: CDPSession, origin: string): Promise<string> {
  const found: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => found.push(...event.registrations));
  await cdp.send('ServiceWorker.enable');
  const registration = await until(() => Promise.resolve(found.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted)), Boolean, 10_000, 'the worker registered');
  return registration?.registrationId ?? '';
}

/**
 * Delivers a push to the worker of `origin` (its page controlled) over a CDP session on `keeper` (a page that stays
 * open), and resolves once Chromium reports the worker's `push` event over, its `waitUntil` included (the DevTools
 * background services' record of push messaging): whatever the worker shows for it is showing by then, and what it
 * did not show it never will. Read the notifications only then, never while a push is being shown: Chromium's
 * `getNotifications()`, answered between its storing a new notification and the system's showing it, deletes that one
 * from its list for good (it takes it for closed), so a poll while the worker shows one may never see it (issue 47).
 */
async function pusher(ctx: BrowserContext, keeper: Page, origin: string): Promise<(data: unknown) => Promise<void>> {
  const cdp = await ctx.newCDPSession(keeper);
  const registrationId = await registrationOf(cdp, origin);
  /** How each push event ended, as Chromium reports it ('Success', 'waitUntil Rejected', 'Timeout'), in order. */
  const ended: string[] = [];
  cdp.on('BackgroundService.backgroundServiceEventReceived', ({ backgroundServiceEvent: event }) => {
    if (event.origin === `${origin}/` && event.eventName === 'Push event completed') ended.push(event.eventMetadata.find(({ key }) => key === 'Status')?.value ?? '');
  });
  await cdp.send('BackgroundService.startObserving', { service: 'pushMessaging' });
  await cdp.send('BackgroundService.setRecording', { shouldRecord: true, service: 'pushMessaging' });
  return async (data: unknown) => {
    const before = ended.length;
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: typeof data === 'string' ? data : JSON.stringify(data) });
    const status = await until(() => Promise.resolve(ended[before]), (end) => end !== undefined, WHILE.timeout, 'the push event over, as Chromium reports it', 20);
    if (status !== 'Success') throw new Error(`The worker's push event ended with ${status}, not Success`);
  };
}

/**
 * A browser context with a dashboard tab whose worker is active, and `push` (see `pusher`). `closeTab` closes the tab
 * and waits until the worker no longer counts it among its windows: Chromium tells the worker a moment after the page
 * is gone, and a push in that moment would find the tab still in view.
 */
async function withWorker(target: RunningDashboard, ctx: BrowserContext): Promise<{ tab: Page; push: (data: unknown) => Promise<void>; closeTab: () => Promise<void> }> {
  const keeper = await ctx.newPage();
  const tab = await ctx.newPage();
  await gotoHydrated(tab, `${target.url}/`);
  await tab.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => tab.evaluate(() => navigator.serviceWorker.controller?.state), WHILE).toBe('activated');
  const push = await pusher(ctx, keeper, target.url);
  const closeTab = async () => {
    await tab.close();
    const windows = () => workerOf(ctx).evaluate(async () => (await (self as unknown as WorkerScope).clients.matchAll({ type: 'window', includeUncontrolled: true })).length);
    await until(windows, (count) => count === 0, WHILE.timeout, 'the closed tab gone from the worker’s windows');
  };
  return { tab, push, closeTab };
}

/** The running worker (a new one after Chromium stopped an idle one and a push started it again). */
const workerOf = (ctx: BrowserContext): Worker => {
  const worker = ctx.serviceWorkers().at(-1);
  if (!worker) throw new Error('no service worker running');
  return worker;
};

/**
 * A dashboard tab hidden, as a minimised window's is (headless Chromium keeps every page visible), that counts the
 * desktop notices it shows itself (`__shows`), and those of them Chromium has done showing (`__shown`: only then may
 * the notifications be read, see `pusher`): before its scripts run.
 */
function hiddenAndSpied() {
  Object.defineProperty(Document.prototype, 'visibilityState', { get: () => 'hidden', configurable: true });
  Object.defineProperty(Document.prototype, 'hidden', { get: () => true, configurable: true });
  const counted = window as unknown as { __shows: number; __shown: number };
  counted.__shows = 0;
  counted.__shown = 0;
  const show = Object.getOwnPropertyDescriptor(ServiceWorkerRegistration.prototype, 'showNotification')?.value as (this: ServiceWorkerRegistration, title: string, options?: NotificationOptions) => Promise<void>;
  ServiceWorkerRegistration.prototype.showNotification = function (this: ServiceWorkerRegistration, title: string, options?: NotificationOptions) {
    counted.__shows += 1;
    return show.call(this, title, options).finally(() => (counted.__shown += 1));
  };
  const Real = window.Notification;
  class Counted extends Real {
    constructor(title: string, options?: NotificationOptions) {
      counted.__shows += 1;
      super(title, options);
      counted.__shown += 1;
    }
  }
  Object.defineProperty(window, 'Notification', { value: Counted, configurable: true, writable: true });
}

/**
 * The running worker sees the dashboard's windows hidden, as the tab says it is (`hiddenAndSpied`), and counts the
 * notices it shows (`workerShows`, which fails if Chromium started the worker again meanwhile: that loses both).
 */
async function workerSeesHiddenWindows(ctx: BrowserContext): Promise<void> {
  await workerOf(ctx).evaluate(() => {
    type Scope = WorkerScope & { __shows: number };
    const scope = self as unknown as Scope;
    const matchAll = scope.clients.matchAll.bind(scope.clients);
    scope.clients.matchAll = async (options) => ((await matchAll(options)) as { url: string }[]).map(({ url }) => ({ url, visibilityState: 'hidden' }));
    scope.__shows = 0;
    const show = scope.registration.showNotification.bind(scope.registration);
    scope.registration.showNotification = (title: string, options?: NotificationOptions) => {
      scope.__shows += 1;
      return show(title, options);
    };
  });
}

async function workerShows(ctx: BrowserContext): Promise<number> {
  const shows = await workerOf(ctx).evaluate(() => (self as unknown as { __shows?: number }).__shows);
  if (shows === undefined) throw new Error('Chromium started the worker again: what it sees and counts is lost');
  return shows;
}

type Shown = { title: string; body: string; tag: string; icon: string; data: unknown };

/** The worker's global as these evaluations use it (the tests are typed with the DOM's library, not the worker's). */
type WorkerScope = { registration: ServiceWorkerRegistration; clients: { matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<unknown[]> }; openFromNotification: (notification: Notification) => Promise<{ url: string } | null> };

/** What the system shows for the dashboard now, as the worker's registration reads it. */
const notifications = (ctx: BrowserContext): Promise<Shown[]> =>
  workerOf(ctx).evaluate(async () =>
    (await (self as unknown as WorkerScope).registration.getNotifications()).map(({ title, body, tag, icon, data }) => ({ title, body, tag, icon, data: data as unknown })),
  );

const payload = (more: Partial<PushPayload>): PushPayload => ({
  kind: 'alert',
  notificationId: null,
  title: 'Down: api.example.com',
  body: 'Timeout after 30 s (checked from Frankfurt)',
  severity: 'error',
  tag: 'uptime:api-example',
  url: '/',
  renotify: true,
  requireInteraction: true,
  ...more,
});

describe('a push on this device', () => {
  it('with no dashboard tab open shows exactly one notification, and its recovery replaces it', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const { push, closeTab } = await withWorker(target, ctx);
    await closeTab();
    // Its icon loads under the worker's own security policy: a refused one is a violation there, and no icon on screen.
    await workerOf(ctx).evaluate(() => {
      const scope = self as unknown as { __refused: string[]; addEventListener: (type: string, listener: (event: { blockedURI: string }) => void) => void };
      scope.__refused = [];
      scope.addEventListener('securitypolicyviolation', (event) => scope.__refused.push(event.blockedURI));
    });

    await push(payload({ notificationId: 'n_outage', url: '/?notification=n_outage' }));
    expect(await workerOf(ctx).evaluate(() => (self as unknown as { __refused: string[] }).__refused)).toEqual([]);
    expect(await notifications(ctx)).toEqual([
      {
        title: 'Down: api.example.com',
        body: 'Timeout after 30 s (checked from Frankfurt)',
        tag: 'uptime:api-example',
        icon: `${target.url}/icons/icon-192.png`,
        data: { url: '/?notification=n_outage', notificationId: 'n_outage' },
      },
    ]);

    await push(payload({ kind: 'resolve', severity: 'success', title: 'Up again: api.example.com', body: 'Down for 4 min', notificationId: 'n_outage', url: '/?notification=n_outage', renotify: false, requireInteraction: false }));
    expect((await notifications(ctx)).map(({ title, tag }) => ({ title, tag }))).toEqual([{ title: 'Up again: api.example.com', tag: 'uptime:api-example' }]);
  });

  it('shows what it can of a push it cannot read, or whose message it cannot fetch', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const { push, closeTab } = await withWorker(target, ctx);
    await closeTab();

    // Not the contract at all: still a notification (a push must show one), saying to look in the dashboard.
    await push('{"hello":');
    expect(await notifications(ctx)).toEqual([expect.objectContaining({ title: 'New notification', body: 'Open the dashboard to see it.', tag: 'dashboard-push' })]);
    // A pointer to a message the dashboard does not have (404): the pointer's tag and thread, with the generic words.
    await push({ fetch: 'm_unknown', tag: 'vercel:deploy', url: '/?notification=n_9' });
    expect((await notifications(ctx)).map(({ title, tag, data }) => ({ title, tag, data }))).toEqual([
      { title: 'New notification', tag: 'dashboard-push', data: { url: '/', notificationId: null } },
      { title: 'New notification', tag: 'vercel:deploy', data: { url: '/?notification=n_9', notificationId: null } },
    ]);
  });

  it('with a dashboard tab in view shows no alert (the tab toasts it), but always a test', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const { tab, push } = await withWorker(target, ctx);
    expect(await tab.evaluate(() => document.visibilityState)).toBe('visible');

    // The alert first: its push event is over, and it showed nothing; the test after it shows.
    await push(payload({ notificationId: 'n_1' }));
    await push(payload({ kind: 'test', severity: 'info', title: 'Test from your founder dashboard', tag: 'dashboard-push-test', renotify: true, requireInteraction: false }));
    expect((await notifications(ctx)).map(({ title, tag }) => ({ title, tag }))).toEqual([{ title: 'Test from your founder dashboard', tag: 'dashboard-push-test' }]);
  });

  it('with a hidden dashboard tab, one notice for an interruption both the tab and a push bring, the tab first or the push first', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    await ctx.addInitScript(hiddenAndSpied);
    const { tab, push } = await withWorker(target, ctx);
    await workerSeesHiddenWindows(ctx);
    const shows = async () => ({ tab: await tab.evaluate(() => (window as unknown as { __shows: number }).__shows), worker: await workerShows(ctx) });

    // The tab first: the hidden tab (it leads) shows the failed deploy on the desktop; the push of it comes after, and
    // shows nothing.
    await failedDeploy(target);
    await until(() => tab.evaluate(() => (window as unknown as { __shown: number }).__shown), (shown) => shown > 0, WHILE.timeout, 'the hidden tab done showing a notice');
    const showing = await notifications(ctx);
    expect(showing).toEqual([expect.objectContaining({ title: 'Deploy failed: my-app (production)', tag: 'vercel:prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB:production' })]);
    const [shown] = showing;
    if (!shown) throw new Error('no notice');
    await push(payload({ title: shown.title, body: shown.body, tag: shown.tag }));
    expect(await shows()).toEqual({ tab: 1, worker: 0 });

    // The push first: another project's failed deploy (the same words, its own tag) shown by the worker; then the tab's
    // live stream brings the same interruption, and the tab, finding it showing, shows nothing.
    const other = 'vercel:prj_another:production';
    await push(payload({ title: shown.title, body: shown.body, tag: other }));
    expect((await notifications(ctx)).map(({ tag }) => tag).sort()).toEqual([other, shown.tag].sort());
    const body = JSON.stringify({ ...(JSON.parse(vercel.deployment('deployment.error', { id: 'dpl_push_client_2' })) as { payload: { project: object } }), id: 'evt_push_client_2' }).replace('prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB', 'prj_another');
    const signature = createHmac('sha1', VERCEL_SECRET).update(body).digest('hex');
    const response = await fetch(`${target.url}/api/webhooks/deploy_host`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-vercel-signature': signature } });
    expect(response.status).toBe(200);
    // The tab heard of it (its bell counts the new row), and a moment after, has still shown nothing more.
    await tab.getByRole('button', { name: 'Notifications, 2 unread' }).waitFor(WHILE);
    await sleep(1_500);
    expect(await shows()).toEqual({ tab: 1, worker: 1 });
    expect((await notifications(ctx)).map(({ title, tag }) => ({ title, tag })).sort((a, b) => a.tag.localeCompare(b.tag))).toEqual(
      [
        { title: shown.title, tag: shown.tag },
        { title: shown.title, tag: other },
      ].sort((a, b) => a.tag.localeCompare(b.tag)),
    );
  });

  it('a click on it takes the open dashboard tab to the thread, with the bell open at its row', async () => {
    const target = await dashboard();
    const id = await failedDeploy(target);
    const ctx = await context(target);
    const { push, closeTab } = await withWorker(target, ctx);
    await closeTab();
    await push(payload({ title: 'Deploy failed: my-app (production)', tag: 'vercel:my-app', notificationId: id, url: `/?notification=${id}` }));
    expect(await notifications(ctx)).toHaveLength(1);

    // The user comes back to the dashboard on another page, and clicks the notification (see the top of the file).
    const page = await ctx.newPage();
    await gotoHydrated(page, `${target.url}/settings`);
    const arrived = page.waitForURL(`${target.url}/?notification=${encodeURIComponent(id)}`);
    const url = await workerOf(ctx).evaluate(async (tag) => {
      const worker = self as unknown as WorkerScope;
      const [clicked] = await worker.registration.getNotifications({ tag });
      if (!clicked) throw new Error('no notification to click');
      return (await worker.openFromNotification(clicked))?.url;
    }, 'vercel:my-app');
    expect(url).toBe(`${target.url}/?notification=${id}`);
    await arrived;
    const row = page.locator(`#inbox-panel li[data-notification="${id}"]`);
    await expect.poll(() => row.count(), WHILE).toBe(1);
    await expect.poll(() => row.evaluate((li) => li.classList.contains('highlight') && document.activeElement === li), WHILE).toBe(true);
    expect(await notifications(ctx)).toEqual([]);
  });
});

/** `pushManager.subscribe` answered by `subscription` (see the top of the file); what it was asked with is kept. */
function stubSubscribe(subscription: { endpoint: string; expirationTime: number | null; keys: { p256dh: string; auth: string } }) {
  type Stubbed = Window & { __subscribedWith: number[] | null; __unsubscribed: boolean };
  const spied = window as unknown as Stubbed;
  spied.__subscribedWith = null;
  spied.__unsubscribed = false;
  const key = 'stub-push-subscription';
  const make = () => ({
    endpoint: subscription.endpoint,
    expirationTime: subscription.expirationTime,
    options: { userVisibleOnly: true },
    toJSON: () => subscription,
    unsubscribe: () => {
      sessionStorage.removeItem(key);
      spied.__unsubscribed = true;
      return Promise.resolve(true);
    },
  });
  PushManager.prototype.subscribe = function (options?: PushSubscriptionOptionsInit) {
    const bytes = options?.applicationServerKey;
    spied.__subscribedWith = bytes instanceof Uint8Array ? Array.from(bytes) : null;
    sessionStorage.setItem(key, '1');
    return Promise.resolve(make() as unknown as PushSubscription);
  };
  PushManager.prototype.getSubscription = function () {
    return Promise.resolve((sessionStorage.getItem(key) ? make() : null) as unknown as PushSubscription | null);
  };
}

const devicesSection = (page: Page) => page.locator('#devices');

describe('Settings → Notifications → Devices', () => {
  it("in a private window shows the browser's refusal to subscribe, and adds nothing", async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const page = await ctx.newPage();
    await gotoHydrated(page, `${target.url}/settings#notifications`);
    const section = devicesSection(page);
    await expect.poll(() => section.getByText('No device gets push notifications yet.').count(), WHILE).toBe(1);
    await section.getByRole('button', { name: 'Notify this device' }).click();
    await expect.poll(() => section.getByRole('alert').textContent(), WHILE).toMatch(/^The browser did not subscribe: .+\. A private window cannot receive push\.$/);
    expect((await (await target.fetch('/api/push/subscriptions')).json()) as unknown).toEqual({ devices: [] });
  });

  /**
   * A password dashboard signed in in Chromium, on Settings → Notifications, whose browser subscribes (when asked) at
   * the fake push service with the dashboard's key: the Devices section and what the tests check against.
   */
  async function atDevices() {
    const { target, ctx, page, signIn } = await passwordDashboard();
    const signedIn = await signIn();
    const { publicKey } = (await (await target.fetch('/api/push/key', { headers: signedIn })).json()) as { publicKey: string };
    const subscription = sandbox.subscribePush({ applicationServerKey: publicKey });
    await ctx.addInitScript(stubSubscribe, { endpoint: subscription.endpoint, expirationTime: null, keys: subscription.keys });
    await gotoHydrated(page, `${target.url}/settings#notifications`);
    const section = devicesSection(page);
    return { target, ctx, page, signIn, signedIn, publicKey, subscription, section };
  }

  it('subscribes this device with the password, marks it, sends it a test that arrives as a notification, and removes it', async () => {
    const { target, ctx, page, signedIn, publicKey, subscription, section } = await atDevices();
    await expect.poll(() => section.getByText('No device gets push notifications yet.').count(), WHILE).toBe(1);

    await section.getByLabel("This device's name").fill('Work laptop');
    await section.getByLabel('Your dashboard password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Notify this device' }).click();
    await expect.poll(() => section.getByText('“Work laptop” gets notifications now. Send it a test below.').count(), WHILE).toBe(1);
    // Subscribed with the dashboard's own key, as bytes.
    expect(await page.evaluate(() => (window as unknown as { __subscribedWith: number[] }).__subscribedWith)).toEqual([...Buffer.from(publicKey, 'base64url')]);
    const row = section.locator('li[data-device]');
    await expect.poll(() => row.count(), WHILE).toBe(1);
    expect(await row.locator('.what').textContent()).toMatch(/^\s*Work laptop\s*This device\s*$/);
    expect(await row.locator('dl').innerText()).toContain(new URL(subscription.endpoint).host);
    // The policy's push channel opens with the first device, without a reload: the live preview of a failed deploy
    // (the sample) says it is pushed to it.
    const pushOutcome = page.locator('.push-outcome');
    await expect.poll(() => pushOutcome.textContent(), WHILE).toBe('Push now to Work laptop (queued for each subscribed device)');

    // The test goes to the fake push service, which decrypts it; Chromium hands that to the worker: a notification.
    await row.getByRole('button', { name: 'Send a test to Work laptop' }).click();
    await expect.poll(() => row.locator('.results').textContent(), WHILE).toBe(`Sent: ${new URL(subscription.endpoint).host} accepted it`);
    const received = sandbox.pushes().filter((push) => push.subscriptionId === subscription.id);
    expect(received).toHaveLength(1);
    const push = await pusher(ctx, await ctx.newPage(), target.url);
    await push(received[0]?.payload ?? '');
    expect((await notifications(ctx)).map(({ title, tag }) => ({ title, tag }))).toEqual([{ title: 'Test from your founder dashboard', tag: 'dashboard-push-test' }]);

    // One test a minute: the second says when to try again.
    await row.getByRole('button', { name: 'Send a test to Work laptop' }).click();
    await expect.poll(() => row.getByRole('alert').textContent(), WHILE).toMatch(/^One test push notification a minute: try again in \d+ s\.$/);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Remove Work laptop' }).click();
    await expect.poll(() => section.getByText('No device gets push notifications yet.').count(), WHILE).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __unsubscribed: boolean }).__unsubscribed)).toBe(true);
    await expect.poll(() => pushOutcome.count(), WHILE).toBe(0);
    expect((await (await target.fetch('/api/push/subscriptions', { headers: signedIn })).json()) as unknown).toEqual({ devices: [] });
  });

  /**
   * A dashboard with a password, a browser context and a page on it; `signIn()` signs the page in with the password
   * and answers the session's Cookie header, for the API.
   */
  async function passwordDashboard() {
    const dir = mkdtempSync(join(tmpdir(), 'dash-push-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`, { mode: 0o600 });
    const target = await dashboard({ DASHBOARD_PASSWORD_FILE: join(dir, 'password') });
    const ctx = await context(target);
    const page = await ctx.newPage();
    const signIn = async () => {
      await page.goto(`${target.url}/login`);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${target.url}/`);
      return { cookie: (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') };
    };
    return { target, ctx, page, signIn };
  }

  /** A password dashboard, signed in in Chromium, this browser subscribed at the fake push service as "Shared computer". */
  async function subscribedAndSignedIn() {
    const { target, page, signIn, subscription, section } = await atDevices();
    await section.getByLabel("This device's name").fill('Shared computer');
    await section.getByLabel('Your dashboard password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Notify this device' }).click();
    await expect.poll(() => section.locator('li[data-device]').count(), WHILE).toBe(1);
    const subscribed = () => page.evaluate(async () => (await (await navigator.serviceWorker.ready).pushManager.getSubscription())?.endpoint ?? null);
    expect(await subscribed()).toBe(subscription.endpoint);
    /** The owner's devices, read after signing in again. */
    const devicesAfterSigningIn = async () => ((await (await target.fetch('/api/push/subscriptions', { headers: await signIn() })).json()) as { devices: unknown[] }).devices;
    return { target, page, subscribed, devicesAfterSigningIn };
  }

  it('signing out unsubscribes this browser and removes its device: the next person at this computer gets no alerts (issue 49)', async () => {
    const { target, page, subscribed, devicesAfterSigningIn } = await subscribedAndSignedIn();
    // The header's Sign out: the page unsubscribes first and names the endpoint; the server removes that device.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${target.url}/login`);
    expect(await subscribed()).toBeNull();
    expect(await devicesAfterSigningIn()).toEqual([]);
  });

  it('"Sign out everywhere" unsubscribes this browser, removes every device, and the sign-in page says to add them again (issue 49)', async () => {
    const { target, page, subscribed, devicesAfterSigningIn } = await subscribedAndSignedIn();
    await gotoHydrated(page, `${target.url}/settings#security`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Every device that got push notifications was removed' }).count(), WHILE).toBe(1);
    expect(await subscribed()).toBeNull();
    expect(await devicesAfterSigningIn()).toEqual([]);
  });

  it('signs out as before where the browser has no Push API (issue 49)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dash-push-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`, { mode: 0o600 });
    const target = await dashboard({ DASHBOARD_PASSWORD_FILE: join(dir, 'password') });
    const ctx = await context(target);
    await ctx.addInitScript(() => delete (window as { PushManager?: unknown }).PushManager);
    const page = await ctx.newPage();
    await page.goto(`${target.url}/login`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${target.url}/`);
    const signedIn = { cookie: (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') };
    await gotoHydrated(page, `${target.url}/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${target.url}/login`);
    expect((await target.fetch('/api/settings', { headers: signedIn })).status).toBe(401);
  });

  it('says when the push service removed a device, and fits a 320 px phone, light and dark', async () => {
    const target = await dashboard();
    const { publicKey } = (await (await fetch(`${target.url}/api/push/key`)).json()) as { publicKey: string };
    const subscription = sandbox.subscribePush({ applicationServerKey: publicKey });
    const added = await target.fetch('/api/push/subscriptions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...subscription, id: undefined, name: 'Phone' }),
    });
    expect(added.status).toBe(201);
    // The user unsubscribed on the phone (or revoked the permission): the push service answers 410 from now on.
    sandbox.unsubscribePush(subscription.id);

    const ctx = await context(target, { viewport: { width: 320, height: 640 }, isMobile: true, hasTouch: true });
    const page = await ctx.newPage();
    await gotoHydrated(page, `${target.url}/settings#notifications`);
    const row = devicesSection(page).locator('li[data-device]');
    await expect.poll(() => row.count(), WHILE).toBe(1);
    await row.getByRole('button', { name: 'Send a test to Phone' }).click();
    await expect.poll(() => row.locator('.results li').textContent(), WHILE).toMatch(/^Gone: .+: the device was removed$/);
    await expect.poll(() => row.getByText('Removed by the push service').count(), WHILE).toBe(1);
    expect(await row.getByText(/^Removed$/).count()).toBe(1);
    expect(await row.getByRole('button', { name: 'Send a test to Phone' }).isDisabled()).toBe(true);

    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await devicesSection(page).scrollIntoViewIfNeeded();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
      for (const control of await devicesSection(page).locator('button, input').all()) {
        const box = await control.boundingBox();
        expect(box?.height ?? 0, await control.evaluate((element) => element.outerHTML.slice(0, 80))).toBeGreaterThanOrEqual(44);
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(320);
      }
      await devicesSection(page).screenshot({ path: `${screenshotDir}push-devices-320-${colorScheme}.png` });
    }
  });

  it('on an iPhone outside a Home Screen app says how to add it there; elsewhere without Push, that this browser cannot', async () => {
    const target = await dashboard();
    const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
    for (const [userAgent, expected] of [
      [iphone, /tap Share, then Add to Home Screen/],
      [undefined, /^This browser cannot receive push notifications\./],
    ] as const) {
      const ctx = await context(target, userAgent ? { userAgent, viewport: { width: 390, height: 800 }, isMobile: true, hasTouch: true } : {});
      await ctx.addInitScript(() => delete (window as { PushManager?: unknown }).PushManager);
      const page = await ctx.newPage();
      await gotoHydrated(page, `${target.url}/settings#notifications`);
      const note = devicesSection(page).getByRole('note');
      await expect.poll(() => note.textContent(), WHILE).toMatch(expected);
      expect(await devicesSection(page).getByRole('button', { name: 'Notify this device' }).count()).toBe(0);
    }
  });
});
