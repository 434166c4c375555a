import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page, type Response } from 'playwright-core';
import { inject } from 'vitest';
import { chromiumOptions } from './chromium.ts';

export { screenshotDir } from './chromium.ts';

/**
 * A Chromium for a test file or a test: one of the run's shared Chromiums (global-setup.ts), connected to, whose
 * close() closes the contexts and pages this connection opened and leaves the browser to the other files. The
 * headless shell, or with `whole` the whole Chromium, which desktop notifications (a permission to grant) and Web Push
 * need. With `extraArgs` (another host resolver, a certificate to trust): a whole Chromium of its own, started with
 * those flags after the defaults.
 */
export async function launchChromium({ whole = false, extraArgs = [] }: { whole?: boolean; extraArgs?: string[] } = {}): Promise<Browser> {
  if (extraArgs.length > 0) return chromium.launch(chromiumOptions(extraArgs));
  return chromium.connect(inject(whole ? 'fullChromiumEndpoint' : 'chromiumEndpoint'));
}

/**
 * Chromium with a profile of its own in a fresh directory, as a user's browser is: a context of `launchChromium` is
 * incognito, where Chromium offers no install ("in-incognito" among its installability errors). Its close() also
 * removes the profile, once Chromium has exited.
 */
export async function launchProfileChromium(options: BrowserContextOptions = {}, extraArgs: string[] = []): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, { ...chromiumOptions(extraArgs), ...options });
  const close = context.close.bind(context);
  context.close = async (...args) => {
    await close(...args);
    await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  return context;
}

/**
 * Opens `url` and waits until the page is hydrated: the bell in every page's header opens the live notification
 * stream once its script runs, and that request is the sign. A click before then lands on the server's HTML, with no
 * handler yet, and does nothing; on a busy machine the gap is seconds. Once it resolves, the tab's live stream is open:
 * an interruption from then on reaches it.
 */
export async function gotoHydrated(page: Page, url: string): Promise<Response | null> {
  const hydrated = page.waitForResponse((response) => response.url().includes('notifications.stream'));
  const response = await page.goto(url);
  await hydrated;
  return response;
}

/** Starts the demo as a founder does, from the empty dashboard's button, and waits for its banner. */
export async function startDemo(browser: Browser, url: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await gotoHydrated(page, url);
  await page.getByRole('button', { name: 'Try it with demo data' }).click();
  await page.getByRole('region', { name: 'Demo data' }).waitFor({ timeout: 20_000 });
  await page.close();
}

/** Whether the page scrolls sideways: something wider than the screen that nothing scrolls on its own. */
export const scrollsSideways = (page: Page): Promise<boolean> =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
