// Relay throughput against a bare node:http server, in the same run, on this machine.
//   node scripts/pnpm.mjs --filter @dash/relay build && node bench/relay.mjs [--smoke]
// Sends signed GitHub pull_request webhooks (~8 KB) to the bundled relay on Redis (db 13, flushed),
// and the same load to a server that only reads the body and answers 200, with autocannon, in
// alternating rounds (bare, relay, bare, relay, ...) so drift on a shared machine hits both alike.
// Prints each round, the median ratio, the relay's p99 at half its peak rate, and poll latency with
// 100,000 buffered events. Those events are stored through the relay's own store code
// (apps/relay/src/store/redis.ts, imported with tsx's tsImport, under the keys of apps/relay/src/keys.ts), as
// the relay stores a webhook's, so the bench follows the store's keys and format wherever they go.
// --smoke: one round of 64 requests a side, a fraction of a second open-loop with no warm-up, and 2,000 buffered
// events polled 5 times; the figures are not to be quoted, and it exits non-zero when anything failed.
//
// The half-rate p99 is measured open-loop: autocannon's fixed-rate mode sends each second's quota as
// fast as it can and then idles, which is full load half the time, not half the load. Here undici
// sends requests on a schedule (a millisecond's worth at a time), and each latency runs from when
// the request was due, so a stall counts against the relay even while no request could be sent.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { START_DEADLINE_MS, assertFigures, freePort, loadFor, perSecond, relayEntry, sayIfSmoke, signedPullRequest, smoke } from './support.mjs';
import autocannon from 'autocannon';
import { createClient } from 'redis';
import { tsImport } from 'tsx/esm/api';
import { Pool } from 'undici';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/13';
const SECONDS = smoke ? 0.5 : Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = smoke ? 0 : 3;
/** A smoke round's requests a side, in place of SECONDS of load. */
const SMOKE_REQUESTS = 64;
const BUFFERED = smoke ? 2_000 : 100_000;
const POLLS = smoke ? 5 : 60;
const CONNECTIONS = 32;
const SECRET = 'bench-secret';
/** 32+ characters, as the relay requires of RELAY_POLL_SECRET. */
const POLL_SECRET = 'bench-poll-secret-0123456789abcdef';
const relayBundle = relayEntry();
// The relay's own TypeScript, for the seeding: tsx's loader for these imports only (the relay under test is the bundle).
const { redisStore } = await tsImport('../apps/relay/src/store/redis.ts', import.meta.url);
const { keysOf, SINGLE_TENANT } = await tsImport('../apps/relay/src/keys.ts', import.meta.url);

async function startProcess(args, env, port) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (const deadline = performance.now() + START_DEADLINE_MS; performance.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited (${child.exitCode}) while starting`);
    try {
      await fetch(`http://127.0.0.1:${port}/api/health`);
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  child.kill();
  throw new Error(`${args.join(' ')} did not start in ${START_DEADLINE_MS / 1000} s`);
}

// One ~8 KB pull_request payload; each request gets its own delivery id and client address.
const { body, signature } = signedPullRequest(SECRET);
let counter = 0;
function webhookHeaders() {
  counter++;
  return {
    'content-type': 'application/json',
    'x-github-event': 'pull_request',
    'x-github-delivery': randomUUID(),
    'x-hub-signature-256': signature,
    // 90 requests per address stays under the relay's 100-a-minute limit.
    'x-forwarded-for': `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${Math.floor(counter / 90) & 255}`,
  };
}

const load = (url) =>
  autocannon({
    url,
    connections: CONNECTIONS,
    ...loadFor(SECONDS, SMOKE_REQUESTS),
    requests: [{ method: 'POST', path: '/api/webhooks/code_host', body, setupRequest: (req) => ({ ...req, headers: webhookHeaders() }) }],
  });

/** Open-loop load at `rate` requests a second: latencies (ms, from when each was due) after a warm-up. */
async function paced(url, rate, seconds) {
  const pool = new Pool(url, { connections: 64 });
  const warm = Math.round(rate * WARMUP_SECONDS);
  const total = warm + Math.max(1, Math.round(rate * seconds));
  const interval = 1000 / rate;
  const latencies = new Float64Array(total - warm);
  let failed = 0;
  let sent = 0;
  let settled = 0;
  const start = performance.now();
  await new Promise((resolve) => {
    const send = (i) => {
      const due = start + i * interval;
      pool
        .request({ method: 'POST', path: '/api/webhooks/code_host', body, headers: webhookHeaders() })
        .then(async (res) => {
          await res.body.dump();
          if (res.statusCode !== 200) failed++;
          if (i >= warm) latencies[i - warm] = performance.now() - due;
        })
        .catch(() => failed++)
        .finally(() => ++settled === total && resolve());
    };
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      while (sent < due) send(sent++);
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  await pool.close();
  latencies.sort();
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { p50: at(0.5), p99: at(0.99), max: at(1), failed };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * `count` events buffered for the single-tenant relay, stored as it stores a webhook's: through its own store
 * (`ingest`, 5,000 events a delivery). Returns the first event's position; the others follow one apart (the store
 * gives each event the next millisecond after the last, and the seeding outpaces the clock by far).
 */
async function seedEvents(count) {
  const store = await redisStore(REDIS_URL, (error) => console.error(`seeding: ${error.message}`));
  const keys = keysOf(SINGLE_TENANT);
  const receivedAt = new Date().toISOString();
  try {
    for (let i = 0; i < count; i += 5_000) {
      const events = [];
      for (let j = i; j < Math.min(count, i + 5_000); j++) {
        events.push({ id: `bench-${j}`, receivedAt, integration: 'code_host', type: 'pr.merged', sourceEventId: `s${j}`, title: 'PR #1 merged', severity: 'success', occurredAt: receivedAt });
      }
      const verdict = await store.ingest({
        rateKey: keys.webhookRate('code_host', 'bench-seed'),
        limit: 1_000_000,
        windowMs: 60_000,
        deliveryKey: keys.delivery('code_host', `bench-seed-${i}`),
        dedupeMs: 60_000,
        eventsKey: keys.events,
        events,
      });
      if (verdict.outcome !== 'stored') throw new Error(`seeding: the store answered ${verdict.outcome} to a delivery of ${events.length} events`);
    }
    const first = await store.poll({ eventsKey: keys.events, since: 0, limit: 1, retentionMs: 24 * 60 * 60_000 });
    if (first.events.length !== 1) throw new Error('seeding: the store holds no event after it');
    return first.cursor;
  } finally {
    await store.close();
  }
}

sayIfSmoke();
const redis = createClient({ url: REDIS_URL });
await redis.connect();
await redis.flushDb();

const barePort = await freePort();
const bare = spawn(process.execPath, ['-e', `require('node:http').createServer((req,res)=>{req.on('data',()=>{});req.on('end',()=>{res.writeHead(200,{'content-type':'application/json'});res.end('{"received":true}')})}).listen(${barePort},'127.0.0.1')`], { stdio: 'inherit' });
await new Promise((r) => setTimeout(r, 300));

const relayPort = await freePort();
const relay = await startProcess([relayBundle], { REDIS_URL, WEBHOOK_SECRET_GITHUB: SECRET, RELAY_POLL_SECRET: POLL_SECRET, TRUST_PROXY: 'true' }, relayPort);

try {
  const rounds = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const baseline = await load(`http://127.0.0.1:${barePort}`);
    const peak = await load(`http://127.0.0.1:${relayPort}`);
    const bad = peak.non2xx + peak.errors + baseline.non2xx + baseline.errors;
    if (bad > 0) throw new Error(`round ${round}: ${bad} requests failed or were answered with an error`);
    const ratio = perSecond(peak) / perSecond(baseline);
    rounds.push({ relay: perSecond(peak), ratio });
    console.log(
      `round ${round}: bare node:http ${perSecond(baseline).toFixed(0)} req/s (p99 ${baseline.latency.p99} ms), ` +
        `relay (Redis) ${perSecond(peak).toFixed(0)} req/s (p99 ${peak.latency.p99} ms), ratio ${ratio.toFixed(2)}`,
    );
  }
  const halfRate = Math.floor(median(rounds.map((r) => r.relay)) / 2);
  const half = await paced(`http://127.0.0.1:${relayPort}`, halfRate, SECONDS);
  if (half.failed > 0) throw new Error(`${half.failed} paced requests failed`);

  // Poll latency with 100,000 buffered events, each page of 500 from a random point among the first 99%.
  await redis.flushDb();
  const first = await seedEvents(BUFFERED);
  const pollTimes = [];
  for (let i = 0; i < POLLS; i++) {
    const since = first + Math.floor(Math.random() * (BUFFERED - 1_000));
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${relayPort}/api/events?since=${since}&limit=500`, { headers: { authorization: `Bearer ${POLL_SECRET}`, 'x-forwarded-for': `172.16.0.${Math.floor(i / 15)}` } });
    const events = await res.json();
    pollTimes.push(performance.now() - started);
    if (res.status !== 200 || events.length !== 500) throw new Error(`poll returned ${res.status} with ${events.length} events`);
  }
  pollTimes.sort((a, b) => a - b);

  const ratio = median(rounds.map((r) => r.ratio));
  const [pollP50, pollP95] = [pollTimes[Math.floor(POLLS * 0.5)], pollTimes[Math.floor(POLLS * 0.95)]];
  assertFigures({ ratio, 'half-rate p99': half.p99, 'poll p50': pollP50, 'poll p95': pollP95 });
  console.log(`ratio (median of ${ROUNDS})  ${ratio.toFixed(2)}  (target >= 0.6)`);
  console.log(`relay at ${halfRate} req/s (half its peak), open-loop: p99 ${half.p99.toFixed(1)} ms (target <= 10 ms), p50 ${half.p50.toFixed(1)} ms, max ${half.max.toFixed(1)} ms`);
  console.log(`poll, ${BUFFERED.toLocaleString('en-US')} buffered, limit=500: p50 ${pollP50.toFixed(1)} ms, p95 ${pollP95.toFixed(1)} ms`);
} finally {
  relay.kill();
  bare.kill();
  await Promise.all([once(relay, 'exit'), once(bare, 'exit')]);
  await redis.flushDb();
  redis.destroy();
}
