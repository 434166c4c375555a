import { describe, expect, it } from 'vitest';
import { budgetReport, FILE_BUDGET_MS, SUITE_BUDGET_MS, TESTS_BUDGET_MS } from './test-budget.mjs';

const file = (name: string, ms: number, project = 'unit') => ({ file: name, project, ms, tests: 3 });

describe('the test budget npm test ends with', () => {
  it('lists the slowest files and warns of nothing while every file and step is within its budget', () => {
    const { lines, over } = budgetReport([file('a.test.ts', 2_000), file('b.test.ts', 30_000)], { testsMs: TESTS_BUDGET_MS, totalMs: SUITE_BUDGET_MS });
    expect(over).toBe(false);
    expect(lines).toEqual(['slowest files: b.test.ts 30 s · a.test.ts 2 s']);
  });

  it('names each file over its minute with what to do for its kind, slowest first', () => {
    const { lines, over } = budgetReport([file('unit.test.ts', FILE_BUDGET_MS + 1_000), file('apps/web/tests/x.test.ts', 95_000, 'browser'), file('ok.test.ts', 1_000)]);
    expect(over).toBe(true);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^⚠ apps\/web\/tests\/x\.test\.ts took 95 s \(3 tests\), over the 60 s a file may take: share the dashboard and the browser/),
      expect.stringMatching(/^⚠ unit\.test\.ts took 61 s .*: look for real time it waits out/),
    ]);
  });

  it('names the tests step and npm test over their budgets, and leaves them out for a selection of files', () => {
    const whole = budgetReport([file('a.test.ts', 1_000)], { testsMs: TESTS_BUDGET_MS + 60_000, totalMs: SUITE_BUDGET_MS + 120_000 });
    expect(whole.over).toBe(true);
    expect(whole.lines.at(-1)).toMatch(/^⚠ the tests took 540 s, over their 480 s; npm test took 840 s in all, over its 720 s: /);
    expect(budgetReport([file('a.test.ts', 1_000)], {}).over).toBe(false);
  });
});
