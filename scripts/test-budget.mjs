// The test suite's budget (issue 47), which `npm test` holds each run to: it names, at the end, every test file over
// FILE_BUDGET_MS of wall time and a suite over its budget, with what to do. It warns and does not fail: a loaded
// machine runs everything slower, and a correct change must not fail for it. docs/development.md#the-budget.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the timings reporter (timings-reporter.ts) writes the last run's file times. */
export const timingsFile = fileURLToPath(new URL('../node_modules/.cache/test-timings.json', import.meta.url));

/** A test file's wall time, import to last test, in the run's conditions (files run side by side). */
export const FILE_BUDGET_MS = 60_000;
/** The tests step of a whole `npm test` (every file, unit and browser), and `npm test` in all on a fresh clone. */
export const TESTS_BUDGET_MS = 8 * 60_000;
export const SUITE_BUDGET_MS = 12 * 60_000;

/** @typedef {{ file: string, project: string, ms: number, tests: number }} FileTiming */

/** The last run's file times, if the reporter wrote them after `since` (ms since the epoch). @returns {FileTiming[] | undefined} */
export function readTimings(since = 0) {
  if (!existsSync(timingsFile)) return undefined;
  /** @type {{ writtenAt: number, files: FileTiming[] }} */
  const written = JSON.parse(readFileSync(timingsFile, 'utf8'));
  return written.writtenAt >= since ? written.files : undefined;
}

const seconds = (/** @type {number} */ ms) => `${Math.round(ms / 1000)} s`;

/**
 * The lines `npm test` ends with: the slowest files, then each file over its budget and the suite's steps over
 * theirs, each with what to do. `testsMs` and `totalMs` are undefined when only some files ran (a selection).
 * @param {FileTiming[]} files
 * @param {{ testsMs?: number, totalMs?: number }} run
 * @returns {{ lines: string[], over: boolean }}
 */
export function budgetReport(files, { testsMs, totalMs } = {}) {
  const slowest = [...files].sort((a, b) => b.ms - a.ms);
  const lines = [`slowest files: ${slowest.slice(0, 5).map((f) => `${f.file} ${seconds(f.ms)}`).join(' · ')}`];
  const overFiles = slowest.filter((f) => f.ms > FILE_BUDGET_MS);
  for (const f of overFiles) {
    lines.push(
      `⚠ ${f.file} took ${seconds(f.ms)} (${f.tests} tests), over the ${seconds(FILE_BUDGET_MS)} a file may take: ` +
        (f.project === 'browser'
          ? 'share the dashboard and the browser between its tests (one dashboard per file and configuration, a browser context per test: docs/development.md#the-suites-shape-and-its-budget), wait for events rather than time, or split it.'
          : 'look for real time it waits out (a sleep, a back-off, a timer a test clock could step) or set-up it repeats per test (a database migrated per test: clone a migrated one), or split it.'),
    );
  }
  const overSteps = [];
  if (testsMs !== undefined && testsMs > TESTS_BUDGET_MS) overSteps.push(`the tests took ${seconds(testsMs)}, over their ${seconds(TESTS_BUDGET_MS)}`);
  if (totalMs !== undefined && totalMs > SUITE_BUDGET_MS) overSteps.push(`npm test took ${seconds(totalMs)} in all, over its ${seconds(SUITE_BUDGET_MS)}`);
  if (overSteps.length > 0) {
    lines.push(`⚠ ${overSteps.join('; ')}: see which files grew (above, and ${join('node_modules', '.cache', 'test-timings.json')}); a loaded machine is slower, so compare with a quiet run (node bench/test-suite.mjs).`);
  }
  return { lines, over: overFiles.length > 0 || overSteps.length > 0 };
}
