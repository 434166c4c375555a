import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Files run in parallel, unit and browser together. A test file spends most of its time waiting (on a dashboard,
// Chromium, a database, a relay), so more files than cores keep the cores busy: vitest's own default (cores - 1)
// ran every file one after another on a 2-core machine. Files that share a thing keep to their own of it (a Redis
// db number, a scratch database, free ports, a fresh data directory), so any two can run at once.
// TEST_WORKERS overrides the count (1 runs the files one at a time).
const workers = Number(process.env.TEST_WORKERS) || availableParallelism() + 1;

export default defineConfig({
  test: {
    maxWorkers: workers,
    // Each file's time, for the budget `npm test` ends with (scripts/test-budget.mjs), beside the usual report.
    reporters: ['default', './scripts/timings-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts'],
          environment: 'node',
          // One migrated Postgres and MariaDB template for the run, which every file's test databases copy
          // (packages/db/src/testing/global-setup.ts): a file no longer makes and migrates its own (~3 s of the servers').
          globalSetup: ['packages/db/src/testing/global-setup.ts'],
          // A limit for a test that hangs, not a speed check: tests that start processes, compile or walk three
          // databases take 10-20 s alone and three times that on a loaded 2-core machine (seen: a fresh run beside
          // other work, at a load of 20, had ten of them time out at 20 s). Speed is judged by the budget, not here.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // A worker keeps the modules it imported from one file to the next, instead of importing the whole graph
          // again for each of 107 files (a third of the unit tests' CPU). Nothing here mocks a module or stubs a
          // global, and each file makes its own stores, servers and clocks; a file that ever needs a fresh module
          // graph goes in a project of its own with isolate: true.
          isolate: false,
        },
      },
      {
        // Real Chromium against the built dashboard (`pnpm --filter @dash/web build` first).
        test: {
          name: 'browser',
          include: ['apps/web/tests/**/*.test.ts'],
          environment: 'node',
          // One Chromium for the whole run, which every file connects to (apps/web/tests/global-setup.ts).
          globalSetup: ['apps/web/tests/global-setup.ts'],
          // The test process's fetch closes a connection idle for a second, well before a dashboard does (setup-fetch.ts).
          setupFiles: ['apps/web/tests/setup-fetch.ts'],
          // As in the unit project: a worker keeps what the files import (Playwright, the OpenAPI judge of described.ts,
          // which builds the whole API's document once) from one file to the next. Each file starts its own dashboards
          // and opens its own browser contexts; none mocks a module, stubs a global or sets process.env.
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
