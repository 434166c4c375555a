// Web Push on the device, in a real Chromium against the built dashboard: the service worker turns a push into one
// notification (none while a dashboard tab is in view, but a test always), a recovery replaces its outage, and a click
// brings the dashboard to the thread. What is real and what is not: see push-client-testing.ts.
import { createHmac } from 'node:crypto';
import type { PushPayload } from '@dash/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import * as vercel from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { gotoHydrated } from './browser.ts';
import { notifications, pushTestBed, pusher, VERCEL_SECRET, WHILE, workerOf, type WorkerScope } from './push-client-testing.ts';
import type { RunningDashboard } from './server.ts';
import { sleep, until } from './waiting.ts';

const { dashboard, context } = pushTestBed();

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
