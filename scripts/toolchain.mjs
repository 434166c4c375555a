// Brings the pinned pnpm and the workspace's packages to a fresh clone that has only Node and npm.
// pnpm is installed with npm into .tools/ (no root, no corepack) and always started from there by path:
// no script of this project calls a `pnpm` from the PATH, so a machine's own pnpm (none, or another
// version) never matters. `node scripts/pnpm.mjs <args>` is that pinned pnpm on the command line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/**
 * Runs the pinned pnpm in the background with its output kept, not shown: for steps that run beside others and
 * report once done. Colour is kept when this terminal has it.
 * @param {string[]} args
 * @returns {Promise<{ ok: boolean, output: string, ms: number }>}
 */
export function pnpmQuietly(args) {
  ensurePnpm();
  const started = performance.now();
  const colour = process.stdout.isTTY && !('NO_COLOR' in process.env) ? { FORCE_COLOR: '1' } : {};
  const child = spawn(process.execPath, [pnpmEntry, ...args], { cwd: root, env: { ...process.env, ...colour }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ ok: false, output: `${output}${error.message}\n`, ms: performance.now() - started }));
    child.once('close', (code) => resolve({ ok: code === 0, output, ms: performance.now() - started }));
  });
}

/** What the built dashboard is made from: when any of it is newer than the build, the build is stale. */
const dashboardSources = [
  'apps/web/src',
  'apps/web/static',
  'apps/web/svelte.config.js',
  'apps/web/vite.config.ts',
  'apps/web/package.json',
  'apps/web/tsconfig.json',
  'tsconfig.json',
  'packages',
  'pnpm-lock.yaml',
];

/**
 * Newest modification time under a path, skipping installed packages.
 * @param {string} path
 * @returns {number}
 */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'node_modules')
    .reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

/** Whether apps/web/build is missing or older than a source of it (as make judges a target). */
export function dashboardBuildIsStale() {
  const builtServer = join(root, 'apps/web/build/server.js');
  const builtAt = existsSync(builtServer) ? statSync(builtServer).mtimeMs : 0;
  return dashboardSources.some((source) => newest(join(root, source)) > builtAt);
}

/** Installs the workspace from the lockfile; pnpm makes this a quick no-op when nothing changed. */
export function installPackages() {
  const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  pnpm(['install', ...frozen, '--prefer-offline', '--reporter=append-only'], {
    env: { ...process.env, npm_config_loglevel: 'warn' },
  });
}
