// Signing in to the dashboard in a real Chromium: over plain HTTP (a local dashboard, and a remote one at its LAN
// address, with the plain-HTTP warning), and the first-run setup of a remote dashboard with the printed link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshotDir } from './browser.ts';
import { PASSWORD, setPassword } from './security-testing.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

/** This machine's first LAN address: the plain-HTTP sign-in is tried over it. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
if (!lanAddress) console.warn('[security-sign-in.test] This machine has no non-internal IPv4 address: the LAN sign-in test is skipped.');

/** The run's shared whole Chromium (the file needs no flags of its own). */
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium({ whole: true });
});
afterAll(async () => {
  await browser?.close();
});

const sessionCookieOf = async (context: BrowserContext, url: string) => (await context.cookies(url)).find((cookie) => cookie.name === 'dash_session');

/** Waits for `url` and says what the page shows when it is not there (the server's refusal, say). */
async function expectAt(page: Page, url: string) {
  await page.waitForURL(url, { timeout: 5_000 }).catch(() => undefined);
  expect(page.url(), `the page shows: ${await page.locator('body').innerText()}`).toBe(url);
}

describe('signing in over plain HTTP', () => {
  const passwordDir = mkdtempSync(join(tmpdir(), 'dash-password-'));
  afterAll(() => rmSync(passwordDir, { recursive: true, force: true }));

  /** The whole round: sent to sign in, a wrong password, the right one, the cookie, the banner, signing out. */
  async function signInAndOut(dashboard: RunningDashboard, { lan }: { lan: boolean }) {
    const url = dashboard.url;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${url}/settings`);
      expect(page.url()).toBe(`${url}/login?next=%2Fsettings`);
      await page.goto(`${url}/`);
      expect(page.url()).toBe(`${url}/login`);

      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').filter({ hasText: 'That password' }).innerText()).toBe('That password is not right.');
      expect(await sessionCookieOf(context, url)).toBeUndefined();
      if (!lan) await page.screenshot({ path: `${screenshotDir}login.png` });

      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${url}/`);
      await expect.poll(() => page.getByRole('heading', { name: 'Good morning.' }).isVisible()).toBe(true);

      const cookie = await sessionCookieOf(context, url);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
      expect(await page.evaluate(() => document.cookie)).not.toContain('dash_session');
      const banner = page.getByRole('alert').filter({ hasText: 'Served over plain HTTP' });
      expect(await banner.count()).toBe(lan ? 1 : 0);
      if (lan) expect(await banner.isVisible()).toBe(true);

      const withOldCookie = () => fetch(`${url}/api/settings`, { headers: { cookie: `dash_session=${cookie?.value}` } });
      expect((await withOldCookie()).status).toBe(200);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expectAt(page, `${url}/login`);
      expect(await sessionCookieOf(context, url)).toBeUndefined();
      expect((await withOldCookie()).status).toBe(401);
      await page.goto(`${url}/`);
      expect(page.url()).toBe(`${url}/login`);
    } finally {
      await context.close();
    }
  }

  it('signs in and out of a local dashboard at http://127.0.0.1, without the plain-HTTP warning', async () => {
    const dashboard = await startDashboard();
    try {
      await setPassword(dashboard, PASSWORD);
      await signInAndOut(dashboard, { lan: false });
    } finally {
      await dashboard.stop();
    }
  });

  it.skipIf(!lanAddress)(
    `signs in and out of a remote dashboard at its LAN address (http://${lanAddress ?? 'none: skipped, no non-internal IPv4 here'}), warning about plain HTTP`,
    async () => {
      const passwordFile = join(passwordDir, 'password');
      writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
      const dashboard = await startDashboard({
        env: (port) => ({ HOST: '0.0.0.0', ORIGIN: `http://${lanAddress}:${port}`, DASHBOARD_PASSWORD_FILE: passwordFile }),
      });
      try {
        expect(dashboard.url).toBe(`http://${lanAddress}:${dashboard.port}`);
        await signInAndOut(dashboard, { lan: true });
      } finally {
        await dashboard.stop();
      }
    },
  );
});

describe('first-run setup of a remote dashboard', () => {
  let dashboard: RunningDashboard;
  beforeAll(async () => {
    dashboard = await startDashboard({ env: (port) => ({ HOST: '0.0.0.0', ORIGIN: `http://127.0.0.1:${port}` }) });
  });
  afterAll(async () => {
    await dashboard?.stop();
  });

  it('opens only with the printed link, which leaves the address bar, and signs in with the chosen password', async () => {
    const url = dashboard.url;
    await expect.poll(() => dashboard.output()).toMatch(/Open \S+\/setup\?token=\S+ to choose one/);
    const link = /Open (\S+\/setup\?token=\S+) to choose one/.exec(dashboard.output())?.[1] ?? '';
    expect(link.startsWith(`${url}/setup?token=`)).toBe(true);
    expect(existsSync(join(dashboard.dataDir, 'setup-token'))).toBe(true);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const stranger = await browser.newContext();
    try {
      const page = await context.newPage();
      const before = await page.goto(`${url}/`);
      expect(before?.status()).toBe(403);
      expect(page.url()).toBe(`${url}/setup`);
      await expect.poll(() => page.locator('body').innerText()).toContain('Open the setup link the server printed in its log');
      expect((await fetch(`${url}/api/settings`)).status).toBe(503);

      await page.goto(link);
      expect(page.url()).toBe(`${url}/setup`);
      await expect.poll(() => page.getByRole('heading', { name: "Choose the dashboard's password" }).isVisible()).toBe(true);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('The same again').fill(PASSWORD);
      await page.screenshot({ path: `${screenshotDir}setup.png` });
      await page.getByRole('button', { name: 'Set the password' }).click();
      await page.waitForURL(`${url}/`);
      await expect.poll(() => page.getByRole('heading', { name: 'Good morning.' }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      expect(await sessionCookieOf(context, url)).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect((await context.request.get(`${url}/api/settings`)).status()).toBe(200);
      expect(existsSync(join(dashboard.dataDir, 'setup-token'))).toBe(false);

      // The link is spent: signed in it goes home, anyone else to the sign-in page.
      await page.goto(link);
      expect(page.url()).toBe(`${url}/`);
      const other = await stranger.newPage();
      await other.goto(link);
      expect(other.url()).toBe(`${url}/login`);
      expect((await fetch(`${url}/api/settings`)).status).toBe(401);
    } finally {
      await context.close();
      await stranger.close();
    }
  });
});
