import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

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
