// `npm test`: installs what is needed and builds the dashboard, then runs every test (unit, integration against the
// real Postgres, MariaDB and Redis, and Chromium browser tests; files in parallel) while the typecheck and the lint
// run beside them, two more processes among the tests'. It reports every failure
// of the three, and fails if any failed.
// `npm test -- <vitest filters and options>` runs only the tests they select, after the same install and build,
// without the typecheck and lint (those look at the whole project; `npm run typecheck` and `npm run lint` run them,
// or `npm run check` and `npm run typecheck:web` as this does).
//
// What a step can reuse, it does, and only when that is sound: the typecheck is tsc's and svelte-check's own
// incremental check (their caches in node_modules/.cache and .svelte-kit, which a fresh clone has none of); the
// build is skipped when it is newer than every source of it (as `npm start` judges); the lint is skipped when no
// file it reads changed since it last passed. (ESLint's own cache is per file, and typed rules read other files'
// types, so it could keep a stale pass: typescript-eslint advises against it.)
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { budgetReport, readTimings } from './test-budget.mjs';
import { dashboardBuildIsStale, installPackages, pnpm, pnpmQuietly, root, run } from './toolchain.mjs';

const selection = process.argv.slice(2);
const began = performance.now();
/** @type {string[]} */
const timings = [];
const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const lap = (/** @type {string} */ name, /** @type {number} */ since) => timings.push(`${name} ${seconds(performance.now() - since)}`);

/**
 * Debian's packages the browser tests need that the machine lacks: Chromium, its headless shell (the lighter browser
 * most pages are tested in, apps/web/tests/chromium.ts; unless CHROMIUM_PATH names one browser for all), and openssl
 * (the https test's certificate).
 */
function ensureBrowserTestPackages() {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  const shell = process.env.CHROMIUM_PATH || existsSync('/usr/bin/chromium-headless-shell');
  const packages = [...(existsSync(path) ? [] : ['chromium']), ...(spawnSync('openssl', ['version']).status === 0 ? [] : ['openssl'])];
  const canApt = process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0;
  // The shell only saves time (the whole Chromium stands in for it): installed where apt can, never required.
  if (!shell && canApt) packages.push('chromium-headless-shell');
  if (packages.length === 0) return;
  if (!canApt) {
    console.error(`✖ The browser tests need Debian's ${packages.map((name) => `"${name}"`).join(' and ')} package${packages.length > 1 ? 's' : ''}${packages.includes('chromium') ? ` (Chromium at ${path}, or set CHROMIUM_PATH)` : ''}.`);
    process.exit(1);
  }
  console.log(`→ installing ${packages.join(' and ')} from Debian's packages (browser tests)`);
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** The files ESLint reads (its config, every source, the lockfile), hashed: undefined without git to list them. */
function lintInputsHash() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0) return undefined;
  const hash = createHash('sha256');
  const files = listed.stdout
    .split('\0')
    .filter((file) => /\.(?:[cm]?[jt]s|svelte|json|ya?ml)$/.test(file) && existsSync(join(root, file)))
    .sort();
  for (const file of files) hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
  return hash.digest('hex');
}

const lintStamp = join(root, 'node_modules/.cache/lint-passed');
/** The background step that lints (and typechecks): the one whose pass is stamped. */
const LINTS = 'typecheck and lint';

/**
 * A pnpm script run in the background beside the tests, at their priority; resolves with whether it passed, its output
 * kept until then. Not at nice 19 (as it once was): the suite keeps both cores busy, so a check at the lowest priority
 * got almost no CPU until the tests ended and then ran alone, one process on one core, for 100 to 225 s while the
 * other core idled. At the tests' priority it takes its share as they run and is done before them.
 * @param {string} name
 * @param {string[]} args
 */
async function beside(name, args) {
  const result = await pnpmQuietly(args);
  return { name, ...result };
}

installPackages();
ensureBrowserTestPackages();
// The build first, alone: it writes SvelteKit's generated files, which the typecheck and the lint read.
let step = performance.now();
if (dashboardBuildIsStale()) {
  console.log('→ build');
  pnpm(['--filter', '@dash/web', '--fail-if-no-match', 'build']);
  lap('build', step);
} else {
  console.log('→ build: up to date (newer than every source of it)');
  pnpm(['--filter', '@dash/web', '--reporter-hide-prefix', 'exec', 'svelte-kit', 'sync']);
}

/** @type {Promise<{ name: string, ok: boolean, output: string, ms: number }>[]} */
const checks = [];
/** @type {string[]} */
const skipped = [];
const lintInputs = selection.length === 0 ? lintInputsHash() : undefined;
if (selection.length === 0) {
  console.log('→ typecheck and lint, beside the tests (reported at the end)');
  // Two processes: the web app's typecheck (svelte-check, the service worker), and `npm run check`, which checks the
  // rest as one program and lints every file with that program's types (scripts/check.mjs says why).
  checks.push(beside('typecheck of the web app', ['typecheck:web']));
  if (lintInputs !== undefined && existsSync(lintStamp) && readFileSync(lintStamp, 'utf8') === lintInputs) {
    skipped.push('lint: no file it reads changed since it last passed');
    checks.push(beside('typecheck', ['run', 'check', '--types-only']));
  } else {
    checks.push(beside(LINTS, ['run', 'check']));
  }
} else {
  console.log(`→ only the tests selected (${selection.join(' ')}): no typecheck or lint`);
}

console.log('→ tests');
step = performance.now();
const testsBegan = Date.now();
// Not spawnSync: this process keeps reading the background steps' output meanwhile, so none of them stalls on a full pipe.
const vitest = spawn(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...selection], { cwd: root, stdio: 'inherit' });
const testsPassed = await new Promise((resolve) => {
  vitest.once('error', () => resolve(false));
  vitest.once('close', (code) => resolve(code === 0));
});
lap('tests', step);
const testsMs = performance.now() - step;

if (checks.length > 0 || skipped.length > 0) console.log('\n→ typecheck and lint');
step = performance.now();
const results = await Promise.all(checks);
if (checks.length > 0) lap('waiting for typecheck and lint after the tests', step);
for (const line of skipped) console.log(`✓ ${line}`);
for (const result of results) {
  timings.push(`${result.name} ${seconds(result.ms)}`);
  if (result.ok) console.log(`✓ ${result.name} (${seconds(result.ms)})`);
  else console.error(`✖ ${result.name} failed (${seconds(result.ms)}):\n${result.output.trimEnd()}\n`);
}
// Stamped only when no file changed while it ran: what passed is then exactly what is there.
const lintResult = results.find((result) => result.name === LINTS);
if (lintResult?.ok && lintInputs !== undefined && lintInputsHash() === lintInputs) {
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  writeFileSync(lintStamp, lintInputs);
}

const failed = [...(testsPassed ? [] : ['the tests']), ...results.filter((result) => !result.ok).map((result) => result.name)];
const totalMs = performance.now() - began;
// The budget (scripts/test-budget.mjs): the slowest files, and whatever is over its budget, named with what to do.
const files = readTimings(testsBegan);
if (files) {
  const whole = selection.length === 0 ? { testsMs, totalMs } : {};
  const { lines, over } = budgetReport(files, whole);
  console.log(`\n→ the budget${over ? '' : ': every file within it'}`);
  for (const line of lines) (line.startsWith('⚠') ? console.warn : console.log)(line);
}
console.log(`\n⏱ ${timings.join(' · ')} · npm test in all ${seconds(totalMs)}`);
if (failed.length > 0) {
  console.error(`✖ npm test failed: ${failed.join(', ')} (above)`);
  process.exit(1);
}
