import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, importLoops } from './import-graph.ts';

const root = join(import.meta.dirname, '..');

/** Every `src` folder of the workspace's packages and apps (their `.ts` files; the web app's `.svelte` files are not read). */
const sourceFolders = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => `${group}/${name}/src`)
    .filter((folder) => existsSync(join(root, folder))),
);

describe('import loops', () => {
  it.each(sourceFolders)('%s imports its own files without a loop', (folder) => {
    const knots = importLoops(importGraph(join(root, folder), join(root, folder)));
    // Each knot printed as one loop through it, e.g. `alerts/index.ts -> context.ts -> alerts/index.ts (17 files: …)`.
    expect(knots.map(({ loop, files }) => `${loop.join(' -> ')}${files.length > loop.length - 1 ? ` (${files.length} files: ${files.join(', ')})` : ''}`)).toEqual([]);
  });
});

describe('packages/api layers: router -> services -> leaves', () => {
  const api = join(root, 'packages/api/src');
  const graph = importGraph(api, api);
  const importersOf = (target: (file: string) => boolean, allowed: (file: string) => boolean) =>
    [...graph].filter(([file, targets]) => !allowed(file) && targets.some(target)).map(([file]) => file);
  const inRouter = (file: string) => file.startsWith('router/');
  const isTest = (file: string) => file.endsWith('.test.ts');

  it('only the tRPC layer and the composition import context.ts', () => {
    // testing.ts is the composition for tests (createTestApi builds the app as index.ts does).
    const composition = ['trpc.ts', 'root.ts', 'index.ts', 'context.ts', 'testing.ts'];
    expect(importersOf((target) => target === 'context.ts', (file) => inRouter(file) || composition.includes(file))).toEqual([]);
  });

  it('no service imports a router (backup/ and briefing/ read the data procedures through what they are handed)', () => {
    // A test may set up through a router (the demo's projects); root.ts and index.ts compose them.
    expect(importersOf(inRouter, (file) => inRouter(file) || isTest(file) || file === 'root.ts' || file === 'index.ts')).toEqual([]);
  });

  it('the leaves import nothing of the package', () => {
    for (const leaf of ['logger.ts', 'errors.ts']) expect(graph.get(leaf), leaf).toEqual([]);
  });
});
