// What the Web Push tests in a real Chromium share: push-client-notifications.test.ts (what the service worker shows
// for a push, and a click on it) and push-client-devices.test.ts (Settings → Notifications → Devices).
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
import type { Browser, BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';
import { takeDownAfterEach, until } from './waiting.ts';

export const VERCEL_SECRET = 'vercel-signing-secret';
export const PASSWORD = 'correct horse battery staple';
/** How long a wait for what the worker or a page does on its own lasts at most (a busy machine is slow to run them). */
export const WHILE = { timeout: 30_000 };

/**
 * Registers the calling file's hooks (call it once at the file's top; the browser project shares modules between
 * files): the whole Chromium launched before the file's tests and closed after them, and what each test starts taken
 * down after it (`cleanup`). `dashboard` starts one for the test; `context` opens a browser context on it.
 */
export function pushTestBed() {
  const cleanup = takeDownAfterEach();
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium({ whole: true });
  });
  afterAll(async () => {
    await browser?.close();
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

  return { cleanup, dashboard, context };
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
export async function pusher(ctx: BrowserContext, keeper: Page, origin: string): Promise<(data: unknown) => Promise<void>> {
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

/** The running worker (a new one after Chromium stopped an idle one and a push started it again). */
export const workerOf = (ctx: BrowserContext): Worker => {
  const worker = ctx.serviceWorkers().at(-1);
  if (!worker) throw new Error('no service worker running');
  return worker;
};

export type Shown = { title: string; body: string; tag: string; icon: string; data: unknown };

/** The worker's global as these evaluations use it (the tests are typed with the DOM's library, not the worker's). */
export type WorkerScope = { registration: ServiceWorkerRegistration; clients: { matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<unknown[]> }; openFromNotification: (notification: Notification) => Promise<{ url: string } | null> };

/** What the system shows for the dashboard now, as the worker's registration reads it. */
export const notifications = (ctx: BrowserContext): Promise<Shown[]> =>
  workerOf(ctx).evaluate(async () =>
    (await (self as unknown as WorkerScope).registration.getNotifications()).map(({ title, body, tag, icon, data }) => ({ title, body, tag, icon, data: data as unknown })),
  );
