import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { holdResponseToDocument } from './described.ts';

const webDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(webDir, '../..');

/** A port no process listens on now (another may take it before the caller listens: choose again on EADDRINUSE). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * How long a process a test starts (a dashboard, a relay) has to listen. Quiet, one does in about a second; a 2-core
 * CI machine running three test files, their Chromiums, the typecheck and the lint has been seen to take over 20 s to
 * load one. The hooks' own limit (60 s) stays above this.
 */
export const START_DEADLINE_MS = 45_000;

export interface RunningDashboard {
  /** The address to open: ORIGIN when one was given, else http://127.0.0.1:<port>. */
  url: string;
  port: number;
  dataDir: string;
  /** Everything the server printed so far. */
  output(): string;
  /**
   * A request to `path` as the dashboard's own pages send it: with their Origin, so the cross-site guard lets a change
   * through. An /api answer is held to the OpenAPI document (described.ts).
   */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

export interface DashboardOptions {
  /** Variables over the defaults (loopback, a fresh store and key), or a function of the chosen port. */
  env?: Env | ((port: number) => Env);
  /**
   * Start from `.env.example`'s values instead of the defaults (plus PATH, the free PORT and `env`), in a
   * fresh directory that holds the migrations as `./drizzle`, so its relative paths land in it.
   */
  fromEnvExample?: boolean;
  /** node's arguments, resolved from `cwd`: `build/server.js` unless given (e.g. `['build']`, as `node build` runs it). */
  entry?: string[];
  /**
   * Where it runs: the repo root (the default, as `npm start`), `web` (apps/web, for `node build`), or `app`: the fresh
   * directory laid out as the Docker image's /app (`build` and `drizzle` in it), where the relative defaults land.
   */
  cwd?: 'repo' | 'web' | 'app';
}

/** The working directory and node's arguments for an entry (see DashboardOptions). */
function command(options: Pick<DashboardOptions, 'entry' | 'cwd' | 'fromEnvExample'>, dataDir: string): { cwd: string; args: string[] } {
  const where = options.cwd ?? (options.fromEnvExample ? 'app' : 'repo');
  const cwd = where === 'app' ? dataDir : where === 'web' ? webDir : repoDir;
  if (where === 'app') {
    symlinkSync(join(repoDir, 'drizzle'), join(dataDir, 'drizzle'));
    symlinkSync(join(webDir, 'build'), join(dataDir, 'build'));
  }
  return { cwd, args: options.entry ?? [join(webDir, 'build/server.js')] };
}

/** `.env.example` exactly as a user copies it to `.env` or hands it to `docker run --env-file`. */
export const envExample = () => parseEnv(readFileSync(join(repoDir, '.env.example'), 'utf8'));

/** The port chosen as free was taken before the dashboard could listen on it (by a test file running beside this one). */
class PortTaken extends Error {}

/**
 * Starts the built dashboard (`build/server.js`, as `npm start` does) on a free port over a fresh embedded store. A
 * port taken in the moment between its choice and the listen (test files run in parallel) is chosen again.
 */
export async function startDashboard(options: DashboardOptions = {}): Promise<RunningDashboard> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error;
    }
  }
}

async function startOnce(options: DashboardOptions): Promise<RunningDashboard> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dash-e2e-'));
  const port = await freePort();
  const extra = typeof options.env === 'function' ? options.env(port) : (options.env ?? {});
  const defaults: Env = options.fromEnvExample
    ? envExample()
    : {
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${join(dataDir, 'dashboard.db')}`,
        DATA_DIR: dataDir,
        MIGRATIONS_DIR: join(repoDir, 'drizzle'),
        CREDENTIALS_KEY: randomBytes(32).toString('hex'),
        // The metric history's keeper reads every upstream in the background: off unless a test is about it (history.test.ts),
        // so a test counting upstream calls counts its own.
        HISTORY_SNAPSHOTS: 'off',
      };
  const env: Env = { ...defaults, ...extra, PATH: process.env.PATH, PORT: String(port) };
  const url = env.ORIGIN || `http://127.0.0.1:${port}`;
  let output = '';
  const { cwd, args } = command(options, dataDir);
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };

  // Asked on loopback with the Host of `url`, so a remote dashboard whose ORIGIN does not resolve here answers too.
  const healthy = () =>
    new Promise<boolean>((resolve) => {
      get(`http://127.0.0.1:${port}/healthz`, { headers: { host: new URL(url).host } }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      }).on('error', () => resolve(false));
    });
  const deadline = Date.now() + START_DEADLINE_MS;
  // Its own "Listening on" first: until then a health answer could come from whoever holds the port.
  for (;;) {
    if (/^Listening on /m.test(output) && (await healthy())) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      if (/EADDRINUSE/.test(output)) throw new PortTaken(output);
      throw new Error(`The dashboard did not start (did you build it?):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const sameOrigin = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('origin', url);
    const response = await fetch(url + path, { ...init, headers });
    await holdResponseToDocument(init.method ?? 'GET', url + path, response);
    return response;
  };
  return { url, port, dataDir, output: () => output, fetch: sameOrigin, stop };
}

/** Runs the built server with `env` and waits for it to exit by itself: for start-up refusals. */
export async function runUntilExit(env: Env, options: Pick<DashboardOptions, 'entry' | 'cwd'> = {}): Promise<{ code: number | null; output: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dash-e2e-'));
  const port = await freePort();
  const { cwd, args } = command(options, dataDir);
  const child = spawn(process.execPath, args, {
    cwd,
    env: { DATA_DIR: dataDir, DATABASE_URL: `file:${join(dataDir, 'dashboard.db')}`, MIGRATIONS_DIR: join(repoDir, 'drizzle'), ...env, PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  rmSync(dataDir, { recursive: true, force: true });
  return { code, output };
}
