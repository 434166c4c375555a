// What the benches share: a free port, their `--name=value` flags, and the built dashboard started on a fresh store.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoDir = fileURLToPath(new URL('..', import.meta.url));

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
 * apps/web/build/server.js on 127.0.0.1 over a fresh temp DATA_DIR (embedded SQLite, a new credentials key) with
 * `env` on top; resolves once `ready(url)` is true (GET /healthz answers, unless given), within 60 s.
 */
export async function startBuiltDashboard(env = {}, ready = async (url) => (await fetch(`${url}/healthz`)).ok) {
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
    if (child.exitCode !== null) throw new Error(`the dashboard exited:\n${output}`);
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
