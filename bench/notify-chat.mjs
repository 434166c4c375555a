// bench/notify.mjs --only=chat: the chat outbox with two dashboard processes on one Postgres database (issue 48).
//
// A signed-webhook receiver in this process stands for a chat service: the dashboards' one chat connection (kind
// `webhook`, to it on loopback) gets every failed production deploy, each of its own Vercel project (a thread of its
// own, titled "Deploy failed: bench-<n> (production)"), posted signed as Vercel signs to the dashboards' own webhook
// route, alternately to each process when there are two. Both processes claim chat sends from the one database; each
// send is made only while its claim holds.
//   latency   a receiver that answers at once: webhook POST -> the receiver's request, p50/p95/max (after ten
//             uncounted webhooks through each process), with one process (the baseline, on a fresh database) and
//             then with a second process joining it; printed with the ratio of the p95s (target <= 1.2).
//   once      then, with the same two processes, a receiver that answers each request after --slow-ms (8,000): a
//             claim of 20 outlives a 120 s lease unless each send is fenced. --chat-n (200) deploys posted as fast
//             as taken (a 429 waited out); counted: requests received per message (target exactly 1.00), every
//             duplicate named.
// The database is throwaway (dash_bench_chat_<random>), dropped after; the processes share a CREDENTIALS_KEY, as
// processes of one installation do. Smoke: 3 webhooks a latency phase, 4 messages at 300 ms.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { assertFigures, cliArgs, smoke, startBuiltDashboard } from './support.mjs';

const args = cliArgs();
const VERCEL_SECRET = 'bench-vercel-secret';
const LATENCY_N = smoke ? 3 : Number(args['chat-latency-n'] ?? 50);
const ONCE_N = smoke ? 4 : Number(args['chat-n'] ?? 200);
const SLOW_MS = smoke ? 300 : Number(args['slow-ms'] ?? 8_000);
/** After the last message came, how long more a duplicate would have to come (a lost claim's retry comes after its lease). */
const LATE_COPY_MS = smoke ? 1_000 : 150_000;
/** Uncounted webhooks through each process before its latencies count. */
const WARM_UP = smoke ? 1 : 10;
const warmed = new WeakSet();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
const ms = (value) => `${Math.round(value).toLocaleString('en-US')} ms`;

/** A failed production deploy of project `n`, as Vercel posts it (packages/webhooks/src/vercel/fixtures.ts's shape). */
function failedDeploy(n) {
  const body = JSON.stringify({
    id: `evt_bench_chat_${n}_${randomBytes(4).toString('hex')}`,
    type: 'deployment.error',
    createdAt: Date.now(),
    region: 'sfo1',
    payload: {
      team: { id: 'team_bench' },
      user: { id: 'usr_bench' },
      deployment: { id: `dpl_bench_${n}`, name: `bench-${n}`, url: `bench-${n}.vercel.app`, meta: {} },
      links: { deployment: `https://vercel.com/acme/bench-${n}/dpl`, project: `https://vercel.com/acme/bench-${n}` },
      target: 'production',
      project: { id: `prj_bench_chat_${n}` },
      plan: 'pro',
      regions: ['iad1'],
    },
  });
  return { body, headers: { 'content-type': 'application/json', 'x-vercel-signature': createHmac('sha1', VERCEL_SECRET).update(body).digest('hex') } };
}

const titleOf = (n) => `Deploy failed: bench-${n} (production)`;

/** The receiver: every request's message title and when it came; answers each after `delay()` ms. */
async function startReceiver() {
  const received = [];
  let delay = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      let title = '(unreadable)';
      try {
        title = JSON.parse(Buffer.concat(chunks).toString('utf8')).data.title;
      } catch {
        // Counted all the same, under its own name.
      }
      received.push({ title, id: String(request.headers['webhook-id'] ?? ''), at: performance.now() });
      setTimeout(() => response.writeHead(200).end(), delay);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/chat`,
    received,
    answerAfter: (value) => (delay = value),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * One dashboard on a fresh Postgres database, with the chat connection to the receiver; `another()` starts a second
 * process of it on the same database (the first migrated it). `cleanups` gets their stop and the database's drop.
 */
async function installation({ pg, pgUrl, receiver, cleanups }) {
  const name = `dash_bench_chat_${randomBytes(4).toString('hex')}`;
  await pg.unsafe(`create database ${name}`);
  cleanups.push(() => pg.unsafe(`drop database if exists ${name} with (force)`));
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const env = { DATABASE_URL: url.href, CREDENTIALS_KEY: randomBytes(32).toString('hex'), WEBHOOK_SECRET_VERCEL: VERCEL_SECRET };
  const start = async () => {
    const dashboard = await startBuiltDashboard(env);
    cleanups.push(dashboard.stop);
    return dashboard;
  };
  const first = await start();
  // As the dashboard's own page asks (the cross-site guard); on loopback with no password, the owner.
  const added = await fetch(`${first.url}/api/channels`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: first.url },
    body: JSON.stringify({ name: 'Bench receiver', minSeverity: 'error', destination: { kind: 'webhook', url: receiver.url } }),
  });
  if (added.status !== 201) throw new Error(`adding the chat connection answered ${added.status}: ${await added.text()}`);
  return { first, another: start };
}

/** Posts deploy `n`; a 429 (the route takes 100 a minute per sender) is tried again after its Retry-After, as Vercel would. */
async function post(dashboard, n) {
  const { body, headers } = failedDeploy(n);
  for (;;) {
    const response = await fetch(`${dashboard.url}/api/webhooks/deploy_host`, { method: 'POST', headers, body });
    if (response.status === 200) return;
    if (response.status !== 429) throw new Error(`the dashboard answered ${response.status} to a webhook: ${await response.text()}`);
    await response.body?.cancel();
    await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000 || 1000);
  }
}

/** Waits until `done()` or `deadline` (performance.now()); answers done(). */
async function settled(done, deadline) {
  while (!done() && performance.now() < deadline) await sleep(20);
  return done();
}

/** Webhook -> receiver of deploy `n` through `dashboard`, in ms. */
async function latencyOf(dashboard, receiver, n) {
  const sent = performance.now();
  await post(dashboard, n);
  const arrived = () => receiver.received.find((r) => r.title === titleOf(n));
  if (!(await settled(() => arrived() !== undefined, sent + 30_000))) throw new Error(`${titleOf(n)} never reached the receiver`);
  return arrived().at - sent;
}

/**
 * Webhook -> receiver for `LATENCY_N` deploys from `first`, posted 200 ms apart, round-robin to `dashboards`, after
 * WARM_UP uncounted through each that has not had them yet (a new process runs its code cold for its first requests;
 * the second process joins warm ones, so each is warmed the same).
 */
async function latencies(dashboards, receiver, first) {
  let n = first + LATENCY_N;
  for (const dashboard of dashboards.filter((d) => !warmed.has(d))) {
    for (let i = 0; i < WARM_UP; i++) await latencyOf(dashboard, receiver, n++);
    warmed.add(dashboard);
  }
  const took = [];
  for (let i = 0; i < LATENCY_N; i++) {
    took.push(await latencyOf(dashboards[i % dashboards.length], receiver, first + i));
    await sleep(200);
  }
  return took.sort((a, b) => a - b);
}

const line = (label, sorted) => `  ${label.padEnd(15)} p50 ${ms(quantile(sorted, 0.5))}, p95 ${ms(quantile(sorted, 0.95))}, max ${ms(sorted.at(-1))} (n=${sorted.length})`;

/** Runs both parts; `pg` is an admin connection to `pgUrl`'s server. Throws when a message is lost or comes twice. */
export async function runChat({ pg, pgUrl, cleanups }) {
  const receiver = await startReceiver();
  cleanups.push(receiver.close);
  console.log(`chat: the outbox with one and two dashboard processes on Postgres (${LATENCY_N} webhooks a latency phase; then ${ONCE_N} to a receiver answering in ${ms(SLOW_MS)})`);

  // The baseline is the first process alone; then a second joins it on the same database.
  const { first, another } = await installation({ pg, pgUrl, receiver, cleanups });
  const one = await latencies([first], receiver, 1_000);
  const pair = [first, await another()];
  const two = await latencies(pair, receiver, 2_000);
  const ratio = quantile(two, 0.95) / quantile(one, 0.95);
  console.log('chat latency, webhook -> receiver (answering at once):');
  console.log(line('one process', one));
  console.log(line('two processes', two));
  console.log(`ratio p95 two processes/one: ${ratio.toFixed(2)} (target <= 1.2: ${ratio <= 1.2 ? 'met' : 'NOT met'})`);

  receiver.answerAfter(SLOW_MS);
  const before = receiver.received.length;
  const started = performance.now();
  // As fast as the dashboards take them, eight at a time (a few hundred at once exhaust this process's sockets), each
  // 429 waited out.
  let nextMessage = 0;
  const poster = async () => {
    for (let i = nextMessage++; i < ONCE_N; i = nextMessage++) await post(pair[i % 2], 3_000 + i);
  };
  await Promise.all(Array.from({ length: 8 }, poster));
  const titles = new Set(Array.from({ length: ONCE_N }, (_, i) => titleOf(3_000 + i)));
  const got = () => receiver.received.slice(before).filter((r) => titles.has(r.title));
  const allCame = () => new Set(got().map((r) => r.title)).size === ONCE_N;
  // Two processes sending one at a time: half the messages each, SLOW_MS apiece, and a margin.
  await settled(allCame, started + (ONCE_N * SLOW_MS) / 2 + 120_000);
  const lastAt = performance.now();
  await sleep(LATE_COPY_MS);
  const counts = new Map();
  for (const r of got()) counts.set(r.title, (counts.get(r.title) ?? 0) + 1);
  const duplicates = [...counts].filter(([, count]) => count > 1);
  const missing = [...titles].filter((title) => !counts.has(title));
  const perMessage = got().length / ONCE_N;
  console.log(
    `chat exactly once, two processes, receiver answering in ${ms(SLOW_MS)}: ${ONCE_N} messages, ${got().length} requests received in ${Math.round((lastAt - started) / 1000)} s, ` +
      `per message ${perMessage.toFixed(2)} (target 1.00); duplicates: ${duplicates.length === 0 ? 'none' : duplicates.map(([title, count]) => `${title} x${count}`).join(', ')}` +
      `${missing.length > 0 ? `; missing: ${missing.length}` : ''}`,
  );
  assertFigures({ oneP95: quantile(one, 0.95), twoP95: quantile(two, 0.95), ratio, perMessage });
  if (duplicates.length > 0 || missing.length > 0) throw new Error(`the chat outbox sent ${duplicates.length} message(s) twice and lost ${missing.length}`);
}
