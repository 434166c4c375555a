// Cache-hit speed of GET /api/revenue against a bare JSON endpoint of the same server, in one run.
//   node scripts/pnpm.mjs --filter @dash/web build && node bench/api.mjs [--smoke]
// Starts the built dashboard with DEMO=1 on a fresh embedded store (its revenue comes from the
// in-process sandbox through the real connectors), warms the cache with one request, then drives
// the same load at /healthz (a bare JSON answer) and at /api/revenue (served from the cache).
// Both run in alternating rounds (bare, revenue, bare, revenue, ...) so drift on a shared machine
// hits both alike; it prints each round and the median ratio; the target is at least 0.5.
// --smoke: one round of 32 requests a side (and as many to warm up); its figures are not to be quoted.
import autocannon from 'autocannon';
import { assertFigures, loadFor, perSecond, sayIfSmoke, smoke, startBuiltDashboard } from './support.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
sayIfSmoke();
const server = await startBuiltDashboard({ DEMO: '1' });
const base = server.url;

try {
  const warm = await fetch(`${base}/api/revenue?range=30d`);
  if (!warm.ok) throw new Error(`warming /api/revenue failed: ${warm.status} ${await warm.text()}`);
  const again = await fetch(`${base}/api/revenue?range=30d`);
  if (again.headers.get('x-cache') !== 'HIT') throw new Error(`expected a cache HIT, got ${again.headers.get('x-cache')}`);

  const run = (path) => autocannon({ url: base + path, connections: CONNECTIONS, ...loadFor(SECONDS, 32) });
  await run('/healthz'); // warm-up: JIT and sockets, not counted
  await run('/api/revenue?range=30d');
  const ratios = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const bare = await run('/healthz');
    const revenue = await run('/api/revenue?range=30d');
    if (revenue.non2xx > 0 || bare.non2xx > 0) throw new Error('non-2xx answers during the run');
    if (revenue.errors > 0 || bare.errors > 0) throw new Error(`${revenue.errors + bare.errors} requests failed (no answer) during the run`);
    const ratio = perSecond(revenue) / perSecond(bare);
    ratios.push(ratio);
    console.log(
      `round ${round}: bare JSON /healthz ${perSecond(bare).toFixed(0)} req/s (p99 ${bare.latency.p99} ms), ` +
        `cache hit /api/revenue?range=30d ${perSecond(revenue).toFixed(0)} req/s (p99 ${revenue.latency.p99} ms), ratio ${ratio.toFixed(2)}`,
    );
  }
  const median = ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  assertFigures({ 'median ratio': median });
  console.log(`median ratio ${median.toFixed(2)} (target >= 0.5) ${median >= 0.5 ? 'MET' : 'NOT MET'}`);
} finally {
  await server.stop();
}
