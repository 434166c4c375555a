// `npm test`: installs what is needed, then typecheck, lint, build, and every test (unit,
// integration against the real Postgres and Redis when they run, and Chromium browser tests).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { installPackages, pnpm, run } from './toolchain.mjs';

function ensureChromium() {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (existsSync(path)) return;
  const canApt = process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;
  if (!canApt) {
    console.error(`✖ The browser tests need Chromium at ${path}: install Debian's "chromium" package or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  console.log("→ installing Chromium from Debian's packages (browser tests)");
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

installPackages();
ensureChromium();
console.log('→ typecheck');
pnpm(['typecheck']);
console.log('→ lint');
pnpm(['lint']);
console.log('→ build');
pnpm(['--filter', '@dash/web', '--fail-if-no-match', 'build']);
console.log('→ tests');
pnpm(['exec', 'vitest', 'run']);
