// What the tests of toast or desktop notification, by what the user can see, share
// (desktop-visibility-in-view.test.ts and desktop-visibility-once.test.ts): a dashboard per test, a tab of it hidden
// or in view, focused or not, and what each tab showed.
//
// How the browser is made to see it: headless Chromium keeps every page visible (a minimised window and a
// background target stay `visible`), so a page's visibility is switched from a script that overrides
// `document.visibilityState` and fires `visibilitychange`, as the browser does. Focus is the browser's own:
// CDP's `Emulation.setFocusEmulationEnabled: false` leaves `document.hasFocus()` false. A tab that hears the
// other tabs late, or goes without a word (a crash), is a script holding back or dropping its BroadcastChannel
// messages (`gatedChannel`); a tab's stream lost, as a dropped connection loses it, is its EventSource closed and
// every try to open it again refused until the test lets it through (`cutStream`, `restoreStream`, in desktop-visibility-once.test.ts).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { deliverySigner } from '../../../packages/webhooks/src/signed-deliveries.ts';
import * as vercel from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { gotoHydrated, launchChromium } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';
import { takeDownAfterEach, until } from './waiting.ts';

const VERCEL_SECRET = 'vercel-signing-secret';
const signed = deliverySigner({ vercel: VERCEL_SECRET });
export const SUBJECT = 'vercel:prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB:production';
export const FAILED = 'Deploy failed: my-app (production)';
export const DEPLOYED = 'Deployed: my-app (production)';
export type Spied = Window & {
  __shown: { title: string; tag: string }[];
  __hidden: boolean;
  __streams: EventSource[];
  __gate: { closed: boolean; muted: boolean; held: { type: string; deliver: () => void }[] };
};

/**
 * Records every desktop notification the page shows (before its scripts run): through the service worker's
 * registration, as it does once the worker is active, or `new Notification(…)`, its way without one.
 */
function spyOnNotifications() {
  const spied = window as unknown as Spied;
  spied.__shown = [];
  const show = Object.getOwnPropertyDescriptor(ServiceWorkerRegistration.prototype, 'showNotification')?.value as (this: ServiceWorkerRegistration, title: string, options?: NotificationOptions) => Promise<void>;
  ServiceWorkerRegistration.prototype.showNotification = function (this: ServiceWorkerRegistration, title: string, options?: NotificationOptions) {
    spied.__shown.push({ title, tag: options?.tag ?? '' });
    return show.call(this, title, options);
  };
  const Real = window.Notification;
  class Spy extends Real {
    constructor(title: string, options?: NotificationOptions) {
      spied.__shown.push({ title, tag: options?.tag ?? '' });
      super(title, options);
    }
  }
  Object.defineProperty(window, 'Notification', { value: Spy, configurable: true, writable: true });
}

/** The tags of the notices the device shows for the dashboard now, as the service worker's registration lists them. */
export const showingOn = (page: Page) => page.evaluate(async () => ((await (await navigator.serviceWorker.getRegistration())?.getNotifications()) ?? []).map((notice) => notice.tag));
/**
 * The messages from the other tabs, which the test can hold back (`__gate.closed`) and let through later (a tab that
 * hears the others late), and the tab's own, which it can drop (`__gate.muted`: a tab that says nothing more).
 */
function gatedChannel() {
  const spied = window as unknown as Spied;
  const gate: Spied['__gate'] = { closed: false, muted: false, held: [] };
  spied.__gate = gate;
  const onmessage = Object.getOwnPropertyDescriptor(BroadcastChannel.prototype, 'onmessage');
  Object.defineProperty(BroadcastChannel.prototype, 'onmessage', {
    configurable: true,
    get(this: BroadcastChannel) {
      return onmessage?.get?.call(this) as unknown;
    },
    set(this: BroadcastChannel, listener: ((event: MessageEvent) => void) | null) {
      const gated = listener && ((event: MessageEvent) => (gate.closed ? gate.held.push({ type: String((event.data as { type?: unknown } | null)?.type), deliver: () => listener.call(this, event) }) : listener.call(this, event)));
      onmessage?.set?.call(this, gated);
    },
  });
  const post = Object.getOwnPropertyDescriptor(BroadcastChannel.prototype, 'postMessage')?.value as (this: BroadcastChannel, message: unknown) => void;
  BroadcastChannel.prototype.postMessage = function (this: BroadcastChannel, message: unknown) {
    if (!gate.muted) post.call(this, message);
  };
}

/** Keeps the tab's live streams (its EventSources), for `cutStream` to end. */
function cuttableStreams() {
  const spied = window as unknown as Spied;
  spied.__streams = [];
  const Real = window.EventSource;
  class Tracked extends Real {
    constructor(url: string | URL, init?: EventSourceInit) {
      super(url, init);
      spied.__streams.push(this);
    }
  }
  Object.defineProperty(window, 'EventSource', { value: Tracked, configurable: true, writable: true });
}

/** The page's visibility, switchable later by `setHidden` (which fires `visibilitychange` as the browser does). */
function switchableVisibility(hidden: boolean) {
  const spied = window as unknown as Spied;
  spied.__hidden = hidden;
  Object.defineProperty(Document.prototype, 'visibilityState', { get: () => (spied.__hidden ? 'hidden' : 'visible'), configurable: true });
  Object.defineProperty(Document.prototype, 'hidden', { get: () => spied.__hidden, configurable: true });
}

export async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((value) => {
    (window as unknown as Spied).__hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

/**
 * Registers the calling file's hooks (call it once at the file's top; the browser project shares modules between
 * files): what each test starts taken down after it, and the file's Chromium. `dashboard` starts one for the test,
 * `deliverVercel` sends it a deployment, `context` opens a browser context on it, `tab` a tab in that context.
 */
export function visibilityTestBed() {
  const cleanup = takeDownAfterEach();

  async function dashboard(): Promise<RunningDashboard> {
    const running = await startDashboard({ env: { WEBHOOK_SECRET_VERCEL: VERCEL_SECRET } });
    cleanup.push(() => running.stop());
    return running;
  }

  let deliveries = 0;

  /** Vercel's deployment fixture of `type` (a deployment and delivery of its own), signed as Vercel signs, to the dashboard's own webhook route. */
  async function deliverVercel(target: RunningDashboard, type: string) {
    deliveries += 1;
    const body = JSON.stringify({ ...(JSON.parse(vercel.deployment(type, { id: `dpl_visibility_${deliveries}` })) as object), id: `evt_visibility_${deliveries}` });
    const { headers } = signed.vercel(body);
    const response = await fetch(`${target.url}/api/webhooks/deploy_host`, { method: 'POST', body, headers });
    expect([response.status, await response.json()]).toEqual([200, { received: true, eventCount: 1 }]);
  }

  /** One Chromium for the file, started beside the first dashboard; each test has a browser context (cookies, storage, permissions) of its own. */
  let chromium: Promise<Browser>;
  beforeAll(() => {
    chromium = launchChromium({ whole: true });
    // A failed launch is the first test's failure, where it awaits the browser; not an unhandled rejection before that.
    chromium.catch(() => undefined);
  });
  afterAll(async () => {
    await (await chromium.catch(() => undefined))?.close();
  });

  async function context(target: RunningDashboard): Promise<BrowserContext> {
    const created = await (await chromium).newContext({ viewport: { width: 1280, height: 900 } });
    cleanup.push(() => created.close());
    await created.grantPermissions(['notifications'], { origin: target.url });
    await created.addInitScript(spyOnNotifications);
    await created.addInitScript(gatedChannel);
    await created.addInitScript(cuttableStreams);
    return created;
  }

  /**
   * A tab of the dashboard with its live stream open (or, `stream: false`, refused at every try): hidden or
   * not, focused or not. Unfocused as a real window is: without Playwright's focus emulation, while another
   * tab of the browser is brought to the front.
   */
  async function tab(ctx: BrowserContext, target: RunningDashboard, how: { hidden: boolean; focused?: boolean; stream?: boolean }, problems: string[]): Promise<Page> {
    const page = await ctx.newPage();
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    await page.addInitScript(switchableVisibility, how.hidden);
    if (how.stream === false) {
      await page.route(/notifications\.stream/, (route) => route.abort());
      // Hydrated once the bell asks for its stream (refused here).
      const hydrated = page.waitForRequest(/notifications\.stream/);
      await page.goto(target.url);
      await hydrated;
    } else {
      await gotoHydrated(page, target.url);
    }
    // The service worker active: desktop notifications go through its registration, where the device lists them.
    await page.evaluate(() => navigator.serviceWorker.ready);
    if (how.focused === false) {
      // After the navigation: the page's new renderer starts with the emulation on again.
      await (await ctx.newCDPSession(page)).send('Emulation.setFocusEmulationEnabled', { enabled: false });
      const elsewhere = await ctx.newPage();
      await elsewhere.bringToFront();
      await until(() => page.evaluate(() => document.hasFocus()), (focused) => !focused, 5_000, 'the tab without focus');
    }
    return page;
  }

  return { dashboard, deliverVercel, context, tab };
}

export const shownIn = (page: Page) => page.evaluate(() => (window as unknown as Spied).__shown);
export const toastsIn = (page: Page) => page.getByRole('status', { name: 'Alerts' }).locator(`[data-tag="${SUBJECT}"]`);
