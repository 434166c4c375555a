// The header on a phone, in Chromium against the built dashboard, light and dark at 320 and 390 px: every page is
// reachable (the links, the theme and sign-out behind one Menu button beside the bell), nothing covers them, nothing
// scrolls sideways; at a desktop's width the links sit in the header as before. Screenshots go to test-results/screenshots.
// Every page's own fit and touch targets on a phone: phone-pages.test.ts.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { gotoHydrated, screenshotDir, scrollsSideways } from './browser.ts';
import { dashboardForFile } from './fixture.ts';


/** Whether the element is what a tap at its centre reaches (nothing drawn over it). */
const unobstructed = (page: Page, name: string) =>
  page.getByRole('link', { name, exact: true }).evaluate((link) => {
    const box = link.getBoundingClientRect();
    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return top !== null && (top === link || link.contains(top));
  });


const suite = dashboardForFile();
describe('the header on a phone', () => {
  for (const width of [320, 390]) {
    for (const dark of [false, true]) {
      it(`at ${width} px${dark ? ', dark' : ''}: the Menu button opens every page's link, reachable and 44 px tall, and the page does not scroll sideways`, async () => {
        const page = await suite.browser.newPage({ viewport: { width, height: 800 }, colorScheme: dark ? 'dark' : 'light' });
        const problems: string[] = [];
        page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
        await gotoHydrated(page, suite.dashboard.url);
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

  it('at a desktop width keeps the links in the header, with no Menu button', async () => {
    const page = await suite.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await gotoHydrated(page, suite.dashboard.url);
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    for (const name of ['Dashboard', 'Briefing', 'Settings']) expect(await unobstructed(page, name), name).toBe(true);
    await page.close();
  });
});
