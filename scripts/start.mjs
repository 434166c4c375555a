// `npm start`: on a fresh clone with only Node and npm, brings pnpm and the packages, builds the
// dashboard when its sources changed, then serves it with `.env` read (migrations run as it starts).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dashboardBuildIsStale, installPackages, pnpm, root } from './toolchain.mjs';

installPackages();
if (dashboardBuildIsStale()) {
  console.log('→ building the dashboard');
  pnpm(['--filter', '@dash/web', '--fail-if-no-match', 'build']);
}

process.chdir(root);
await import('./dotenv.mjs');
console.log('→ serving the dashboard');
await import(pathToFileURL(join(root, 'apps/web/build/server.js')).href);
