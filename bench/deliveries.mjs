// The webhook deliveries log's pages with 100,000 rows, against the same page read by OFFSET paging, in one run.
//   node bench/deliveries.mjs [--rows=100000] [--runs=15] [--stores=sqlite,postgres] [--smoke]
// Fills a fresh store (SQLite: a file in a temp dir; Postgres: a throwaway database on 127.0.0.1:5432, dropped after)
// with 30 days of deliveries through Store.deliveries.record, 1,000 rows a call: five integrations, every outcome
// (notified 30 %, threaded 20 %, duplicate 15 %, ignored 30 %, invalid 5 %), titles of a few words, and for the last
// day's rows a body of ~1.5 KB kept until a day after (what the log holds after a month). Postgres is ANALYZEd after
// the fill, as its autovacuum would be within a minute; SQLite is not (the dashboard never runs ANALYZE).
// Then, each the median of --runs reads through Store.deliveries.list after one uncounted read:
//   first page      no filter, 50 rows (the page as it opens);
//   filtered page   integration + outcome (code_host, ignored: ~6 % of the rows);
//   text page       a text search whose word is in ~7 % of the titles;
//   page 20         the 20th page of 50 by cursor (the cursor read by walking the 19 before it, uncounted);
// and the baseline, measured in the same run: the first page's query (same columns, same order) with OFFSET paging
// at offset 50,000 (half the rows), which is what a page deep in the log costs without a cursor. It prints each time
// with its ratio to the baseline, a text search that matches nothing (a full scan, for reference), and whether the
// first page is within 50 ms (issue 53's target). A full run takes about a minute.
// --smoke: 2,000 rows, 3 runs, OFFSET 1,000; its figures are not to be quoted. It exits non-zero when a page is not
// what it should be or Postgres does not answer.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { assertFigures, cliArgs, repoDir, sayIfSmoke, smoke } from './support.mjs';

const { openStore } = await tsImport('../packages/db/src/index.ts', import.meta.url);
const { scratchPostgres } = await tsImport('../packages/db/src/testing.ts', import.meta.url);
const dbRequire = createRequire(join(repoDir, 'packages/db/package.json'));
const { createClient } = dbRequire('@libsql/client');
const postgres = dbRequire('postgres');

const args = cliArgs();
const ROWS = Number(args.rows ?? (smoke ? 2_000 : 100_000));
const RUNS = Number(args.runs ?? (smoke ? 3 : 15));
const STORES = (args.stores ?? 'sqlite,postgres').split(',');
const PAGE = 50;
const OFFSET = Math.floor(ROWS / 2);
const TARGET_MS = 50;
const MIGRATIONS = join(repoDir, 'drizzle');
const NOW = Date.parse('2026-12-07T12:00:00.000Z');
const DAY = 86_400_000;
const SPAN = 30 * DAY;

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const integrations = ['code_host', 'deploy_host', 'error_tracker', 'issue_tracker', 'uptime_monitor'];
const outcomes = [
  ['notified', 0.3],
  ['threaded', 0.2],
  ['duplicate', 0.15],
  ['ignored', 0.3],
  ['invalid', 0.05],
];
const words = 'site api app docs billing search login signup dashboard mobile web worker queue cache cron auth mail export import upload report admin settings profile checkout invoice webhook relay beta staging'.split(' ');
const TEXT = 'checkout';

/** Row `n` of the log (n = 0 the oldest), the same on every run. */
function row(n, random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  let roll = random();
  const outcome = outcomes.find(([, share]) => (roll -= share) < 0)?.[0] ?? 'ignored';
  const receivedAt = NOW - SPAN + Math.floor((n / ROWS) * SPAN);
  const integration = pick(integrations);
  const id = `d${String(n).padStart(7, '0')}`;
  const recent = receivedAt > NOW - DAY;
  return {
    id,
    receivedAt,
    source: random() < 0.9 ? 'relay' : 'local',
    integration,
    eventType: outcome === 'invalid' ? null : `${pick(['pr', 'deploy', 'issue', 'monitor'])}.${pick(['opened', 'merged', 'error', 'down', 'created'])}`,
    deliveryId: `${integration}-${n.toString(16)}-${Math.floor(random() * 1e9).toString(36)}`,
    sourceEventId: outcome === 'invalid' || outcome === 'ignored' ? null : `${integration}:${Math.floor(n / 2)}`,
    outcome,
    detail: outcome === 'ignored' ? 'no project has it' : outcome === 'invalid' ? 'Unexpected end of JSON input' : null,
    title: outcome === 'invalid' ? null : `${pick(words)} ${pick(words)}: change ${n}`,
    projectSlug: outcome === 'ignored' ? null : pick(['acme', 'orbit', 'formfox']),
    notificationId: outcome === 'notified' || outcome === 'threaded' || outcome === 'duplicate' ? `n${Math.floor(n / 3)}` : null,
    eventId: outcome === 'notified' || outcome === 'threaded' ? `e${n}` : null,
    duplicateOf: null,
    replayOf: null,
    replayRequest: null,
    event: outcome === 'notified' || outcome === 'threaded' ? JSON.stringify({ type: 'pr.opened', title: `change ${n}`, refs: [`${integration}:acme/site`] }) : null,
    body: recent ? JSON.stringify({ action: 'opened', number: n, pad: 'x'.repeat(1400) }) : null,
    bodyUntil: recent ? receivedAt + DAY : null,
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
async function timed(work) {
  await work(); // uncounted: statements prepared, pages cached
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return median(times);
}
const ms = (value) => `${value.toFixed(2)} ms`;
const pad = (text) => text.padEnd(48);

/** The columns Store.deliveries.list selects, for the baseline's query. */
const LISTED =
  'id, received_at, source, integration, event_type, delivery_id, source_event_id, outcome, detail, title, project_slug, notification_id, event_id, duplicate_of, replay_of, replay_request, body_until, case when body is null then 0 else 1 end as has_body';
const OFFSET_QUERY = `select ${LISTED} from webhook_deliveries order by received_at desc, id desc limit ${PAGE} offset ${OFFSET}`;

async function measure(kind) {
  let url;
  let cleanup;
  let offsetPage;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'dash-bench-deliveries-'));
    url = `file:${join(dir, 'dashboard.db')}`;
    const client = createClient({ url });
    offsetPage = async () => (await client.execute(OFFSET_QUERY)).rows;
    cleanup = async () => {
      client.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const database = await scratchPostgres();
    url = database.url;
    const sql = postgres(url, { onnotice: () => {}, max: 1 });
    offsetPage = () => sql.unsafe(OFFSET_QUERY);
    cleanup = async () => {
      await sql.end();
      await database.drop();
    };
  }
  const store = await openStore({ url, migrationsDir: MIGRATIONS });
  try {
    const random = mulberry32(53);
    const started = performance.now();
    for (let from = 0; from < ROWS; from += 1000) {
      const batch = [];
      for (let n = from; n < Math.min(ROWS, from + 1000); n++) batch.push(row(n, random));
      await store.deliveries.record(batch);
    }
    const fill = (performance.now() - started) / 1000;
    if (kind === 'postgres') {
      const sql = postgres(url, { onnotice: () => {}, max: 1 });
      await sql`analyze webhook_deliveries`;
      await sql.end();
    }
    const size = kind === 'sqlite' ? ` (${(statSync(new URL(url)).size / 1e6).toFixed(0)} MB file)` : '';
    console.log(`${kind}: ${ROWS.toLocaleString('en')} rows recorded in ${fill.toFixed(1)} s${size}`);

    // What each page must be, checked once: a wrong answer fast is no figure.
    const first = await store.deliveries.list({}, PAGE);
    if (first.length !== PAGE || first[0].id !== `d${String(ROWS - 1).padStart(7, '0')}`) throw new Error(`${kind}: the first page does not start with the newest row`);
    const filtered = await store.deliveries.list({ integration: 'code_host', outcome: 'ignored' }, PAGE);
    if (filtered.length !== PAGE || filtered.some((r) => r.integration !== 'code_host' || r.outcome !== 'ignored')) throw new Error(`${kind}: the filtered page is wrong`);
    const found = await store.deliveries.list({ text: TEXT.toUpperCase() }, PAGE);
    if (found.length !== PAGE || found.some((r) => !r.title?.includes(TEXT))) throw new Error(`${kind}: the text page is wrong`);
    let cursor;
    for (let page = 1; page < 20; page++) {
      const rows = await store.deliveries.list({}, PAGE, cursor);
      cursor = { receivedAt: rows.at(-1).receivedAt, id: rows.at(-1).id };
    }
    const twentieth = await store.deliveries.list({}, PAGE, cursor);
    const offsetRows = await offsetPage();
    if (twentieth[0]?.id !== `d${String(ROWS - 1 - 19 * PAGE).padStart(7, '0')}`) throw new Error(`${kind}: page 20 does not start where 19 pages end`);
    if (offsetRows.length !== PAGE) throw new Error(`${kind}: the baseline read ${offsetRows.length} rows`);

    const figures = {
      first: await timed(() => store.deliveries.list({}, PAGE)),
      filtered: await timed(() => store.deliveries.list({ integration: 'code_host', outcome: 'ignored' }, PAGE)),
      text: await timed(() => store.deliveries.list({ text: TEXT }, PAGE)),
      twentieth: await timed(() => store.deliveries.list({}, PAGE, cursor)),
      nothing: await timed(() => store.deliveries.list({ text: 'no such words' }, PAGE)),
      baseline: await timed(offsetPage),
    };
    assertFigures(figures);
    const ratio = (value) => (value / figures.baseline).toFixed(3);
    console.log(`  ${pad(`first page (no filter, ${PAGE} rows)`)} ${ms(figures.first)}  ratio ${ratio(figures.first)}`);
    console.log(`  ${pad('integration + outcome page')} ${ms(figures.filtered)}  ratio ${ratio(figures.filtered)}`);
    console.log(`  ${pad(`text search page ("${TEXT}", ~7 % of titles)`)} ${ms(figures.text)}  ratio ${ratio(figures.text)}`);
    console.log(`  ${pad('page 20 by cursor')} ${ms(figures.twentieth)}  ratio ${ratio(figures.twentieth)}`);
    console.log(`  ${pad('text search matching nothing (full scan)')} ${ms(figures.nothing)}  ratio ${ratio(figures.nothing)}`);
    console.log(`  ${pad(`baseline: first page's query at OFFSET ${OFFSET.toLocaleString('en')}`)} ${ms(figures.baseline)}`);
    console.log(
      `deliveries ${kind}: first page ${figures.first.toFixed(2)} ms (ratio ${ratio(figures.first)} against OFFSET ${OFFSET.toLocaleString('en')}), ` +
        `within ${TARGET_MS} ms: ${figures.first <= TARGET_MS ? 'yes' : 'NO'} (median of ${RUNS})`,
    );
  } finally {
    await store.close();
    await cleanup();
  }
}

sayIfSmoke();
for (const kind of STORES) {
  if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`--stores takes sqlite and postgres, not ${kind}`);
  await measure(kind);
}
