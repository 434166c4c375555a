// Toast or desktop notification, decided by what the user can see, in a real Chromium against the built
// dashboard: "in view" is `document.visibilityState === 'visible'` in any tab of the dashboard. A tab in
// view shows a toast and nothing reaches the desktop (a visible window without focus, on a second monitor,
// included); with no tab in view, one desktop notification from one tab and no toast anywhere.
// How the browser is made to see it: see desktop-visibility-testing.ts.
import { describe, expect, it } from 'vitest';
import { DEPLOYED, FAILED, setHidden, showingOn, shownIn, SUBJECT, toastsIn, visibilityTestBed } from './desktop-visibility-testing.ts';
import { sleep, until } from './waiting.ts';

const { dashboard, deliverVercel, context, tab } = visibilityTestBed();

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
