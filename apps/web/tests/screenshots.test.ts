// The pictures in the README and docs/, taken in Chromium from the built dashboard over the demo's seeded data:
// All projects and a project at a desk's width, the briefing, Settings → Notifications, and a phone at 390 px, light
// and dark. Each waits for its page's data first, so a page that no longer renders fails here instead of being
// pictured empty. `npm run screenshots` sets SCREENSHOTS_DIR=docs/images to renew the committed ones; any other run
// writes to a temporary directory and leaves docs/ alone.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, scrollsSideways } from './browser.ts';
import { dashboardForFile } from './fixture.ts';

const outDir = process.env.SCREENSHOTS_DIR ? resolve(process.env.SCREENSHOTS_DIR) : mkdtempSync(join(tmpdir(), 'dash-screenshots-'));

const suite = dashboardForFile();
beforeAll(() => {
  mkdirSync(outDir, { recursive: true });
});

interface View {
  width?: number;
  height?: number;
  dark?: boolean;
}

async function open(path: string, view: View = {}): Promise<{ page: Page; problems: string[] }> {
  // Fixed locale, zone and reduced motion: the same pixels from one run to the next, no transition caught halfway.
  const page = await suite.browser.newPage({
    viewport: { width: view.width ?? 1280, height: view.height ?? 800 },
    colorScheme: view.dark ? 'dark' : 'light',
    reducedMotion: 'reduce',
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await gotoHydrated(page, suite.dashboard.url + path);
  return { page, problems };
}

/**
 * Writes the picture at device scale 1 (small files), with animations stopped and no caret: the viewport, or a
 * section of the page cut at `maxHeight` (Settings' sections are long; the top says what the section is).
 */
async function picture(page: Page, name: string, section?: Locator, maxHeight = 680): Promise<void> {
  const options = { path: join(outDir, `${name}.png`), animations: 'disabled', caret: 'hide', scale: 'css' } as const;
  if (!section) return void (await page.screenshot(options));
  const box = await section.boundingBox();
  if (!box) throw new Error(`${name}: the section is not on the page`);
  const scrollY = await page.evaluate(() => window.scrollY);
  const margin = 16;
  await page.screenshot({ ...options, fullPage: true, clip: { x: Math.max(0, box.x - margin), y: Math.max(0, box.y + scrollY - margin), width: box.width + 2 * margin, height: Math.min(box.height, maxHeight) + margin } });
}

const widget = (page: Page, name: string) => page.locator(`[data-widget="${name}"]`);

/**
 * The first widgets' data in (a figure, a list, a chart's numbers) and no source left out, so the picture shows a
 * working dashboard. RevenueCat allows 5 requests a minute: the views are taken in an order that reads its answers
 * from the cache (All projects once, then the same view at other sizes), and the project shown is Formfox, on Stripe.
 */
async function widgetsFilled(page: Page): Promise<void> {
  await expect.poll(() => widget(page, 'revenue').locator('[data-figure="mrr"]').innerText(), { timeout: 30_000 }).toMatch(/^\$[\d,]+(\.\d\d)?$/);
  await expect.poll(() => widget(page, 'shipping').locator('li').count(), { timeout: 30_000 }).toBeGreaterThan(2);
  await expect.poll(() => widget(page, 'ideas').locator('li').count(), { timeout: 30_000 }).toBeGreaterThan(2);
  await expect.poll(() => widget(page, 'analytics').locator('[data-figure="visitors"]').innerText(), { timeout: 30_000 }).toMatch(/^[\d.]+[KM]?$/);
  await page.waitForLoadState('networkidle');
  expect(await page.getByText(/^Left out/).count()).toBe(0);
}


describe('the screenshots of the documentation', () => {
  it('pictures the demo: All projects, a project, the briefing, Settings → Notifications and a phone', async () => {
    {
      // The demo, seeded from the empty dashboard as a visitor starts it. The pictures come from fresh pages: this one
      // pops the seeded events up as toasts, and its pointer rests over the chart.
      const { page, problems } = await open('/');
      await page.getByRole('button', { name: 'Try it with demo data' }).click();
      await page.getByRole('region', { name: 'Demo data' }).waitFor({ timeout: 20_000 });
      await expect.poll(() => page.locator('nav[aria-label="Projects"] [data-tab]').allInnerTexts()).toEqual(['Pocket Ledger', 'Formfox', 'Tideline']);
      await widgetsFilled(page);
      expect(problems).toEqual([]);
      await page.close();
    }

    {
      const { page, problems } = await open('/');
      await widgetsFilled(page);
      await picture(page, 'all-projects');
      expect(problems).toEqual([]);
      await page.close();
    }

    for (const dark of [false, true]) {
      const { page, problems } = await open('/', { width: 390, height: 844, dark });
      await widgetsFilled(page);
      expect(await scrollsSideways(page)).toBe(false);
      await picture(page, `phone${dark ? '-dark' : ''}`);
      expect(problems).toEqual([]);
      await page.close();
    }

    {
      const { page, problems } = await open('/?project=formfox', { height: 720 });
      await expect(page.locator('.sub').innerText()).resolves.toMatch(/integrations set up/);
      await widgetsFilled(page);
      await picture(page, 'project');
      expect(problems).toEqual([]);
      await page.close();
    }

    {
      const { page, problems } = await open('/briefing', { height: 720 });
      await page.getByRole('region', { name: 'Needs you' }).waitFor({ timeout: 30_000 });
      await expect.poll(() => page.locator('section[data-project]').count(), { timeout: 30_000 }).toBe(3);
      expect(await page.locator('section[data-project] h2').allInnerTexts()).toEqual(['Pocket Ledger', 'Formfox', 'Tideline']);
      await page.waitForLoadState('networkidle');
      await picture(page, 'briefing');
      expect(problems).toEqual([]);
      await page.close();
    }

    {
      const { page, problems } = await open('/settings#notifications');
      const section = page.locator('#notifications');
      await section.getByRole('button', { name: 'Save rules' }).waitFor({ timeout: 20_000 });
      await page.waitForLoadState('networkidle');
      await picture(page, 'settings-notifications', section);
      expect(problems).toEqual([]);
      await page.close();
    }
  }, 180_000);
});
