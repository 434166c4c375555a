// Cache-hit speed of GET /api/revenue against a bare JSON endpoint of the same server, in one run.
//   node scripts/pnpm.mjs --filter @dash/web build && node bench/api.mjs
// Starts the built dashboard with DEMO=1 on a fresh embedded store (its revenue comes from the
// in-process sandbox through the real connectors), warms the cache with one request, then drives
// the same load at /healthz (a bare JSON answer) and at /api/revenue (served from the cache).
// Both run in alternating rounds (bare, revenue, bare, revenue, ...) so drift on a shared machine
// hits both alike; it prints each round and the median ratio; the target is at least 0.5.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
const repoDir = fileURLToPath(new URL('..', import.meta.url));

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

const dataDir = mkdtempSync(join(tmpdir(), 'dash-bench-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [join(repoDir, 'apps/web/build/server.js')], {
  cwd: repoDir,
  env: {
    PATH: process.env.PATH,
    HOST: '127.0.0.1',
    PORT: String(port),
    DEMO: '1',
    DATABASE_URL: `file:${join(dataDir, 'dashboard.db')}`,
    DATA_DIR: dataDir,
    CREDENTIALS_KEY: randomBytes(32).toString('hex'),
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      if (i > 200) throw new Error('the dashboard did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const warm = await fetch(`${base}/api/revenue?range=30d`);
  if (!warm.ok) throw new Error(`warming /api/revenue failed: ${warm.status} ${await warm.text()}`);
  const again = await fetch(`${base}/api/revenue?range=30d`);
  if (again.headers.get('x-cache') !== 'HIT') throw new Error(`expected a cache HIT, got ${again.headers.get('x-cache')}`);

  const run = (path) => autocannon({ url: base + path, connections: CONNECTIONS, duration: SECONDS });
  await run('/healthz'); // warm-up: JIT and sockets, not counted
  await run('/api/revenue?range=30d');
  const ratios = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const bare = await run('/healthz');
    const revenue = await run('/api/revenue?range=30d');
    if (revenue.non2xx > 0 || bare.non2xx > 0) throw new Error('non-2xx answers during the run');
    const ratio = revenue.requests.average / bare.requests.average;
    ratios.push(ratio);
    console.log(
      `round ${round}: bare JSON /healthz ${bare.requests.average.toFixed(0)} req/s (p99 ${bare.latency.p99} ms), ` +
        `cache hit /api/revenue?range=30d ${revenue.requests.average.toFixed(0)} req/s (p99 ${revenue.latency.p99} ms), ratio ${ratio.toFixed(2)}`,
    );
  }
  const median = ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  console.log(`median ratio ${median.toFixed(2)} (target >= 0.5) ${median >= 0.5 ? 'MET' : 'NOT MET'}`);
} finally {
  server.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
