import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { packageManager?: string; scripts?: Record<string, string> };
const pinned = readJson(join(root, 'package.json')).packageManager?.split('@')[1];

/** A directory of machine-wide package managers that are the wrong ones: another pnpm, a corepack shim. */
const wrongTools = mkdtempSync(join(tmpdir(), 'wrong-pnpm-'));
for (const tool of ['pnpm', 'pnpx', 'corepack', 'yarn']) {
  writeFileSync(join(wrongTools, tool), `#!/bin/sh\necho "${tool} 9.0.0 (the machine's, not the project's)"\nexit 1\n`);
  chmodSync(join(wrongTools, tool), 0o755);
}
afterAll(() => rmSync(wrongTools, { recursive: true, force: true }));

/** Every package.json of the workspace: the root, apps/* and packages/*. */
function manifests(): string[] {
  const inside = (dir: string) => readdirSync(join(root, dir)).map((name) => join(dir, name, 'package.json'));
  return ['package.json', ...inside('apps'), ...inside('packages')];
}

describe("the project's own pnpm", () => {
  it('is the pinned version even with another pnpm and corepack first on the PATH', () => {
    const version = execFileSync(process.execPath, [join(root, 'scripts/pnpm.mjs'), '--version'], {
      env: { ...process.env, PATH: `${wrongTools}${delimiter}${process.env.PATH ?? ''}` },
      encoding: 'utf8',
    });
    expect(version.trim()).toBe(pinned);
  });

  // A command position: the start of a command, or after &&, ||, ;, | or (.
  const bare = /(?:^|&&|\|\||[;|(]|\bRUN)\s*(?:pnpm|pnpx|corepack|yarn)\b/m;

  it('is what every package script uses: none calls a pnpm, corepack or yarn from the PATH', () => {
    const offenders = manifests().flatMap((manifest) =>
      Object.entries(readJson(join(root, manifest)).scripts ?? {})
        .filter(([, script]) => bare.test(script))
        .map(([name, script]) => `${manifest} "${name}": ${script}`),
    );
    expect(offenders, 'call the pinned pnpm as `node scripts/pnpm.mjs …` (from the root)').toEqual([]);
  });

  it('is what the Docker images build with, not one installed globally', () => {
    const dockerfiles = readdirSync(join(root, 'docker')).filter((name) => name.startsWith('Dockerfile'));
    expect(dockerfiles.length).toBeGreaterThan(0);
    for (const name of dockerfiles) {
      const text = readFileSync(join(root, 'docker', name), 'utf8');
      expect(text, name).not.toMatch(bare);
      expect(text, name).not.toMatch(/npm install -g pnpm/);
    }
  });
});
