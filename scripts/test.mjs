// `npm test`: installs what is needed, then typecheck, lint, build, and every test (unit,
// integration against the real Postgres and Redis when they run, and Chromium browser tests).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installPackages, pnpm, root, run } from './toolchain.mjs';

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

/**
 * Runs the pinned pnpm with each step's arguments, all at once: typecheck, lint and build are each mostly one thread,
 * so side by side they take about the longest one's time instead of the sum. Each step's output is held and printed
 * whole when it ends, so the three do not interleave; when any step failed, exits after all of them ended.
 * @param {[string, string[]][]} steps
 */
async function atOnce(steps) {
  const outcomes = await Promise.all(
    steps.map(
      ([name, args]) =>
        new Promise((resolve) => {
          const started = performance.now();
          const child = spawn(process.execPath, [join(root, 'scripts/pnpm.mjs'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
          let output = '';
          child.stdout.on('data', (chunk) => (output += chunk));
          child.stderr.on('data', (chunk) => (output += chunk));
          const end = (/** @type {string} */ how) => {
            const seconds = ((performance.now() - started) / 1000).toFixed(0);
            console.log(`${how === '' ? '✓' : '✖'} ${name} (${seconds} s)${how === '' ? '' : `: failed (${how})`}`);
            if (output.trim() !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
            resolve(how === '');
          };
          child.once('error', (error) => end(error.message));
          child.once('close', (code, signal) => end(code === 0 ? '' : signal ? `signal ${signal}` : `exit code ${code}`));
        }),
    ),
  );
  if (outcomes.includes(false)) process.exit(1);
}

installPackages();
ensureChromium();
// SvelteKit's generated types (.svelte-kit/), which the typecheck, the lint and the build each read, written once
// before they start side by side (each one's own sync then finds nothing to change).
pnpm(['--filter', '@dash/web', '--fail-if-no-match', 'exec', 'svelte-kit', 'sync']);
console.log('→ typecheck, lint and build, side by side');
await atOnce([
  ['typecheck', ['typecheck']],
  ['lint', ['lint']],
  ['build', ['--filter', '@dash/web', '--fail-if-no-match', 'build']],
]);
console.log('→ tests');
pnpm(['exec', 'vitest', 'run']);
