import { afterEach } from 'vitest';

/**
 * What a test started, undone after it: registers an afterEach that runs the steps pushed onto the list it answers,
 * last pushed first. Every step runs even when one fails (a dashboard that will not dispose still leaves the next one
 * disposed); the first failure is the test's. Call it from a test file's top level, or from a helper the file calls
 * there: the unit files share their imported modules (`isolate: false`), so a hook a shared module registered when it
 * was first imported would belong to the first file only.
 */
export function cleanupAfterEach(): (() => unknown)[] {
  const steps: (() => unknown)[] = [];
  afterEach(async () => {
    const failures: unknown[] = [];
    for (const step of steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  });
  return steps;
}
