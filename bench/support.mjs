// What the benches share: a free port, their `--name=value` flags and `--smoke`, and the built dashboard started on a fresh store.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * How long a process a bench starts (a relay, a redis-server, a dashboard) has to answer. Quiet, one does in about a
 * second; on a 2-core machine running the rest of the test suite beside a smoke run, one has taken over 5 s.
 */
export const START_DEADLINE_MS = 45_000;

/** A port nothing listens on now, on 127.0.0.1. */
export const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** `--rounds=3 --only=drain --verbose` as `{ rounds: '3', only: 'drain', verbose: 'true' }`. */
export const cliArgs = () =>
  Object.fromEntries(
    process.argv.slice(2).map((arg) => {
      const [name, ...value] = arg.replace(/^--/, '').split('=');
      return [name, value.length > 0 ? value.join('=') : 'true'];
    }),
  );

/**
 * `--smoke`: the bench's own code path with its smallest numbers (one round, a handful of requests, short durations),
 * which tells in seconds whether the bench still works, not how fast anything is (bench/benches.test.ts runs every
 * bench so). A smoke run says so as it starts, and exits non-zero when something did not work.
 */
export const smoke = cliArgs().smoke === 'true';

/** In a smoke run, says that it is one: its figures are not to be quoted. */
export function sayIfSmoke() {
  if (smoke) console.log('smoke run (--smoke): the smallest numbers, to check that the bench works; its figures are not to be quoted');
}

/** How often autocannon samples in a smoke run: it stops only at a sample, 1 s apart by default. */
const SMOKE_SAMPLE_MS = 100;

/** autocannon's options for one load: `seconds` long or, in a smoke run, `requests` requests. */
export const loadFor = (seconds, requests) => (smoke ? { amount: requests, sampleInt: SMOKE_SAMPLE_MS } : { duration: seconds });

/** An autocannon result's mean requests a second (its `requests.average` is per sample). */
export const perSecond = (result) => (result.requests.average * 1000) / (smoke ? SMOKE_SAMPLE_MS : 1000);

/** Throws unless every figure is a finite number: a figure missing or NaN is a run that did not work. */
export function assertFigures(figures) {
  const bad = Object.entries(figures).filter(([, value]) => typeof value !== 'number' || !Number.isFinite(value));
  if (bad.length > 0) throw new Error(`figures missing or not a number: ${bad.map(([name, value]) => `${name} = ${value}`).join(', ')}`);
}

/**
 * apps/web/build/server.js on 127.0.0.1 over a fresh temp DATA_DIR (embedded SQLite, a new credentials key) with
 * `env` on top; resolves once `ready(url)` is true (GET /healthz answers, unless given), within 60 s. A port chosen as
 * free but taken before the dashboard listened on it is chosen again, as apps/web/tests/server.ts does: with the demo
 * on, the dashboard itself starts the sandbox's servers on ports the system picks before it listens, and one took the
 * chosen port in a loaded run (EADDRINUSE).
 */
export async function startBuiltDashboard(env = {}, ready = async (url) => (await fetch(`${url}/healthz`)).ok) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, ready);
    } catch (error) {
      if (attempt === 3 || !/EADDRINUSE/.test(String(error?.message))) throw error;
    }
  }
}

async function startOnce(env, ready) {
  const dataDir = mkdtempSync(join(tmpdir(), 'dash-bench-'));
  const port = await freePort();
  const child = spawn(process.execPath, [join(repoDir, 'apps/web/build/server.js')], {
    cwd: repoDir,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: `file:${join(dataDir, 'dashboard.db')}`,
      MIGRATIONS_DIR: join(repoDir, 'drizzle'),
      CREDENTIALS_KEY: randomBytes(32).toString('hex'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`the dashboard exited:\n${output}`);
    }
    try {
      if (await ready(url)) break;
    } catch {
      // not listening yet
    }
    if (i > 600) {
      await stop();
      throw new Error(`the dashboard did not start in 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, stop, output: () => output };
}

/**
 * The bundled relay the relay benches start: apps/relay/dist/relay.mjs, which `node scripts/pnpm.mjs --filter @dash/relay
 * build` makes, or BENCH_RELAY_ENTRY (bench/benches.test.ts bundles the current sources into a temp dir of its own).
 */
export function relayEntry() {
  const entry = process.env.BENCH_RELAY_ENTRY ?? join(repoDir, 'apps/relay/dist/relay.mjs');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`node scripts/pnpm.mjs --filter @dash/relay build\` first`);
  return entry;
}

/** One ~8 KB GitHub pull_request (closed, merged) webhook body and its X-Hub-Signature-256 under `secret`: the relay benches' load. */
export function signedPullRequest(secret) {
  const body = JSON.stringify({
    action: 'closed',
    number: 42,
    pull_request: { number: 42, title: 'Add billing page', html_url: 'https://github.com/acme/app/pull/42', merged: true, merged_at: '2026-11-22T10:00:00Z', body: 'x'.repeat(7600) },
    repository: { full_name: 'acme/app', html_url: 'https://github.com/acme/app' },
    sender: { login: 'octocat' },
  });
  return { body, signature: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
}
