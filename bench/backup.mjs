// A backup over the demo, with SPEC.md's delays as they are, against what one sequential pass would take.
//   node scripts/pnpm.mjs --filter @dash/web build && node bench/backup.mjs [--rounds=1] [--smoke]
//
// Starts the built dashboard (a fresh temp DATA_DIR, embedded SQLite, DEMO=1: three products whose
// upstreams are the sandbox in the dashboard's own process, through the real connectors and limiters),
// then POSTs /api/backup with its BACKUP_SECRET and times it from the request to the answer (wall). The
// backup records, per lane (a service and credential), its calls' time (waits for the upstream's limiter
// included) and the delays it waited between them; from those, measured in the same run:
//   sequential  every call's duration plus every delay, one after another: what a backup without lanes takes;
//   slowest     the busiest lane's own calls and delays: the least any backup that keeps the delays can take.
// Prints each lane, the three times, wall / slowest (target <= 1.1) and sequential / wall.
// --smoke: the demo cut down, through the REST API, to one project (Formfox) without its revenue integration, whose
// 15 s delays would dominate, so the backup takes a second or two; its figures are not to be quoted, and a failed
// refresh fails the run.
import { randomBytes } from 'node:crypto';
import { assertFigures, cliArgs, sayIfSmoke, smoke, startBuiltDashboard } from './support.mjs';

const args = cliArgs();
const rounds = Number(args.rounds ?? 1);
const SECRET = randomBytes(24).toString('base64url');
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** A change as the dashboard's own page makes it (its Origin: the cross-site guard's rule for a signed-out local dashboard). */
async function change(url, method, body) {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json', origin: new URL(url).origin }, ...(body ? { body: JSON.stringify(body) } : {}) });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
}

sayIfSmoke();

// Ready once the demo's three projects are there.
const dashboard = await startBuiltDashboard({ DEMO: '1', BACKUP_SECRET: SECRET }, async (url) => (await (await fetch(`${url}/api/projects`)).json()).projects?.length === 3);
try {
  if (smoke) {
    for (const slug of ['pocket-ledger', 'tideline']) await change(`${dashboard.url}/api/projects/${slug}`, 'DELETE');
    await change(`${dashboard.url}/api/projects/formfox`, 'PATCH', { integrations: { revenue: null } });
  }
  for (let round = 1; round <= rounds; round++) {
    const started = performance.now();
    const response = await fetch(`${dashboard.url}/api/backup`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}` } });
    const wall = performance.now() - started;
    const result = await response.json();
    if (response.status !== 200) throw new Error(`POST /api/backup answered ${response.status}: ${JSON.stringify(result)}`);
    const { last } = await (await fetch(`${dashboard.url}/api/backup`)).json();
    const lanes = last.lanes.map((lane) => ({ ...lane, total: lane.callMs + lane.delayMs })).sort((a, b) => b.total - a.total);
    const sequential = lanes.reduce((sum, lane) => sum + lane.total, 0);
    const slowest = lanes[0];
    if (!slowest) throw new Error(`the backup recorded no lane: ${JSON.stringify(last)}`);
    console.log(`\nround ${round}: ${result.refreshed} refreshed, ${result.failed} failed (${result.duration})`);
    for (const lane of lanes) {
      console.log(`  ${lane.label.padEnd(42)} ${String(lane.calls).padStart(2)} calls  ${seconds(lane.callMs).padStart(7)} in calls  ${seconds(lane.delayMs).padStart(7)} in delays`);
    }
    console.log(`  wall ${seconds(wall)}   sequential pass ${seconds(sequential)}   slowest lane ${seconds(slowest.total)} (${slowest.label})`);
    const ratio = wall / slowest.total;
    console.log(`  wall / slowest lane = ${ratio.toFixed(3)} (target <= 1.1: ${ratio <= 1.1 ? 'met' : 'NOT met'})   sequential / wall = ${(sequential / wall).toFixed(2)}x`);
    if (result.failed > 0) console.log(`  errors: ${JSON.stringify(result.errors)}`);
    assertFigures({ wall, 'sequential pass': sequential, 'slowest lane': slowest.total, 'wall / slowest lane': ratio });
    if (smoke && (result.failed > 0 || result.refreshed === 0)) throw new Error(`${result.refreshed} refreshed and ${result.failed} failed: a smoke run refreshes all`);
  }
} finally {
  await dashboard.stop();
}
