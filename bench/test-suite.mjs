// `npm test` now against `npm test` at a baseline commit, both measured in this run on this machine.
//   node bench/test-suite.mjs [--baseline=<commit>] [--runs=3] [--ci] [--load] [--smoke]
//
// Each run clones the repository twice into a temp directory (the baseline commit and HEAD, `git clone
// --no-hardlinks`, as CI's fresh clone), then times, alternating baseline and current so that the machine's
// drift falls on both:
//   fresh    `npm test` on the fresh clone: installs the packages (from the machine's pnpm store), then everything;
//   second   `npm test` again in the same clone: packages installed, and whatever the commit reuses reused;
//   ci       with --ci, `.ci/run` on a third fresh clone of each: `npm start` checked, then `npm test` as above.
// `CI=true` throughout, so a database or Redis that does not answer fails the run instead of skipping tests. Every
// run must pass; a failed one is printed with the end of its output, and the bench goes on, then exits 1.
// With --load, two busy loops keep both cores occupied through every run (the suite must pass under load; the
// times are then only a check that it does, not a figure to compare).
// Prints each run's wall time, the medians, and current / baseline for each (the issue's target: at most 0.5).
// --smoke: one run, both revisions cloned as above, but `node -e ""` in place of `npm test` (and of `.ci/run`), through
// the same timing, medians and ratios: the bench's own machinery in a few seconds, without the suite. Its figures are
// not to be quoted.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertFigures, cliArgs, repoDir, sayIfSmoke, smoke } from './support.mjs';

const args = cliArgs();
// The commit before the suite was made parallel (issue 35): one file at a time, the checks one after another.
const baseline = args.baseline ?? 'b81ec0d8008315fd44957ce90efd5ca0cdf05932';
const runs = Number(args.runs ?? (smoke ? 1 : 3));
const kinds = args.ci ? ['fresh', 'second', 'ci'] : ['fresh', 'second'];
const git = (...gitArgs) => spawnSync('git', gitArgs, { cwd: repoDir, encoding: 'utf8' }).stdout.trim();
const revisions = { baseline: git('rev-parse', baseline), current: git('rev-parse', 'HEAD') };
// A smoke run's runs take a fraction of a second: seconds, then.
const minutes = (ms) => (smoke ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 60_000).toFixed(1)} min`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

const scratch = mkdtempSync(join(tmpdir(), 'dash-bench-suite-'));
// The clones are not beside ../shared, where the contract tests find the providers' descriptions: point them there.
const specs = join(repoDir, '../shared/upstream-specs');
const env = { ...process.env, CI: 'true', ...(!process.env.UPSTREAM_SPECS_DIR && existsSync(specs) ? { UPSTREAM_SPECS_DIR: specs } : {}) };
const hogs = args.load ? [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })) : [];
const stopHogs = () => hogs.forEach((hog) => hog.kill('SIGKILL'));
process.on('exit', stopHogs);

/** A fresh clone of `revision` under the scratch directory. */
function cloneAt(revision, name) {
  const dir = join(scratch, name);
  for (const [gitArgs, cwd] of [
    [['clone', '--quiet', '--no-hardlinks', repoDir, dir], repoDir],
    [['checkout', '--quiet', revision], dir],
  ]) {
    const { status } = spawnSync('git', gitArgs, { cwd, stdio: 'inherit' });
    if (status !== 0) throw new Error(`git ${gitArgs.join(' ')} failed (exit ${status})`);
  }
  return dir;
}

const failures = [];
/** What a run runs: `npm test` (or `.ci/run`), or in a smoke run a command that does nothing. */
const command = (name, commandArgs) => (smoke ? [process.execPath, ['-e', '']] : [name, commandArgs]);

/** Runs `command` in `dir`, its output kept; resolves with the wall time. A failed run is told with its output's end, and counted. */
function timed(label, dir, command, commandArgs) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, commandArgs, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) {
        failures.push(label);
        console.error(`✖ ${label} failed (exit ${code}) after ${minutes(ms)}; the end of its output:\n${output.slice(-6_000)}`);
      }
      // The runner's own breakdown (`⏱ build … · tests …`), where the commit prints one.
      const breakdown = output.split('\n').findLast((line) => line.startsWith('⏱'));
      console.log(`${label.padEnd(22)} ${minutes(ms)}${code === 0 ? '' : ' (failed)'}${breakdown ? `  ${breakdown}` : ''}`);
      resolve(ms);
    });
  });
}

const results = { baseline: { fresh: [], second: [], ci: [] }, current: { fresh: [], second: [], ci: [] } };
sayIfSmoke();
console.log(`baseline ${revisions.baseline.slice(0, 7)} · current ${revisions.current.slice(0, 7)} · ${runs} run(s) each${args.load ? ' · both cores kept busy' : ''}`);
try {
  for (let run = 1; run <= runs; run++) {
    for (const side of ['baseline', 'current']) {
      const dir = cloneAt(revisions[side], `${side}-${run}`);
      results[side].fresh.push(await timed(`${side} ${run} fresh`, dir, ...command('npm', ['test'])));
      results[side].second.push(await timed(`${side} ${run} second`, dir, ...command('npm', ['test'])));
      rmSync(dir, { recursive: true, force: true });
      if (args.ci) {
        const ciDir = cloneAt(revisions[side], `${side}-${run}-ci`);
        results[side].ci.push(await timed(`${side} ${run} .ci/run`, ciDir, ...command('.ci/run', [])));
        rmSync(ciDir, { recursive: true, force: true });
      }
    }
  }
} finally {
  stopHogs();
  rmSync(scratch, { recursive: true, force: true });
}

console.log('\nmedians');
for (const kind of kinds) {
  const before = median(results.baseline[kind]);
  const after = median(results.current[kind]);
  assertFigures({ [`${kind} baseline`]: before, [`${kind} current`]: after, [`${kind} current/baseline`]: after / before });
  const runsOf = (side) => results[side][kind].map((ms) => (smoke ? (ms / 1000).toFixed(2) : (ms / 60_000).toFixed(1))).join(', ');
  console.log(`${kind.padEnd(8)} baseline ${minutes(before)} (${runsOf('baseline')}) · current ${minutes(after)} (${runsOf('current')}) · current/baseline ${(after / before).toFixed(2)} (target <= 0.5: ${after / before <= 0.5 ? 'met' : 'NOT met'})`);
}
if (failures.length > 0) {
  console.error(`✖ ${failures.length} run(s) failed: ${failures.join(', ')}`);
  process.exit(1);
}
