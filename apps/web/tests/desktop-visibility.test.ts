// Toast or desktop notification, decided by what the user can see, in a real Chromium against the built
// dashboard: "in view" is `document.visibilityState === 'visible'` in any tab of the dashboard. A tab in
// view shows a toast and nothing reaches the desktop (a visible window without focus, on a second monitor,
// included); with no tab in view, one desktop notification from one tab and no toast anywhere.
//
// How the browser is made to see it: headless Chromium keeps every page visible (a minimised window and a
// background target stay `visible`), so a page's visibility is switched from a script that overrides
// `document.visibilityState` and fires `visibilitychange`, as the browser does. Focus is the browser's own:
// CDP's `Emulation.setFocusEmulationEnabled: false` leaves `document.hasFocus()` false. A tab that hears the
// other tabs late, or goes without a word (a crash), is a script holding back or dropping its BroadcastChannel
// messages (`gatedChannel`); a tab's stream lost, as a dropped connection loses it, is its EventSource closed and
// every try to open it again refused until the test lets it through (`cutStream`, `restoreStream`).
import { createHmac } from 'node:crypto';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as vercel from '../../../packages/webhooks/src/vercel/fixtures.ts';
import { gotoHydrated, launchChromium } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';
import { sleep, takeDownAfterEach, until } from './waiting.ts';

const cleanup = takeDownAfterEach();

const VERCEL_SECRET = 'vercel-signing-secret';
const SUBJECT = 'vercel:prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB:production';
const FAILED = 'Deploy failed: my-app (production)';
const DEPLOYED = 'Deployed: my-app (production)';

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
  const signature = createHmac('sha1', VERCEL_SECRET).update(body).digest('hex');
  const response = await fetch(`${target.url}/api/webhooks/deploy_host`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-vercel-signature': signature },
  });
  expect([response.status, await response.json()]).toEqual([200, { received: true, eventCount: 1 }]);
}

type Spied = Window & {
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
const showingOn = (page: Page) => page.evaluate(async () => ((await (await navigator.serviceWorker.getRegistration())?.getNotifications()) ?? []).map((notice) => notice.tag));

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

/** Takes the tab's live stream away as a dropped connection does: the open one ends, and every try to open it again fails until `restoreStream`. */
async function cutStream(page: Page) {
  await page.route(/notifications\.stream/, (route) => route.abort());
  await page.evaluate(() => {
    for (const stream of (window as unknown as Spied).__streams) {
      if (stream.readyState === EventSource.CLOSED) continue;
      stream.close();
      stream.dispatchEvent(new Event('error'));
    }
  });
}

async function restoreStream(page: Page) {
  await page.unroute(/notifications\.stream/);
}

/** Waits until the tab's live stream is open again after `cutStream` (the ones it closed stay closed). */
async function streamOpen(page: Page) {
  await until(() => page.evaluate(() => (window as unknown as Spied).__streams.some((stream) => stream.readyState === EventSource.OPEN)), Boolean, 15_000, 'the stream open again');
}

/** The page's visibility, switchable later by `setHidden` (which fires `visibilitychange` as the browser does). */
function switchableVisibility(hidden: boolean) {
  const spied = window as unknown as Spied;
  spied.__hidden = hidden;
  Object.defineProperty(Document.prototype, 'visibilityState', { get: () => (spied.__hidden ? 'hidden' : 'visible'), configurable: true });
  Object.defineProperty(Document.prototype, 'hidden', { get: () => spied.__hidden, configurable: true });
}

async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((value) => {
    (window as unknown as Spied).__hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
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

const shownIn = (page: Page) => page.evaluate(() => (window as unknown as Spied).__shown);
const toastsIn = (page: Page) => page.getByRole('status', { name: 'Alerts' }).locator(`[data-tag="${SUBJECT}"]`);

describe('desktop notification or toast, by what is in view', () => {
  it('shows a toast, not a desktop notification, in a visible tab without focus (a second monitor)', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    const page = await tab(ctx, target, { hidden: false, focused: false }, problems);
    expect(await page.evaluate(() => [document.visibilityState, document.hasFocus(), Notification.permission])).toEqual(['visible', false, 'granted']);

    await deliverVercel(target, 'deployment.error');
    await toastsIn(page).waitFor({ timeout: 10_000 });
    expect(await toastsIn(page).innerText()).toContain(FAILED);
    await sleep(1_000);
    expect(await shownIn(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('with a hidden tab leading and a visible one: a toast only, even when the visible tab reads its stream late; hidden too, one desktop notification and no toast', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    // The hidden tab comes first: it takes the desktop-alerts lock and leads.
    const hidden = await tab(ctx, target, { hidden: true }, problems);
    const visible = await tab(ctx, target, { hidden: false, focused: false }, problems);
    await sleep(500);
    const desktop = async () => [...(await shownIn(hidden)), ...(await shownIn(visible))];

    // A visible tab without focus: the toast is there, the hidden leader stays silent.
    await deliverVercel(target, 'deployment.error');
    await toastsIn(visible).waitFor({ timeout: 10_000 });
    await sleep(1_000);
    expect(await desktop()).toEqual([]);

    // The visible tab busy for 2 s as the recovery arrives: its stream's event is read long after the leader's.
    await visible.evaluate(() => {
      setTimeout(() => {
        const end = Date.now() + 2_000;
        while (Date.now() < end);
      }, 0);
    });
    await deliverVercel(target, 'deployment.succeeded');
    await until(() => toastsIn(visible).innerText(), (text) => text.includes(DEPLOYED), 10_000, 'the recovery toasted');
    await sleep(1_000);
    expect(await desktop()).toEqual([]);
    expect(await toastsIn(visible).count()).toBe(1);
    expect(await toastsIn(hidden).count()).toBe(0);

    // Now neither is in view: one desktop notification, from one tab, and no toast.
    await setHidden(visible, true);
    await visible.getByRole('status', { name: 'Alerts' }).locator('[data-tag]').first().waitFor({ state: 'detached', timeout: 10_000 });
    await deliverVercel(target, 'deployment.error');
    await until(desktop, (shown) => shown.length >= 1, 10_000, 'a desktop notification');
    await sleep(1_500);
    expect(await desktop()).toEqual([{ title: FAILED, tag: SUBJECT }]);
    expect(await shownIn(hidden)).toHaveLength(1);
    expect(await showingOn(hidden)).toEqual([SUBJECT]);
    expect(await toastsIn(visible).count()).toBe(0);
    expect(await toastsIn(hidden).count()).toBe(0);

    // In view again: the recovery is a toast, and the outage's desktop notification, now untrue, is closed.
    await setHidden(visible, false);
    await sleep(300);
    await deliverVercel(target, 'deployment.succeeded');
    await until(() => toastsIn(visible).innerText(), (text) => text.includes(DEPLOYED), 10_000, 'the recovery toasted');
    await until(() => showingOn(hidden), (tags) => tags.length === 0, 5_000, 'the outage’s notification closed');
    await sleep(1_000);
    expect(await desktop()).toHaveLength(1);
    expect(await showingOn(visible)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('toasts in a visible tab whose own stream is down when the hidden leader gets the interruption, and nothing reaches the desktop', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    const hidden = await tab(ctx, target, { hidden: true }, problems);
    // The visible tab's stream is refused at every try (a network that drops it, a proxy): it hears nothing itself.
    const visible = await tab(ctx, target, { hidden: false, stream: false }, problems);
    await sleep(500);

    await deliverVercel(target, 'deployment.error');
    await toastsIn(visible).waitFor({ timeout: 10_000 });
    expect(await toastsIn(visible).innerText()).toContain(FAILED);
    await sleep(1_000);
    expect([...(await shownIn(hidden)), ...(await shownIn(visible))]).toEqual([]);
    expect(problems).toEqual([]);
  });
});

const unreadIn = (page: Page, count: number) => page.getByRole('button', { name: `Notifications, ${count} unread` });
const desktopIn = async (...pages: Page[]) => (await Promise.all(pages.map(shownIn))).flat();
const toastCount = async (...pages: Page[]) => (await Promise.all(pages.map((page) => toastsIn(page).count()))).reduce((a, b) => a + b, 0);

/** Holds back what the tab hears from the other tabs (its channel's gate) until the test lets it through. */
const holdChannel = (page: Page) => page.evaluate(() => ((window as unknown as Spied).__gate.closed = true));

/** Waits until the tab's held-back messages include one of `type`. */
const heldBack = (page: Page, type: string, what: string) =>
  until(() => page.evaluate(() => (window as unknown as Spied).__gate.held.map((m) => m.type)), (types) => types.includes(type), 10_000, what);

/** The failed deploy on the desktop of one of `pages`, once, and no toast: nothing more comes a moment later either. */
async function expectOnceOnDesktop(...pages: Page[]) {
  await until(() => desktopIn(...pages), (shown) => shown.length >= 1, 10_000, 'a desktop notification');
  await sleep(1_500);
  expect(await desktopIn(...pages)).toEqual([{ title: FAILED, tag: SUBJECT }]);
  expect(await toastCount(...pages)).toBe(0);
}

describe('each interruption shown once, by some tab, whatever the timing', () => {
  it('shows on the desktop an offer that reached a tab just gone out of view, and nowhere else', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    const hidden = await tab(ctx, target, { hidden: true }, problems);
    // In view but deaf to its own stream: it can only hear of the interruption from the leader's offer.
    const visible = await tab(ctx, target, { hidden: false, stream: false }, problems);

    // The visible tab hears the other tabs late: the offer is held until it has gone out of view.
    await holdChannel(visible);
    await deliverVercel(target, 'deployment.error');
    await heldBack(visible, 'offer', 'offered to the tab in view');
    await visible.evaluate(() => {
      const spied = window as unknown as Spied;
      spied.__hidden = true;
      document.dispatchEvent(new Event('visibilitychange'));
      spied.__gate.closed = false;
      for (const message of spied.__gate.held.splice(0)) message.deliver();
    });

    await expectOnceOnDesktop(hidden, visible);
    expect(problems).toEqual([]);
  });

  it('shows on the desktop an offer whose tab in view went without a word before answering it', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    const hidden = await tab(ctx, target, { hidden: true }, problems);
    const visible = await tab(ctx, target, { hidden: false, stream: false }, problems);

    await holdChannel(visible);
    await deliverVercel(target, 'deployment.error');
    await heldBack(visible, 'offer', 'offered to the tab in view');
    // Gone without a word, as a crashed tab goes: its pagehide's message is lost, and only its Web Lock, released by the browser, tells.
    await visible.evaluate(() => ((window as unknown as Spied).__gate.muted = true));
    await visible.close();

    await expectOnceOnDesktop(hidden);
    expect(problems).toEqual([]);
  });

  it('while the leader’s stream is down, shows what another hidden tab’s stream brings, once, and not again when the leader’s replay comes', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    // The first tab leads.
    const leader = await tab(ctx, target, { hidden: true }, problems);
    const other = await tab(ctx, target, { hidden: true }, problems);
    await deliverVercel(target, 'deployment.error');
    await until(() => desktopIn(leader, other), (shown) => shown.length >= 1, 10_000, 'a desktop notification');
    await Promise.all([unreadIn(leader, 1).waitFor(), unreadIn(other, 1).waitFor()]);

    await cutStream(leader);
    await deliverVercel(target, 'deployment.succeeded');
    await until(() => desktopIn(leader, other), (shown) => shown.length >= 2, 10_000, 'the recovery on the desktop');

    // The leader's stream comes back and replays what it missed: the desktop does not get it again.
    await restoreStream(leader);
    await streamOpen(leader);
    await sleep(1_500);
    expect(await desktopIn(leader, other)).toEqual([
      { title: FAILED, tag: SUBJECT },
      { title: DEPLOYED, tag: SUBJECT },
    ]);
    expect(await toastCount(leader, other)).toBe(0);
    expect(problems).toEqual([]);
  });

  it('shows what the leader left undecided when it goes: the next leader takes it over', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    const leader = await tab(ctx, target, { hidden: true }, problems);
    const next = await tab(ctx, target, { hidden: true }, problems);
    // The leader hears nothing: its stream is down, and the other tab's word waits.
    await cutStream(leader);
    await holdChannel(leader);
    await deliverVercel(target, 'deployment.error');
    await heldBack(leader, 'received', 'handed to the leader');
    await leader.close();

    await expectOnceOnDesktop(next);
    expect(problems).toEqual([]);
  });

  it('shows once what was sent while every tab’s stream was down, when they come back: on the desktop with no tab in view, as a toast with one', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    const first = await tab(ctx, target, { hidden: true }, problems);
    const second = await tab(ctx, target, { hidden: true }, problems);
    // An event first, so that each stream has a place to resume from.
    await deliverVercel(target, 'deployment.error');
    await until(() => desktopIn(first, second), (shown) => shown.length >= 1, 10_000, 'a desktop notification');
    await Promise.all([unreadIn(first, 1).waitFor(), unreadIn(second, 1).waitFor()]);

    const whileAway = async (type: string) => {
      await Promise.all([cutStream(first), cutStream(second)]);
      await deliverVercel(target, type);
      await Promise.all([restoreStream(first), restoreStream(second)]);
    };
    await whileAway('deployment.succeeded');
    await until(() => desktopIn(first, second), (shown) => shown.length >= 2, 15_000, 'the recovery on the desktop');
    await Promise.all([streamOpen(first), streamOpen(second)]);
    await sleep(1_500);
    expect((await desktopIn(first, second)).map((shown) => shown.title)).toEqual([FAILED, DEPLOYED]);
    expect(await toastCount(first, second)).toBe(0);

    // The second tab in view: the next outage, sent while both were away, is its toast, and nothing more reaches the desktop.
    await setHidden(second, false);
    await whileAway('deployment.error');
    await until(() => toastsIn(second).allInnerTexts(), (texts) => texts.some((text) => text.includes(FAILED)), 15_000, 'the outage toasted');
    await Promise.all([streamOpen(first), streamOpen(second)]);
    await sleep(1_500);
    expect(await desktopIn(first, second)).toHaveLength(2);
    expect(await toastCount(first, second)).toBe(1);
    expect(problems).toEqual([]);
  });

  it('shows what was sent while the stream was away even when that stream had brought nothing yet (it starts at the page’s position)', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    // A fresh page, no event since it loaded: its stream has no event id of its own to resume from.
    const only = await tab(ctx, target, { hidden: true }, problems);
    await cutStream(only);
    await deliverVercel(target, 'deployment.error');
    await restoreStream(only);
    await until(() => desktopIn(only), (shown) => shown.length >= 1, 15_000, 'the outage on the desktop');
    await streamOpen(only);
    await sleep(1_500);
    expect((await desktopIn(only)).map((shown) => shown.title)).toEqual([FAILED]);
    expect(problems).toEqual([]);
  });

  it('keeps a replay sent over two minutes before out of pop-ups, and shows a recent one', async () => {
    const target = await dashboard();
    const ctx = await context(target);
    const problems: string[] = [];
    const page = await tab(ctx, target, { hidden: true }, problems);
    await deliverVercel(target, 'deployment.error');
    await until(() => shownIn(page), (shown) => shown.length >= 1, 10_000, 'a desktop notification');

    // Ten minutes on by the server's clock (the Date of its answers): what the stream replays now was sent long ago.
    const notStream = (url: URL) => !url.href.includes('notifications.stream');
    const later = async (route: Route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), date: new Date(Date.now() + 600_000).toUTCString() } });
    };
    await page.route(notStream, later);
    await cutStream(page);
    await deliverVercel(target, 'deployment.succeeded');
    await restoreStream(page);
    await streamOpen(page);
    await sleep(1_500);
    expect(await shownIn(page)).toEqual([{ title: FAILED, tag: SUBJECT }]);

    // The server's own time again: a replay of moments ago is shown (once the user has closed the first notice, which
    // says the same words: a notice showing them already is not shown twice, notice.ts `saysAlready`).
    await page.evaluate(async () => {
      for (const notice of (await (await navigator.serviceWorker.getRegistration())?.getNotifications()) ?? []) notice.close();
    });
    expect(await showingOn(page)).toEqual([]);
    await page.unroute(notStream, later);
    await cutStream(page);
    await deliverVercel(target, 'deployment.error');
    await restoreStream(page);
    await until(() => shownIn(page), (shown) => shown.length >= 2, 15_000, 'a desktop notification');
    expect(await shownIn(page)).toEqual([
      { title: FAILED, tag: SUBJECT },
      { title: FAILED, tag: SUBJECT },
    ]);
    expect(await showingOn(page)).toEqual([SUBJECT]);
    expect(problems).toEqual([]);
  });
});

