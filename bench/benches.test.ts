// Every bench in bench/ in its smoke mode (`--smoke`: its own code path with its smallest numbers), so that a bench
// cannot rot unnoticed. Each runs as a child process, as a user runs it, with CI=true, and must exit 0 and print the
// line that carries its figure; the figures themselves are not judged (a smoke run's are not to be quoted).
//
// Three run at once, longest first (notify.mjs's three parts as three tests, side by side): each is several processes
// (dashboards, relays, Chromium, Redis servers), about a minute of CPU in all, most of it eight dashboards, Chromium and
// three tsx workers starting, and much of each one's time is waiting on them. They need
// apps/web/build (npm test builds it first), the relay bundled from the current sources (apps/relay/build.mjs, into a
// temp dir of this file's), Redis on 127.0.0.1:6379 (notify.mjs uses db 14 and cache-shared.mjs db 15, each flushed
// before and after; relay.mjs's db 13 is also packages/api/src/data/shared.test.ts's, which flushes it, so here
// relay.mjs gets a redis-server of its own), Postgres on 127.0.0.1:5432, the redis-server binary, Chromium, and git
// (test-suite.mjs clones this repository). One that is not there skips the benches that need it, loudly, except
// under CI=true, where they fail.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleRelay } from '../apps/relay/build.mjs';

const repoDir = fileURLToPath(new URL('..', import.meta.url));
const inCI = process.env.CI === 'true';
/** How long one bench may take once started; a machine busy with the rest of the suite is slower than a quiet one. */
const BENCH_DEADLINE_MS = 240_000;
const CONCURRENT = 3;

/** Undefined when something accepts a connection at 127.0.0.1:`port`, else why not. */
function answers(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(`nothing answers at 127.0.0.1:${port}`);
    });
    socket.once('error', (error) => resolve(`127.0.0.1:${port}: ${error.message}`));
  });
}

/** Undefined when `command args` runs and exits 0, else why not. */
function runs(command: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.once('error', (error) => resolve(`${command}: ${error.message}`));
    child.once('exit', (code) => resolve(code === 0 ? undefined : `${command} ${args.join(' ')} exited ${code}`));
  });
}

const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
type Service = 'redis' | 'postgres' | 'redis-server' | 'chromium' | 'git';
const problems: Record<Service, string | undefined> = {
  redis: await answers(6379),
  postgres: await answers(5432),
  'redis-server': await runs('redis-server', ['--version']),
  chromium: existsSync(chromium) ? undefined : `no Chromium at ${chromium} (set CHROMIUM_PATH)`,
  git: await runs('git', ['-C', repoDir, 'rev-parse', '--verify', '--quiet', 'HEAD']),
};
const buildProblem = existsSync(join(repoDir, 'apps/web/build/server.js'))
  ? undefined
  : 'apps/web/build/server.js is missing: `node scripts/pnpm.mjs --filter @dash/web build` first (npm test builds it)';

/** The bench's environment: this one's without vitest's own variables, with CI=true. */
const benchEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name, value]) => !name.startsWith('VITEST') && name !== 'TEST' && !(name === 'NODE_ENV' && value === 'test')),
);
benchEnv.CI = 'true';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  ms: number;
}

const running = new Set<ChildProcess>();
/** Ends a bench's process group: the bench and whatever it started that is still there. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

/** `node bench/<file> --smoke <args>` in a process group of its own, its output (stdout and stderr) kept; stragglers are killed once it exits. */
function runBench(file: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(repoDir, 'bench', file), '--smoke', ...args], {
    cwd: repoDir,
    env: { ...benchEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = setTimeout(() => {
    output += `\n[benches.test.ts: still running after ${BENCH_DEADLINE_MS / 1000} s: killed]\n`;
    killGroup(child, 'SIGKILL');
  }, BENCH_DEADLINE_MS);
  return new Promise((resolve) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // A process it left behind would hold its output open (and run on): it goes with the group.
      killGroup(child, 'SIGKILL');
    });
    child.once('close', () => {
      clearTimeout(deadline);
      running.delete(child);
      resolve({ code: exit?.code ?? null, signal: exit?.signal ?? null, output, ms: performance.now() - started });
    });
  });
}

/** At most `n` at once; the others wait their turn, in the order they asked. */
function limiter(n: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (active < n) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
const inTurn = limiter(CONCURRENT);

const scratch = mkdtempSync(join(tmpdir(), 'dash-bench-smoke-'));
let bundled: Promise<string> | undefined;
/** The relay bundled as it is deployed (apps/relay/build.mjs), into this file's temp dir, once: the relay benches start it. */
const relayBundle = () => (bundled ??= bundleRelay(join(scratch, 'relay.mjs')));

/** A redis-server of relay.mjs's own on a free loopback port, without files. */
async function privateRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const stop = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  };
  for (let i = 0; i < 200; i++) {
    if ((await answers(port)) === undefined) return { url: `redis://127.0.0.1:${port}/13`, stop };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await stop();
  throw new Error(`redis-server on 127.0.0.1:${port} did not start`);
}

interface Bench {
  file: string;
  /** After --smoke: notify.mjs's parts run as tests of their own, side by side, since together they are the longest. */
  args?: string[];
  /** It starts the built dashboard: a missing build fails it, with or without CI. */
  build: boolean;
  services: Service[];
  /** Lines that carry its figures: a user would notice one missing. */
  figures: RegExp[];
  env?: () => Promise<{ env: Record<string, string>; stop?: () => Promise<void> }>;
}

const number = String.raw`\d+\.\d+`;
const benches: Bench[] = [
  {
    file: 'first-visit.mjs',
    build: true,
    services: ['chromium'],
    figures: [
      new RegExp(`^All projects, desk 1280 px: first paint [\\d,]+ ms -> [\\d,]+ ms \\(ratio ${number}\\); every widget with data [\\d,]+ ms -> [\\d,]+ ms \\(ratio ${number}`, 'm'),
      new RegExp(`^the briefing, phone 390 px, CPU 4x: first paint [\\d,]+ ms -> [\\d,]+ ms \\(ratio ${number}\\)`, 'm'),
    ],
  },
  {
    file: 'cache-shared.mjs',
    build: true,
    services: ['redis', 'postgres'],
    figures: [new RegExp(`^ {2}redis +hit rate ${number}, ${number} upstream calls a key .*hit rate / baseline ${number} `, 'm')],
  },
  {
    file: 'notify.mjs',
    args: ['--only=latency'],
    build: true,
    services: ['redis'],
    figures: [new RegExp(`^ratio p95 long-poll/polling: ${number} `, 'm'), new RegExp(`^ratio p95 push/live stream \\(same webhooks\\): ${number} `, 'm')],
    // The relay bundled starts in a fraction of tsx's time (two relays here).
    env: async () => ({ env: { BENCH_RELAY_ENTRY: await relayBundle() } }),
  },
  {
    file: 'notify.mjs',
    args: ['--only=drain'],
    build: false,
    services: ['postgres'],
    figures: [
      new RegExp(`^drain sqlite: inbox [\\d,]+ ev/s, bare insert [\\d,]+ ev/s, ratio ${number} `, 'm'),
      new RegExp(`^drain postgres: inbox [\\d,]+ ev/s, bare insert [\\d,]+ ev/s, ratio ${number} `, 'm'),
    ],
  },
  {
    file: 'notify.mjs',
    args: ['--only=chat'],
    build: true,
    services: ['postgres'],
    figures: [
      new RegExp(`^ratio p95 two processes/one: ${number} `, 'm'),
      new RegExp(`^chat exactly once, two processes, .* per message ${number} \\(target 1\\.00\\); duplicates: none$`, 'm'),
    ],
  },
  {
    file: 'relay-cluster.mjs',
    build: false,
    services: ['redis-server'],
    figures: [new RegExp(`^ratio cluster / single \\(median of 1\\) +${number}$`, 'm'), new RegExp(`^webhooks per ingest script call: single Redis ${number}, Redis Cluster ${number} `, 'm')],
    env: async () => ({ env: { BENCH_RELAY_ENTRY: await relayBundle() } }),
  },
  { file: 'api.mjs', build: true, services: [], figures: [new RegExp(`^median ratio ${number} \\(target >= 0\\.5\\)`, 'm')] },
  { file: 'backup.mjs', build: true, services: [], figures: [new RegExp(`wall / slowest lane = ${number} `)] },
  {
    file: 'history.mjs',
    build: true,
    services: [],
    figures: [
      new RegExp(`^median time ratio, a year of one metric / cached data route: ${number} \\(target <= 1\\.2\\)`, 'm'),
      new RegExp(`^median time ratio, the revenue widget's four metrics / cached data route: ${number} \\(four years of points`, 'm'),
    ],
  },
  {
    file: 'relay.mjs',
    build: false,
    services: ['redis-server'],
    figures: [
      new RegExp(`^ratio \\(median of 1\\) +${number} `, 'm'),
      new RegExp(`^relay at \\d+ req/s \\(half its peak\\), open-loop: p99 ${number} ms`, 'm'),
      new RegExp(`^poll, 2,000 buffered, limit=500: p50 ${number} ms, p95 ${number} ms$`, 'm'),
    ],
    env: async () => {
      const redis = await privateRedis();
      try {
        return { env: { BENCH_RELAY_ENTRY: await relayBundle(), BENCH_REDIS_URL: redis.url }, stop: redis.stop };
      } catch (error) {
        await redis.stop();
        throw error;
      }
    },
  },
  { file: 'test-suite.mjs', build: false, services: ['git'], figures: [new RegExp(`^fresh +baseline ${number} s .* current/baseline ${number} `, 'm'), new RegExp(`^second +baseline ${number} s .* current/baseline ${number} `, 'm')] },
  {
    file: 'anomaly.mjs',
    build: false,
    services: [],
    figures: [
      new RegExp(`^unusual, 200 a day and up: precision ${number}, recall ${number}, false opens per 30 days on clean twins ${number} \\(targets`, 'm'),
      new RegExp(`^change > 20 % against the same weekday: precision ${number}, recall ${number}, false opens per 30 days on clean twins ${number} `, 'm'),
    ],
  },
  {
    file: 'deliveries.mjs',
    build: false,
    services: ['postgres'],
    figures: ['sqlite', 'postgres'].map(
      (store) => new RegExp(`^deliveries ${store}: first page ${number} ms \\(ratio ${number} against OFFSET [\\d,]+\\), within 50 ms: (yes|NO) `, 'm'),
    ),
  },
];

const command = (bench: Bench) => ['bench/' + bench.file, '--smoke', ...(bench.args ?? [])].join(' ');
const unmet = (bench: Bench) => bench.services.flatMap((service) => (problems[service] ? [`${service}: ${problems[service]}`] : []));
for (const bench of benches) {
  if (!inCI && unmet(bench).length > 0) console.warn(`\n*** ${command(bench)} is SKIPPED: ${unmet(bench).join('; ')} ***\n`);
}

afterAll(async () => {
  // A bench still running (its test timed out): its whole process group goes.
  for (const child of running) killGroup(child, 'SIGKILL');
  await bundled?.catch(() => undefined);
  rmSync(scratch, { recursive: true, force: true });
});

describe.concurrent('every bench in its smoke mode', () => {
  for (const bench of benches) {
    it.skipIf(!inCI && unmet(bench).length > 0)(
      `${command(bench)} exits 0 and prints its figures`,
      async () => {
        if (unmet(bench).length > 0) throw new Error(`CI=true needs ${unmet(bench).join('; ')}`);
        if (bench.build && buildProblem) throw new Error(buildProblem);
        const run = await inTurn(async () => {
          const extra = await bench.env?.();
          try {
            return await runBench(bench.file, bench.args ?? [], extra?.env);
          } finally {
            await extra?.stop?.();
          }
        });
        const told = `${command(bench)} ${run.code === null ? `was killed (${run.signal})` : `exited ${run.code}`} after ${(run.ms / 1000).toFixed(1)} s; its output:\n${run.output}`;
        expect(run.code, told).toBe(0);
        expect(run.output, told).toContain('smoke run (--smoke)');
        for (const figure of bench.figures) expect(run.output, `no line matches ${figure}\n${told}`).toMatch(figure);
      },
      // Its turn may come after others' (three at a time), each within its own deadline.
      BENCH_DEADLINE_MS * Math.ceil(benches.length / CONCURRENT),
    );
  }
});
