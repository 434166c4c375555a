// The browser project's Chromiums, started once for the whole run and shared by every test file (each test opens
// contexts of its own in them: cookies, storage and permissions apart): the headless shell for pages, and the whole
// Chromium for what only it has (a Notification permission to grant, Web Push). Starting a Chromium costs about 2.4 s of CPU
// on these machines, and the files used to start one each, some one per test. A file that needs Chromium started
// with other flags, or a profile of its own (the installable app), still launches its own (browser.ts).
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { chromiumOptions, fullChromiumPath, sharedChromiumPath } from './chromium.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared headless Chromium's Playwright endpoint (`chromium.connect`). */
    chromiumEndpoint: string;
    /** The shared whole Chromium's: what desktop notifications and Web Push need (see chromium.ts). */
    fullChromiumEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [shell, full] = await Promise.all([
    chromium.launchServer({ ...chromiumOptions([], sharedChromiumPath()), host: '127.0.0.1' }),
    chromium.launchServer({ ...chromiumOptions([], fullChromiumPath()), host: '127.0.0.1' }),
  ]);
  project.provide('chromiumEndpoint', shell.wsEndpoint());
  project.provide('fullChromiumEndpoint', full.wsEndpoint());
  return async () => {
    await Promise.all([shell.close(), full.close()]);
  };
}
