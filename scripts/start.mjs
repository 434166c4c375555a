// `npm start`: on a fresh clone with only Node and npm, brings pnpm and the packages, builds the
// dashboard when its sources changed, then serves it (migrations run as the server starts).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installPackages, pnpm, root } from './toolchain.mjs';

const serverEntry = join(root, 'apps/web/build/index.js');
const sources = ['apps/web/src', 'apps/web/static', 'apps/web/svelte.config.js', 'apps/web/vite.config.ts', 'packages', 'pnpm-lock.yaml'];

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

installPackages();
const builtAt = existsSync(serverEntry) ? statSync(serverEntry).mtimeMs : 0;
if (sources.some((source) => newest(join(root, source)) > builtAt)) {
  console.log('→ building the dashboard');
  pnpm(['--filter', '@dash/web', '--fail-if-no-match', 'build']);
}

process.chdir(root);
process.env.HOST ??= '127.0.0.1';
process.env.PORT ??= '3000';
console.log(`→ serving the dashboard at http://${process.env.HOST}:${process.env.PORT}`);
await import(pathToFileURL(serverEntry).href);
