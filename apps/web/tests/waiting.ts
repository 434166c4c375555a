import { cleanupAfterEach } from '../../../packages/api/src/testing/cleanup.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `done` holds, every `everyMs`, for at most `ms`; answers the last value read, or throws naming `what`. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000, what = 'the condition', everyMs = 100): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`Still not ${what} after ${ms} ms; last read: ${JSON.stringify(value).slice(0, 2_000)}`);
    await sleep(everyMs);
  }
}

/**
 * Waits past midnight UTC when it is less than `marginMs` away, for a test whose steps a day's turn between them
 * would change (a count "today", a briefing read "today"): the dashboard it drives runs on the real clock. The
 * test's own timeout must leave room for the wait.
 */
export async function clearOfMidnight(marginMs: number): Promise<void> {
  const left = 86_400_000 - (Date.now() % 86_400_000);
  if (left < marginMs) await sleep(left + 1_000);
}

/**
 * Everything a test starts, taken down after it, last started first (pages and browsers before the dashboard: an
 * open page's live stream would hold its shutdown up). Every step runs even when one fails; the first failure is
 * the test's. Call once at the top of a test file; push a step for each thing started. The unit tests' own
 * (packages/api/src/testing/cleanup.ts).
 */
export const takeDownAfterEach: () => (() => unknown)[] = cleanupAfterEach;
