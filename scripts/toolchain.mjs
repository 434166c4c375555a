// Brings the pinned pnpm and the workspace's packages to a fresh clone that has only Node and npm.
// pnpm is installed with npm into .tools/ (no root, no corepack) and always started from there by path:
// no script of this project calls a `pnpm` from the PATH, so a machine's own pnpm (none, or another
// version) never matters. `node scripts/pnpm.mjs <args>` is that pinned pnpm on the command line.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
const toolsDir = join(root, '.tools', `pnpm-${pinned}`);
const pnpmEntry = join(toolsDir, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');

/**
 * Runs a command in the repo root, streaming its output; exits the process when it fails.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [options]
 */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    const how = result.error ? result.error.message : result.signal ? `signal ${result.signal}` : `exit code ${result.status}`;
    console.error(`\n✖ ${[command, ...args].join(' ')} failed (${how})`);
    process.exit(result.status ?? 1);
  }
}

function ensurePnpm() {
  if (existsSync(pnpmEntry)) return;
  console.log(`→ installing pnpm ${pinned} into .tools/ (once)`);
  run('npm', ['install', '--prefix', toolsDir, '--no-save', '--no-package-lock', '--loglevel=error', `pnpm@${pinned}`]);
}

/**
 * Runs the pinned pnpm with the given arguments.
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [options]
 */
export function pnpm(args, options) {
  ensurePnpm();
  run(process.execPath, [pnpmEntry, ...args], options);
}

/** Installs the workspace from the lockfile; pnpm makes this a quick no-op when nothing changed. */
export function installPackages() {
  const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  pnpm(['install', ...frozen, '--prefer-offline', '--reporter=append-only'], {
    env: { ...process.env, npm_config_loglevel: 'warn' },
  });
}
