// The header on a phone, in Chromium against the built dashboard, light and dark at 320 and 390 px: every page is
// reachable (the links, the theme and sign-out behind one Menu button beside the bell), nothing covers them, nothing
// scrolls sideways; at a desktop's width the links sit in the header as before. Screenshots go to test-results/screenshots.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsPath, settingsSections } from '../src/lib/settings-sections.ts';
import { gotoHydrated, launchChromium, screenshotDir } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

let dashboard: RunningDashboard;
let browser: Browser;

beforeAll(async () => {
  [dashboard, browser] = await Promise.all([startDashboard(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

/** Whether the element is what a tap at its centre reaches (nothing drawn over it). */
const unobstructed = (page: Page, name: string) =>
  page.getByRole('link', { name, exact: true }).evaluate((link) => {
    const box = link.getBoundingClientRect();
    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return top !== null && (top === link || link.contains(top));
  });

const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

describe('the header on a phone', () => {
  for (const width of [320, 390]) {
    for (const dark of [false, true]) {
      it(`at ${width} px${dark ? ', dark' : ''}: the Menu button opens every page's link, reachable and 44 px tall, and the page does not scroll sideways`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 800 }, colorScheme: dark ? 'dark' : 'light' });
        const problems: string[] = [];
        page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
        await gotoHydrated(page, dashboard.url);
        expect(await scrollsSideways(page)).toBe(false);
        const menu = page.getByRole('button', { name: 'Menu' });
        expect(await menu.getAttribute('aria-expanded')).toBe('false');
        expect(await page.getByRole('link', { name: 'Settings', exact: true }).isVisible()).toBe(false);
        await menu.click();
        expect(await menu.getAttribute('aria-expanded')).toBe('true');
        for (const name of ['Dashboard', 'Briefing', 'Settings']) {
          const link = page.getByRole('link', { name, exact: true });
          expect(await link.isVisible(), name).toBe(true);
          expect(await unobstructed(page, name), name).toBe(true);
          expect((await link.boundingBox())?.height ?? 0, name).toBeGreaterThanOrEqual(44);
        }
        expect(await page.getByRole('radio', { name: 'Dark' }).isVisible()).toBe(true);
        await page.screenshot({ path: join(screenshotDir, `phone-menu-${width}${dark ? '-dark' : ''}.png`) });
        // Escape closes it; a link taken closes it on the way.
        await page.keyboard.press('Escape');
        expect(await menu.getAttribute('aria-expanded')).toBe('false');
        await menu.click();
        await page.getByRole('link', { name: 'Settings', exact: true }).click();
        await page.waitForURL('**/settings/projects');
        expect(await menu.getAttribute('aria-expanded')).toBe('false');
        expect(await scrollsSideways(page)).toBe(false);
        expect(problems).toEqual([]);
        await page.close();
      });
    }
  }

  /** The demo's data, turned on once for the tests that look at every page with it. */
  let demo: Promise<void> | undefined;
  const withDemo = () =>
    (demo ??= (async () => {
      const setup = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await gotoHydrated(setup, dashboard.url);
      await setup.getByRole('button', { name: 'Try it with demo data' }).click();
      await setup.getByRole('region', { name: 'Demo data' }).waitFor({ timeout: 20_000 });
      await setup.close();
    })());

  /** Each of `paths` at 320 and 390 px: nothing wider than the screen, and no sideways scroll. */
  async function expectFits(paths: string[]) {
    for (const width of [320, 390]) {
      for (const path of paths) {
        const page = await browser.newPage({ viewport: { width, height: 800 } });
        await gotoHydrated(page, dashboard.url + path);
        // The widgets' data in (each says when it was updated), and every card of Settings open, as when filling one in.
        if (path.startsWith('/?')) await page.getByText(/Updated /).first().waitFor({ timeout: 20_000 });
        if (path === '/briefing') await page.getByRole('heading', { level: 1 }).first().waitFor();
        if (path.startsWith('/settings')) await page.evaluate(() => document.querySelectorAll('details').forEach((details) => (details.open = true)));
        // What is wider than the screen, and not inside something that scrolls on its own (a row of tabs).
        const wide = await page.evaluate(() => {
          const width = document.documentElement.clientWidth;
          const scrollsItself = (element: Element) => {
            for (let parent = element.parentElement; parent; parent = parent.parentElement) if (getComputedStyle(parent).overflowX !== 'visible') return true;
            return false;
          };
          return [...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > width + 1 && !scrollsItself(element)).map((element) => `${element.tagName.toLowerCase()}.${element.className}`);
        });
        expect({ width, path, wide: wide.slice(0, 5) }).toEqual({ width, path, wide: [] });
        expect(await scrollsSideways(page), `${path} at ${width} px`).toBe(false);
        await page.close();
      }
    }
  }

  it('with the demo: neither the dashboard nor the briefing scrolls sideways at 320 or 390 px', async () => {
    await withDemo();
    await expectFits(['/', '/?project=formfox', '/?project=pocket-ledger', '/?project=tideline', '/briefing']);
  });

  it('with the demo: no page of Settings scrolls sideways at 320 or 390 px, every card open', { timeout: 120_000 }, async () => {
    await withDemo();
    await expectFits(settingsSections.map(({ id }) => settingsPath(id)));
  });

  it('at a desktop width keeps the links in the header, with no Menu button', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await gotoHydrated(page, dashboard.url);
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    for (const name of ['Dashboard', 'Briefing', 'Settings']) expect(await unobstructed(page, name), name).toBe(true);
    await page.close();
  });
});
