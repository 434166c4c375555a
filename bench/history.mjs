// A widget's trend read from a year of history, against a cached data route of the same server, in one run.
//   node scripts/pnpm.mjs --filter @dash/web build && node bench/history.mjs [--smoke]
// Starts the built dashboard with DEMO=1 on a fresh embedded store, waits for the demo's history to be read back from
// its fake providers, then imports a year of 20 metrics for 10 more projects (73,000 rows) through
// POST /api/history/import, so the store holds what a year of use leaves. It then drives the same load, in alternating
// rounds, at GET /api/revenue?range=30d (a cache hit: the baseline) and at what a widget's trend reads: one project's
// metric for a year (GET /api/history, 365 points: a widget's chart shows one metric at a time), and for reference a
// widget's four metrics at once (GET /api/history/series). It prints each round and the median ratio of time per
// request (history / cached route); the target, for the one metric, is at most 1.2.
// --smoke: one round of 32 requests a side, 2 projects of history; its figures are not to be quoted.
import autocannon from 'autocannon';
import { assertFigures, loadFor, perSecond, sayIfSmoke, smoke, startBuiltDashboard } from './support.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
const PROJECTS = smoke ? 2 : 10;
const DAYS = 365;
const TARGET = 1.2;
const metrics = [
  ['revenue.gross', 'USD'], ['revenue.net', 'USD'], ['revenue.mrr', 'USD'], ['revenue.subscribers', 'count'],
  ['analytics.visitors', 'count'], ['analytics.pageviews', 'count'], ['search.clicks', 'count'], ['search.impressions', 'count'],
  ['search.ctr', 'fraction'], ['search.position', 'position'], ['errors.events', 'count'], ['errors.unresolved', 'count'],
  ['uptime.up_ratio', 'fraction'], ['uptime.incidents', 'count'], ['storefront.rating', 'stars'], ['storefront.reviews', 'count'],
  ['ideas.open', 'count'], ['bugs.open', 'count'], ['shipping.deploys', 'count'], ['funding.balance', 'USD'],
];
/** A value that looks like the metric's (fractions 0-1, stars 1-5), varying by day. */
const valueOf = (unit, day, project) => {
  const wave = Math.sin((day + project * 7) / 9);
  if (unit === 'fraction') return Math.round((0.5 + wave * 0.4) * 1e4) / 1e4;
  if (unit === 'stars') return Math.round((4 + wave * 0.8) * 100) / 100;
  if (unit === 'position') return Math.round((12 + wave * 5) * 10) / 10;
  return Math.round(1000 + day * 3 + wave * 200);
};

sayIfSmoke();
const server = await startBuiltDashboard({ DEMO: '1' });
const base = server.url;
// Changes come from the dashboard's own pages (its guard refuses other origins): the local dashboard's owner.
const json = async (response, what) => {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response.json();
};

try {
  // The demo's own history first (the keeper reads its fake providers' days back at start): its rows stop growing, the
  // same count for two seconds. Not the day's snapshot: that comes at 06:00 UTC, so a fresh store has none before then.
  let [rows, steady] = [-1, 0];
  for (let i = 0; i < 600 && steady < 4; i++) {
    const { rows: now } = await json(await fetch(`${base}/api/history/settings`), 'GET /api/history/settings');
    steady = now > 0 && now === rows ? steady + 1 : 0;
    rows = now;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (steady < 4) throw new Error(`the demo's history did not settle in 300 s (${rows} rows)`);

  const today = new Date();
  const dates = Array.from({ length: DAYS }, (_, i) => new Date(today.getTime() - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  const lines = ['date,project,metric,value,unit'];
  for (let p = 1; p <= PROJECTS; p++) {
    const slug = `bench-${p}`;
    await json(await fetch(`${base}/api/projects`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify({ slug, name: `Bench ${p}`, integrations: {} }) }), 'POST /api/projects');
    for (const [metric, unit] of metrics) dates.forEach((date, day) => lines.push(`${date},${slug},${metric},${valueOf(unit, day, p)},${unit}`));
  }
  const started = performance.now();
  const imported = await json(await fetch(`${base}/api/history/import`, { method: 'POST', headers: { 'content-type': 'text/csv', origin: base }, body: `${lines.join('\n')}\n` }), 'POST /api/history/import');
  console.log(`imported ${imported.rows} rows (${PROJECTS} projects x ${metrics.length} metrics x ${DAYS} days) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const baseline = '/api/revenue?range=30d';
  /** The baseline is a cache hit: its entry is fetched again once it has expired (its time to live is shorter than a run). */
  const cached = async () => {
    for (let i = 0; i < 120; i++) {
      const response = await fetch(base + baseline);
      await json(response, `GET ${baseline}`);
      if (response.headers.get('x-cache') === 'HIT') return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`${baseline} never answered from the cache`);
  };
  await cached();
  const trend = `/api/history?project=bench-${PROJECTS}&metric=analytics.visitors`;
  const widget = `/api/history/series?project=bench-${PROJECTS}&metrics=revenue.gross,revenue.net,revenue.mrr,revenue.subscribers`;
  const one = await json(await fetch(base + trend), `GET ${trend}`);
  if (one.points.length !== DAYS) throw new Error(`expected ${DAYS} points, got ${one.points.length}`);

  const run = (path) => autocannon({ url: base + path, connections: CONNECTIONS, ...loadFor(SECONDS, 32) });
  for (const path of [baseline, trend, widget]) await run(path); // warm-up: JIT and sockets, not counted
  const ratios = { trend: [], widget: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    await cached();
    const hit = await run(baseline);
    const metric = await run(trend);
    const four = await run(widget);
    for (const result of [hit, metric, four]) {
      if (result.non2xx > 0) throw new Error('non-2xx answers during the run');
      if (perSecond(result) === 0) throw new Error('no answer came during a load');
      if (result.errors > 0) throw new Error(`${result.errors} requests failed (no answer) during the run`);
    }
    // Time per request is the inverse of requests per second at the same load.
    ratios.trend.push(perSecond(hit) / perSecond(metric));
    ratios.widget.push(perSecond(hit) / perSecond(four));
    console.log(
      `round ${round}: cached ${baseline} ${perSecond(hit).toFixed(0)} req/s (p99 ${hit.latency.p99} ms), ` +
        `a year of one metric ${perSecond(metric).toFixed(0)} req/s (p99 ${metric.latency.p99} ms, ratio ${ratios.trend.at(-1).toFixed(2)}), ` +
        `the revenue widget's four ${perSecond(four).toFixed(0)} req/s (p99 ${four.latency.p99} ms, ratio ${ratios.widget.at(-1).toFixed(2)})`,
    );
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  // Answers are kept a minute and dropped by a write: the first read after one goes to the store. Saving the schedule
  // (as it is) is such a write; one request at a time, its time against a cached data route's.
  const schedule = (await json(await fetch(`${base}/api/history/settings`), 'GET /api/history/settings')).schedule;
  const timed = async (path, before) => {
    const times = [];
    for (let i = 0; i < (smoke ? 3 : 30); i++) {
      await before?.();
      const started = performance.now();
      await json(await fetch(base + path), `GET ${path}`);
      times.push(performance.now() - started);
    }
    return median(times);
  };
  const write = async () =>
    json(await fetch(`${base}/api/history/schedule`, { method: 'PUT', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify(schedule) }), 'PUT /api/history/schedule');
  await cached();
  const [coldTrend, oneHit] = [await timed(trend, write), await timed(baseline)];
  console.log(`first read after a write (from the store), one at a time: a year of one metric ${coldTrend.toFixed(1)} ms, cached ${baseline} ${oneHit.toFixed(1)} ms`);
  const trendRatio = median(ratios.trend);
  const widgetRatio = median(ratios.widget);
  assertFigures({ 'trend ratio': trendRatio, 'widget ratio': widgetRatio });
  console.log(`median time ratio, a year of one metric / cached data route: ${trendRatio.toFixed(2)} (target <= ${TARGET}) ${trendRatio <= TARGET ? 'MET' : 'NOT MET'}`);
  // No target: a widget's chart shows one metric at a time, and the dashboard reads every widget's year with the page.
  console.log(`median time ratio, the revenue widget's four metrics / cached data route: ${widgetRatio.toFixed(2)} (four years of points in one answer, for reference)`);
} finally {
  await server.stop();
}
