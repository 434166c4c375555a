// `npm start`: on a fresh clone with only Node and npm, brings pnpm and the packages, builds the
// dashboard when its sources changed, then serves it with `.env` read (migrations run as it starts).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installPackages, pnpm, root } from './toolchain.mjs';

const builtServer = join(root, 'apps/web/build/server.js');
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
const builtAt = existsSync(builtServer) ? statSync(builtServer).mtimeMs : 0;
if (sources.some((source) => newest(join(root, source)) > builtAt)) {
  console.log('→ building the dashboard');
  pnpm(['--filter', '@dash/web', '--fail-if-no-match', 'build']);
}

process.chdir(root);
await import('./dotenv.mjs');
console.log('→ serving the dashboard');
await import(pathToFileURL(join(root, 'apps/web/build/server.js')).href);
