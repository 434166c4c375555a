// Settings → Notifications → Devices, in a real Chromium against the built dashboard: adds, lists, tests and removes
// the devices that get push notifications; signing out unsubscribes this browser. What is real and what is not (the
// subscription answered at the project's fake push service): see push-client-testing.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@dash/sandbox';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, screenshotDir } from './browser.ts';
import { notifications, PASSWORD, pushTestBed, pusher, WHILE } from './push-client-testing.ts';

const { cleanup, dashboard, context } = pushTestBed();

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** `pushManager.subscribe` answered by `subscription` (see push-client-testing.ts); what it was asked with is kept. */
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
