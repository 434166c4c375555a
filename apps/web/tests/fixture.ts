// The browser tests' one way to start what a test file shares: a dashboard over a fresh store and a connection to one
// of the run's Chromiums, started together before the file's tests and taken down after them.
//
//   const suite = dashboardForFile({ dashboard: { env: { WEBHOOK_SECRET_GITHUB: SECRET } } });
//   it('…', async () => {
//     const page = await (await suite.browser.newContext()).newPage(); // a context per test: its own cookies and storage
//     await gotoHydrated(page, suite.dashboard.url);
//   });
//
// A test that needs a store of its own or another configuration starts its own (startDashboard, takeDownAfterEach).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './browser.ts';
import { startDashboard, type DashboardOptions, type RunningDashboard } from './server.ts';

export interface FileSuite {
  /** The file's dashboard: read it in a test or a hook, not at the file's top (it starts in beforeAll). */
  readonly dashboard: RunningDashboard;
  /** The file's browser (one of the run's Chromiums, global-setup.ts); its close() closes only what the file opened. */
  readonly browser: Browser;
}

export interface FileSuiteOptions {
  /** How the dashboard starts, or a function giving it, read in beforeAll (so after the file's earlier hooks, e.g. a sandbox's start). */
  dashboard?: DashboardOptions | (() => DashboardOptions);
  /** The whole Chromium instead of the headless shell: desktop notifications and Web Push need it. */
  whole?: boolean;
}

/**
 * Registers the file's beforeAll and afterAll: the dashboard and the browser started side by side, and after the
 * file's tests the browser closed first (an open page's live stream holds the dashboard's stop up), then the dashboard.
 * If one of the two fails to start, the other is still taken down.
 */
export function dashboardForFile(options: FileSuiteOptions = {}): FileSuite {
  let dashboard: RunningDashboard | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const dashboardOptions = typeof options.dashboard === 'function' ? options.dashboard() : options.dashboard;
    const [started, launched] = await Promise.allSettled([startDashboard(dashboardOptions), launchChromium({ whole: options.whole })]);
    if (started.status === 'fulfilled') dashboard = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
  });
  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
  });
  const running = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`The file's ${what} is read before its beforeAll started it (or it failed to start)`);
    return value;
  };
  return {
    get dashboard() {
      return running(dashboard, 'dashboard');
    },
    get browser() {
      return running(browser, 'browser');
    },
  };
}
