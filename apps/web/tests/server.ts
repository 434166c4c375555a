import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';

const webDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(webDir, '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RunningDashboard {
  url: string;
  dataDir: string;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

export interface DashboardOptions {
  /**
   * Start from these variables only (plus PATH and the free PORT), in a fresh directory that holds
   * the migrations as `./drizzle`, so the relative paths of `.env.example` land in it.
   */
  env?: Record<string, string | undefined>;
}

/** `.env.example` exactly as a user copies it to `.env` or hands it to `docker run --env-file`. */
export const envExample = () => parseEnv(readFileSync(join(repoDir, '.env.example'), 'utf8'));

/** Starts the built dashboard (`apps/web/server.js`, as `npm start` does) on a free port over a fresh embedded store. */
export async function startDashboard(options: DashboardOptions = {}): Promise<RunningDashboard> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dash-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  if (options.env) symlinkSync(join(repoDir, 'drizzle'), join(dataDir, 'drizzle'));
  const child: ChildProcess = spawn(process.execPath, [join(webDir, 'server.js')], {
    cwd: options.env ? dataDir : repoDir,
    env: options.env
      ? { ...options.env, PATH: process.env.PATH, PORT: String(port) }
      : {
          PATH: process.env.PATH,
          HOST: '127.0.0.1',
          PORT: String(port),
          DATABASE_URL: `file:${join(dataDir, 'dashboard.db')}`,
          DATA_DIR: dataDir,
          MIGRATIONS_DIR: join(repoDir, 'drizzle'),
          CREDENTIALS_KEY: randomBytes(32).toString('hex'),
        },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/settings`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`The dashboard did not start (did you build it?):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, dataDir, output: () => output, stop };
}
