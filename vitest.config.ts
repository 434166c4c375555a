import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
          // vitest's default, one core less than the machine has, is a single file at a time on CI's 2 cores, where the
          // unit files spend much of their time waiting (Postgres, MariaDB, Redis, servers of their own, timers): two at
          // once. Every file makes its own databases, ports and directories, so they do not meet.
          maxWorkers: Math.max(2, availableParallelism() - 1),
        },
      },
      {
        // Real Chromium against the built dashboard (`pnpm --filter @dash/web build` first).
        test: {
          name: 'browser',
          include: ['apps/web/tests/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
