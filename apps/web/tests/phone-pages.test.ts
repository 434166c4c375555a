// Every page on a phone, in Chromium against the built dashboard with the demo: at 320 and 390 px, light and dark,
// nothing is wider than the screen and the page does not scroll sideways; every button, select, text field and
// disclosure is at least 44 px tall (WCAG 2.5.5) and every checkbox at least 24 px (2.5.8), and a tap at its centre
// reaches it (nothing drawn over it). Settings is looked at with every card open, as when filling one in.
//
// Each page is a test of its own, loaded once and then looked at in the four ways (the viewport and the colour
// scheme change under it, as when a phone turns or the system theme flips): a page that breaks is named, and a slow
// page on a busy machine spends its own time, not the others'.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsPath, settingsSections } from '../src/lib/settings-sections.ts';
import { gotoHydrated, scrollsSideways, startDemo } from './browser.ts';
import { dashboardForFile } from './fixture.ts';

const suite = dashboardForFile();
beforeAll(async () => {
  await startDemo(suite.browser, suite.dashboard.url);
  // Settings → Notifications lists chat connections too (at this machine's closed port 9: nothing leaves it).
  for (const connection of [
    { name: 'Receiver with a rather long name for a phone', minSeverity: 'info', destination: { kind: 'webhook', url: 'http://127.0.0.1:9/hooks/dashboard' } },
    { name: 'Phone', destination: { kind: 'ntfy', server: 'http://127.0.0.1:9', topic: 'alerts-7f3a9c2e1b', token: 'tk_phonepagestoken' } },
  ]) {
    const added = await suite.dashboard.fetch('/api/channels', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(connection) });
    expect(added.status).toBe(201);
  }
}, 120_000);

/** What is wider than the screen and not inside something that scrolls on its own (a row of tabs), by tag and class. */
function tooWide(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrollsItself = (element: Element) => {
      for (let parent = element.parentElement; parent; parent = parent.parentElement) if (getComputedStyle(parent).overflowX !== 'visible') return true;
      return false;
    };
    return [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > width + 1 && !scrollsItself(element))
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}`)
      .slice(0, 5);
  });
}


/** The controls in view that are too small for a finger, or covered where a finger would land, by name. */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)}"`;
    const controls = document.querySelectorAll("button, summary, select, input:not([type='hidden'])");
    // What scrolled under the sticky header is judged where it is on screen, not under it.
    const below = document.querySelector('body > div header, header')?.getBoundingClientRect().bottom ?? 0;
    const problems: string[] = [];
    for (const control of controls) {
      const box = control.getBoundingClientRect();
      const style = getComputedStyle(control);
      // Not on screen (a closed menu, a collapsed card's inside, a visually hidden input behind its label).
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || style.opacity === '0' || control.closest('[hidden], [inert]')) continue;
      const checkbox = control instanceof HTMLInputElement && (control.type === 'checkbox' || control.type === 'radio');
      const least = checkbox ? 24 : 44;
      if (box.height + 0.5 < least) problems.push(`${name(control)} is ${Math.round(box.height)} px tall`);
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      if (y < below || y > window.innerHeight || control.closest('header')) continue;
      const top = document.elementFromPoint(x, y);
      // An alert's toast passes over what is under it for a few seconds (the demo's events bring them): not a layout fault.
      if (top?.closest('.toasts')) continue;
      if (top && top !== control && !control.contains(top) && !(top instanceof HTMLLabelElement && top.control === control)) {
        problems.push(`${name(control)} is covered by ${name(top)}`);
      }
    }
    return problems;
  });
}

const pages = ['/', '/?project=formfox', '/?project=pocket-ledger', '/?project=tideline', '/briefing', '/history?project=tideline', ...settingsSections.map(({ id }) => settingsPath(id))];

describe('every page on a phone', () => {
  for (const path of pages) {
    it(`${path}: at 320 and 390 px, light and dark, fits the screen, and every control is big enough and not covered`, async () => {
      const page = await suite.browser.newPage({ viewport: { width: 320, height: 800 } });
      await gotoHydrated(page, suite.dashboard.url + path);
      // The widgets' data in (each says when it was updated), and every card of Settings open.
      if (path.startsWith('/?')) await page.getByText(/Updated /).first().waitFor({ timeout: 20_000 });
      if (path === '/briefing' || path.startsWith('/history')) await page.getByRole('heading', { level: 1 }).first().waitFor();
      if (path.startsWith('/settings')) await page.evaluate(() => document.querySelectorAll('details').forEach((details) => (details.open = true)));
      const found: Record<string, string[]> = {};
      /** The page's background in each scheme: the dark passes look at the dark page, not the light one again. */
      const backgrounds = new Set<string>();
      for (const width of [320, 390]) {
        for (const dark of [false, true]) {
          await page.setViewportSize({ width, height: 800 });
          await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
          backgrounds.add(await page.evaluate(() => getComputedStyle(document.body).backgroundColor));
          const problems = new Set<string>();
          for (const element of await tooWide(page)) problems.add(`${element} is wider than the screen`);
          if (await scrollsSideways(page)) problems.add('the page scrolls sideways');
          // Each screenful, top to bottom: a tap lands where the finger is, so what is covered is judged in view.
          const height = await page.evaluate(() => document.documentElement.scrollHeight);
          for (let y = 0; y < height; y += 700) {
            await page.evaluate((top) => window.scrollTo(0, top), y);
            for (const problem of await smallTargets(page)) problems.add(problem);
          }
          await page.evaluate(() => window.scrollTo(0, 0));
          if (problems.size > 0) found[`${width} px${dark ? ', dark' : ''}`] = [...problems].slice(0, 30);
        }
      }
      expect(found).toEqual({});
      expect(backgrounds.size).toBe(2);
      await page.close();
    });
  }
});
