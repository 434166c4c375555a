import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LaunchOptions } from 'playwright-core';

/** Where the test run writes its screenshots (git-ignored). */
export const screenshotDir = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));

/** Debian's Chromium, the whole browser: what a profile (the installable app, its service worker) needs. */
export const fullChromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * The browser the tests share for pages: Debian's `chromium-headless-shell` where it is installed (the same Chromium
 * build without the desktop browser around it, the headless mode Playwright itself defaults to: about 40 % less CPU
 * for the same pages here, and half the start-up), else the whole Chromium. CHROMIUM_PATH names one for both. The
 * shell denies every Notification permission and has no push service: the tests of desktop alerts and Web Push use
 * the whole Chromium (`launchChromium({ whole: true })`).
 */
export function sharedChromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : fullChromiumPath();
}

/** How every test starts Chromium: headless, with nothing reaching for the network; `extraArgs` go after these. */
export function chromiumOptions(extraArgs: string[] = [], executablePath = fullChromiumPath()): LaunchOptions {
  mkdirSync(screenshotDir, { recursive: true });
  return {
    executablePath,
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
  };
}
