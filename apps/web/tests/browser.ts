import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page, type Response } from 'playwright-core';

/** Where the test run writes its screenshots (git-ignored). */
export const screenshotDir = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));

/** Debian's Chromium, headless, with nothing reaching for the network; `extraArgs` go after the defaults. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  mkdirSync(screenshotDir, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      ...extraArgs,
    ],
  });
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
