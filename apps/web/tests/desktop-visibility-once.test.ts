// Each interruption shown once, by some tab of the dashboard, whatever the timing, in a real Chromium against the
// built dashboard: a tab just gone out of view, a tab that goes without a word, a leader that goes, streams that are
// down and come back, a replay. A tab's stream lost, as a dropped connection loses it, is its EventSource closed and
// every try to open it again refused until the test lets it through (`cutStream`, `restoreStream`). How the browser
// is made to see the rest: see desktop-visibility-testing.ts.
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEPLOYED, FAILED, setHidden, showingOn, shownIn, type Spied, SUBJECT, toastsIn, visibilityTestBed } from './desktop-visibility-testing.ts';
import { sleep, until } from './waiting.ts';

const { dashboard, deliverVercel, context, tab } = visibilityTestBed();

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

