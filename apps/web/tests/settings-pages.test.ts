// Settings as a page per section, against the built dashboard: /settings opens the first, each /settings/<section>
// holds its section alone under a side navigation that marks it, links of the one-page Settings (/settings#relay,
// #devices, #project-<slug>) land on their page, and on a phone the navigation is one select that fits, light and dark.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsPath, settingsSections } from '../src/lib/settings-sections.ts';
import { gotoHydrated, launchChromium, screenshotDir, scrollsSideways } from './browser.ts';
import { raw } from './http.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

let dashboard: RunningDashboard;
let browser: Browser;

beforeAll(async () => {
  [dashboard, browser] = await Promise.all([startDashboard(), launchChromium()]);
  const created = await dashboard.fetch('/api/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'alpha', name: 'Alpha' }) });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

/** A page of `width` px (light or dark) whose uncaught errors land in `problems`. */
async function open(problems: string[], { width = 1280, dark = false } = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: dark ? 'dark' : 'light' });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return page;
}

const currentLinks = (page: Page) => page.getByRole('navigation', { name: 'Settings sections' }).locator('[aria-current="page"]').allInnerTexts();

describe('Settings over HTTP', () => {
  it('/settings redirects to the first section, keeping the query', async () => {
    expect(await raw(`${dashboard.url}/settings`).then((answer) => [answer.status, answer.headers.location])).toEqual([307, '/settings/projects']);
    const withQuery = await raw(`${dashboard.url}/settings?tab=x&y=1`);
    expect([withQuery.status, withQuery.headers.location]).toEqual([307, '/settings/projects?tab=x&y=1']);
  });

  it("each section's page holds its own section, titled, with the navigation marking it, and no other section", async () => {
    for (const { id, title } of settingsSections) {
      const { status, body } = await raw(`${dashboard.url}${settingsPath(id)}`);
      expect([id, status]).toEqual([id, 200]);
      expect(body, id).toContain(`<title>${title.replace('&', '&amp;')} · Settings · Founder dashboard</title>`);
      const holds = (section: string) => new RegExp(`<section[^>]* id="${section}"`).test(body);
      expect(holds(id), id).toBe(true);
      const others = settingsSections.filter((section) => section.id !== id && holds(section.id)).map((section) => section.id);
      expect([id, others]).toEqual([id, []]);
      expect(body, id).toMatch(new RegExp(`<a href="${settingsPath(id)}"[^>]* aria-current="page"`));
      expect(body.match(/aria-current="page"/g)?.length, id).toBe(2); // this link, and Settings in the header
    }
  });

  it('answers an unknown section with 404', async () => {
    expect((await raw(`${dashboard.url}/settings/nothing-here`)).status).toBe(404);
  });
});

describe('Settings in a browser', () => {
  it('opens each section from the side navigation: its heading shows and its link is marked as the page', async () => {
    const problems: string[] = [];
    const page = await open(problems);
    await gotoHydrated(page, `${dashboard.url}/settings`);
    expect(page.url()).toBe(`${dashboard.url}/settings/projects`);
    for (const { id, title } of settingsSections) {
      await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: title, exact: true }).click();
      await page.waitForURL(`${dashboard.url}${settingsPath(id)}`);
      await page.getByRole('heading', { level: 2, name: title, exact: true }).waitFor();
      expect(await currentLinks(page)).toEqual([title]);
      expect(await page.title()).toBe(`${title} · Settings · Founder dashboard`);
      expect(await page.locator('main section[id]').evaluateAll((sections) => sections.map((section) => section.id))).toEqual([id]);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('takes links of the one-page Settings to the page that holds their anchor', async () => {
    const problems: string[] = [];
    const page = await open(problems);
    // The old link, the page it lands on, and a heading (level 3, inside the section) that page shows.
    for (const [old, path, shows] of [
      ['#notifications', '/settings/notifications', 'Desktop alerts'],
      ['#devices', '/settings/notifications', 'Devices'],
      ['#relay', '/settings/relay', 'Relay'],
      ['#backups', '/settings/backups', 'Refresh everything'],
      ['#project-alpha', '/settings/projects', 'Alpha'],
    ] as const) {
      await page.goto(`${dashboard.url}/settings${old}`);
      await page.waitForURL(`${dashboard.url}${path}${old}`);
      await page.getByRole('heading', { level: 3, name: shows, exact: true }).waitFor();
      // The anchor is there, on this page, for the browser to scroll to.
      expect(await page.locator(old).count(), old).toBe(1);
    }
    // An old link followed inside the app (SvelteKit's own navigation, which drops a fragment across a redirect):
    // the dashboard's pages and widgets may still say /settings#….
    await gotoHydrated(page, `${dashboard.url}/settings/layout`);
    await page.evaluate(() => {
      const link = Object.assign(document.createElement('a'), { href: '/settings#devices', textContent: 'old link' });
      document.querySelector('main')?.append(link);
    });
    await page.getByRole('link', { name: 'old link' }).click();
    await page.waitForURL(`${dashboard.url}/settings/notifications#devices`);
    await page.getByRole('heading', { level: 3, name: 'Devices', exact: true }).waitFor();
    expect(await currentLinks(page)).toEqual(['Notifications']);
    expect(problems).toEqual([]);
    await page.close();
  });

  for (const dark of [false, true]) {
    it(`at 320 px${dark ? ', dark' : ''}: the navigation is one select that fits, 44 px tall, and goes to the section chosen`, async () => {
      const problems: string[] = [];
      const page = await open(problems, { width: 320, dark });
      await gotoHydrated(page, `${dashboard.url}/settings/projects`);
      expect(await page.getByRole('navigation', { name: 'Settings sections' }).isVisible()).toBe(false);
      const select = page.getByRole('combobox', { name: 'Settings section' });
      const box = await select.boundingBox();
      expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
      expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? Infinity) <= 320).toBe(true);
      expect(await select.inputValue()).toBe('/settings/projects');
      expect(await scrollsSideways(page)).toBe(false);
      await page.screenshot({ path: join(screenshotDir, `settings-phone-320${dark ? '-dark' : ''}.png`) });

      await select.selectOption({ label: 'Relay' });
      await page.waitForURL(`${dashboard.url}/settings/relay`);
      await page.getByRole('heading', { level: 2, name: 'Relay', exact: true }).waitFor();
      expect(await select.inputValue()).toBe('/settings/relay');
      expect(await scrollsSideways(page)).toBe(false);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
