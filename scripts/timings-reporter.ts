// A vitest reporter beside the default one: when a run ends it writes each test file's wall time (import, setup and
// tests) to node_modules/.cache/test-timings.json, which `npm test` (scripts/test.mjs) reads to name, at the very end,
// the files over their budget and the slowest ones. The budget itself, and what to do about a file over it, are in
// scripts/test-budget.mjs; docs/development.md#the-budget says why.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { timingsFile, type FileTiming } from './test-budget.mjs';

const root = new URL('..', import.meta.url).pathname;

export default class TimingsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const files: FileTiming[] = modules.map((module) => {
      const { prepareDuration, environmentSetupDuration, collectDuration, setupDuration, duration } = module.diagnostic();
      return {
        file: relative(root, module.moduleId),
        project: module.project.name,
        ms: Math.round(prepareDuration + environmentSetupDuration + collectDuration + setupDuration + duration),
        tests: [...module.children.allTests()].length,
      };
    });
    mkdirSync(dirname(timingsFile), { recursive: true });
    writeFileSync(timingsFile, JSON.stringify({ writtenAt: Date.now(), files }, null, 2));
  }
}
