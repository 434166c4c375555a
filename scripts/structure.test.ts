import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

// The workspace's import rules (.dependency-cruiser.cjs) checked with dependency-cruiser: no import loop in any
// package's or app's sources, and packages/api layered router -> services -> leaves.

const root = join(import.meta.dirname, '..');
const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as IConfiguration;

/** Each broken rule as a line: the rule, the import, and for a loop the files around it. */
async function violations(baseDir: string): Promise<string[]> {
  const { output } = await cruise(['packages', 'apps'], {
    ...config.options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
  });
  if (typeof output === 'string') throw new Error('dependency-cruiser answered text, not its result');
  return output.summary.violations.map(({ rule, from, to, cycle }) => `${rule.name}: ${from} -> ${to}${cycle ? ` (loop: ${cycle.map((step) => step.name).join(' -> ')})` : ''}`);
}

describe('the import rules', () => {
  it('hold for every source of packages/* and apps/*', async () => {
    expect(await violations(root)).toEqual([]);
  }, 60_000);

  it('catch a loop, a service that takes the whole Context, one that reads a router, and a leaf that imports', async () => {
    const fixture = mkdtempSync(join(tmpdir(), 'dash-structure-'));
    try {
      const files: Record<string, string> = {
        'packages/api/src/logger.ts': "import type { Context } from './context.ts';\nexport type Logger = Context['log'];\n",
        'packages/api/src/context.ts': "import type { Alerts } from './alerts/index.ts';\nexport interface Context { log: unknown; alerts: Alerts }\n",
        'packages/api/src/alerts/index.ts': "import type { Logger } from '../logger.ts';\nexport interface Alerts { log: Logger }\n",
        'packages/api/src/backup/plan.ts': "import { reads } from '../router/data.ts';\nexport const plan = reads;\n",
        'packages/api/src/router/data.ts': 'export const reads = 1;\n',
        'apps/web/src/app.ts': 'export {};\n',
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(fixture, path)), { recursive: true });
        writeFileSync(join(fixture, path), text);
      }
      const found = await violations(fixture);
      expect(found).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^no-import-loop: packages\/api\/src\/alerts\/index\.ts -> packages\/api\/src\/logger\.ts \(loop: .*context\.ts/),
          'api-context-from-composition-only: packages/api/src/logger.ts -> packages/api/src/context.ts',
          'api-services-not-to-routers: packages/api/src/backup/plan.ts -> packages/api/src/router/data.ts',
          'api-leaves: packages/api/src/logger.ts -> packages/api/src/context.ts',
        ]),
      );
    } finally {
      rmSync(fixture, { recursive: true, force: true });
    }
  }, 60_000);
});
