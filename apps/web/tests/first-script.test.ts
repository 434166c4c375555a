// The script a first visit needs before its first paint (issue 41), read from the built dashboard over HTTP: what a
// page makes the browser fetch at once (the entry scripts its HTML imports, and the modules they and its route import,
// each named `rel="modulepreload"` in its Link header) holds neither the bell's panel (loaded when it is first opened, or once the
// page is idle) nor the contracts' zod schemas (only Settings' forms check input in the browser).
// In Chromium: the panel's module comes once the page is idle, and when it cannot be fetched the bell says so and
// tries again on the next opening.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, launchChromium } from './browser.ts';
import { startDashboard, type RunningDashboard } from './server.ts';

let dashboard: RunningDashboard;
let browser: Browser | undefined;
beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

/** Each script a page's HTML has the browser fetch before it runs anything, with its text. */
async function firstScripts(path: string): Promise<{ url: string; text: string }[]> {
  const answer = await dashboard.fetch(path);
  const html = await answer.text();
  const preloads = [...(answer.headers.get('link') ?? '').matchAll(/<([^>]+)>; rel="modulepreload"/g)];
  const urls = [...preloads, ...html.matchAll(/import\("([^"]+\.js)"\)/g)].map(([, href]) => new URL(href ?? '', dashboard.url + path).href);
  expect(urls.length, `the scripts ${path} names`).toBeGreaterThan(3);
  const scripts: { url: string; text: string }[] = [];
  for (const url of new Set(urls)) scripts.push({ url, text: await (await fetch(url)).text() });
  return scripts;
}

/** What marks the bell panel's module: a line only it shows. */
const PANEL = 'Nothing matches these filters.';
/** What marks zod's schema classes (its core, which the client's hook configures, has none of them). */
const SCHEMAS = 'ZodObject';

describe('the script before the first paint', () => {
  for (const path of ['/', '/?project=formfox', '/briefing']) {
    it(`of ${path} holds neither the bell's panel nor zod's schemas`, async () => {
      const scripts = await firstScripts(path);
      expect(scripts.filter(({ text }) => text.includes(PANEL)).map(({ url }) => url)).toEqual([]);
      expect(scripts.filter(({ text }) => text.includes(SCHEMAS)).map(({ url }) => url)).toEqual([]);
    });
  }

  it('still has the panel and the schemas where they are needed: the panel as its own module, the schemas on a Settings page', async () => {
    // Settings → Notifications checks its forms in the browser: its page brings the schemas.
    expect((await firstScripts('/settings/notifications')).some(({ text }) => text.includes(SCHEMAS))).toBe(true);
    expect(await panelModule()).toMatch(/\.js$/);
  });
});

/** The URL of the panel's module: a chunk of its own, named in the layout's script for the bell's dynamic import. */
let panelModuleUrl: Promise<string> | undefined;
const panelModule = () => (panelModuleUrl ??= findPanelModule());

async function findPanelModule(): Promise<string> {
  const scripts = await firstScripts('/');
  const dynamic = scripts.flatMap(({ url, text }) => [...text.matchAll(/"\.\.?\/[^"]+\.js"/g)].map(([quoted]) => new URL(quoted.slice(1, -1), url).href));
  const panel: string[] = [];
  // One at a time: the entry names every page's modules.
  for (const url of new Set(dynamic)) if ((await (await fetch(url)).text()).includes(PANEL)) panel.push(url);
  expect(panel).toHaveLength(1);
  return panel[0] ?? '';
}

describe('the bell’s panel in Chromium', () => {
  it('comes once the page is idle, before anyone opens the bell', async () => {
    const module = await panelModule();
    browser ??= await launchChromium();
    const page = await browser.newPage();
    const fetched = page.waitForRequest((request) => request.url() === module, { timeout: 15_000 });
    await gotoHydrated(page, dashboard.url);
    await fetched;
    await page.locator('.bell > button').click();
    await page.getByRole('dialog', { name: 'Notifications' }).getByRole('heading', { name: 'Notifications' }).waitFor();
    await page.close();
  });

  it('says so when its module cannot be fetched, and loads it on the next opening once it can', async () => {
    const module = await panelModule();
    browser ??= await launchChromium();
    // A first visit, with no service worker: once the dashboard's worker is active (it claims the page as soon as it
    // has precached the build), it answers the module from its cache, which `page.route` never sees; on a loaded
    // machine it was active before the bell was opened, and the refusal never came.
    const page = await browser.newPage({ serviceWorkers: 'block' });
    let refuse = true;
    await page.route(module, (route) => (refuse ? route.abort('connectionreset') : route.continue()));
    await gotoHydrated(page, dashboard.url);
    const bell = page.locator('.bell > button');
    const dialog = page.getByRole('dialog', { name: 'Notifications' });
    await bell.click();
    await dialog.getByRole('alert').filter({ hasText: 'The notifications could not be loaded' }).waitFor();
    refuse = false;
    await bell.click();
    await bell.click();
    await dialog.getByRole('heading', { name: 'Notifications' }).waitFor();
    expect(await dialog.getByRole('alert').count()).toBe(0);
    await page.close();
  });
});
