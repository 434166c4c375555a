// The data cache's hit rate with two dashboard processes on one database against one process, in the same run.
//   node scripts/pnpm.mjs --filter @dash/web build && node bench/cache-shared.mjs [--rounds=3] [--waves=6] [--smoke]
//
// Starts packages/sandbox's fake upstreams in a child process of its own (under tsx), which counts every
// request they answer, and the built dashboard as:
//   baseline  ONE process on a fresh embedded SQLite store: the in-memory single-flight, exact in a process;
//   postgres  TWO processes on one scratch Postgres database (127.0.0.1:5432, created and dropped here);
//   redis     TWO processes on another scratch Postgres database with REDIS_URL (db 15, flushed before and
//             after); only when Redis answers.
// Each leg sits behind a round-robin HTTP proxy in this process (node:http; the baseline's has one backend,
// so every leg pays the same hop) and gets the demo's three products (projects and credentials through the
// REST API, pointing at the one sandbox, whose own rate limits are lifted). The load, the same on every leg: in a wave, 12 clients each ask
// each of 8 requests (/api/ideas and /api/shipping, for all projects and for each one), arriving at seeded
// random instants within --spread ms (same instants on every leg). Every wave asks a `limit` no earlier
// wave asked, so each of its 12 cache keys (ideas and shipping's three sources, per project) has no usable
// entry, as after its TTL: a wave is "the cache just expired and everyone opens the dashboard".
// Hit rate = HIT / (HIT + MISS + STALE) of the answers' X-Cache: only a request whose fetch asked the upstream
// is a MISS; one that waited on a fetch in flight (in its own process, or through the shared single-flight in
// another) is a HIT. Upstream calls are counted at the sandbox per wave; the baseline makes exactly one fetch
// per key, so a leg's calls / the baseline's are its fetches per key (1.00 is ideal).
// Legs alternate in each round (baseline, postgres, redis, ...) after an uncounted warm-up wave each.
// Prints each round and the medians; the target is a hit rate of at least 0.9 of the baseline's.
//
// Flags: --rounds=3, --waves=6 (per leg and round), --clients=12, --spread=400 (ms), --legs=baseline,postgres,redis
// (the baseline always runs), --verbose (each wave). Env: BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_REDIS_URL (redis://127.0.0.1:6379/15).
// --smoke: one round of one wave of 2 clients over 100 ms, no warm-up wave, on the baseline and redis legs (the redis
// leg's two processes share a scratch Postgres database too, so between them they start everything the postgres leg
// does); its figures are not to be quoted, and a leg that cannot run or a hit rate or ratio that is not a number fails it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { assertFigures, cliArgs, repoDir, sayIfSmoke, smoke, startBuiltDashboard } from './support.mjs';

const args = cliArgs();

// ---------------------------------------------------------------------------------------------------------
// The sandbox worker: this file again, under tsx, so it can import the sandbox's TypeScript.
if (args['sandbox-worker']) {
  const { demoSetup, demoUpstreamsOf, startSandbox } = await import(pathToFileURL(join(repoDir, 'packages/sandbox/src/index.ts')).href);
  const sandbox = await startSandbox();
  // The waves ask far more often than a founder would (Vercel's fake allows 300 calls a minute): the fakes'
  // own limits are lifted, so an answer is a HIT or a MISS, never a 429 turned into a 502 on a cold key.
  for (const name of Object.keys(sandbox.services)) sandbox.limit(name, { limit: 1_000_000, windowMs: 60_000 });
  const upstreams = demoUpstreamsOf(sandbox);
  const { projects, credentials } = demoSetup(upstreams);
  process.on('message', (message) => {
    if (message !== 'count') return;
    const byService = {};
    for (const { service } of sandbox.requests) byService[service] = (byService[service] ?? 0) + 1;
    process.send({ count: sandbox.requests.length, byService });
  });
  process.once('disconnect', () => void sandbox.close().finally(() => process.exit(0)));
  process.send({ projects, credentials });
} else {
  await main();
}

async function main() {
  const ROUNDS = Number(args.rounds ?? (smoke ? 1 : 3));
  const WAVES = Number(args.waves ?? (smoke ? 1 : 6));
  const CLIENTS = Number(args.clients ?? (smoke ? 2 : 12));
  const SPREAD = Number(args.spread ?? (smoke ? 100 : 400));
  // A smoke run leaves out the postgres leg: the redis leg is two processes on a scratch Postgres database too, with Redis.
  const LEGS = new Set(['baseline', ...(args.legs ?? (smoke ? 'baseline,redis' : 'baseline,postgres,redis')).split(',')]);
  const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15';
  const SLUGS = ['pocket-ledger', 'formfox', 'tideline'];
  /** The cache keys a wave's requests read: ideas and shipping's three sources (code, issues, deploys) per project. */
  const KEYS_PER_WAVE = SLUGS.length * 4;
  const FIRST_LIMIT = 10;
  if (ROUNDS * WAVES + FIRST_LIMIT > 200) throw new Error('--rounds × --waves is at most 190: each wave asks a limit of its own, and shipping takes up to 200');

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  sayIfSmoke();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const started = performance.now();

  // Cleanup: every process, proxy, database and Redis db this run used, on success, failure or Ctrl-C.
  const cleanups = [];
  let cleaning;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(`cleanup: ${error.message}`));
    })());
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      console.error(`\n${signal}: cleaning up`);
      void cleanUp().finally(() => process.exit(130));
    });
  }

  /** A command line tool's output; rejects with it when the tool fails. */
  const run = (command, argv) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${argv.join(' ')}: ${out}`))));
    });

  /** The sandbox in its child: `{ projects, credentials }` of the demo pointing at it, and `count()` of the requests it answered. */
  async function startSandboxWorker() {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--sandbox-worker'], {
      cwd: repoDir,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    cleanups.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.disconnect();
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await once(child, 'exit');
      clearTimeout(killer);
    });
    const [setup] = await Promise.race([once(child, 'message'), once(child, 'exit').then(() => Promise.reject(new Error('the sandbox worker exited')))]);
    const count = async () => {
      child.send('count');
      for (;;) {
        const [message] = await once(child, 'message');
        if ('count' in message) return message;
      }
    };
    return { setup, count };
  }

  /** A round-robin proxy over `targets` (the dashboards' URLs), which can be changed; Host is the target's. */
  async function startProxy() {
    // Kept-alive connections are dropped after 2 s idle, before the dashboard's 5 s would close one under a request.
    const agent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 2_000 });
    const proxy = { targets: [], next: 0, url: '' };
    const server = createServer((req, res) => {
      const target = new URL(proxy.targets[proxy.next++ % proxy.targets.length]);
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host }, agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.once('error', (error) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${error.message}`);
      });
      req.pipe(upstream);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    proxy.url = `http://127.0.0.1:${server.address().port}`;
    cleanups.push(async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    });
    return proxy;
  }

  /** A POST as the dashboard's own page makes it (its Origin: the cross-site guard's rule for a signed-out local dashboard). */
  async function postJson(url, body) {
    const headers = { 'content-type': 'application/json', origin: new URL(url).origin };
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  }

  /** The demo's credentials and projects, stored through the dashboard's REST API. */
  async function configure(url, setup) {
    for (const credential of setup.credentials) await postJson(`${url}/api/credentials`, credential);
    for (const project of setup.projects) await postJson(`${url}/api/projects`, project);
  }

  async function scratchDatabase(label) {
    const name = `dash_bench_cache_${label}_${randomBytes(4).toString('hex')}`;
    await run('psql', [PG_URL, '-v', 'ON_ERROR_STOP=1', '-qAtc', `create database "${name}"`]);
    cleanups.push(() => run('psql', [PG_URL, '-qAtc', `drop database if exists "${name}" with (force)`]));
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return url.href;
  }

  async function redisAnswers() {
    try {
      return (await run('redis-cli', ['-u', REDIS_URL, 'PING'])).trim() === 'PONG';
    } catch {
      return false;
    }
  }

  /** A dashboard process of a leg, stopped at cleanup. */
  async function dashboard(env) {
    const running = await startBuiltDashboard(env);
    cleanups.push(() => running.stop());
    return running;
  }

  /** Seeded instants (mulberry32), so every leg meets the same arrivals. */
  function arrivals(seed, n) {
    let state = seed >>> 0;
    const random = () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    return Array.from({ length: n }, () => random() * SPREAD);
  }

  /** One wave over `limit`: every request at its instant, through the leg's proxy; X-Cache counted, upstream calls too. */
  async function wave(leg, limit, seed) {
    const paths = ['ideas', 'shipping'].flatMap((route) => [`/api/${route}?limit=${limit}`, ...SLUGS.map((slug) => `/api/${route}?project=${slug}&limit=${limit}`)]);
    const requests = paths.flatMap((path, i) => arrivals(seed * 31 + i, CLIENTS).map((at) => ({ path, at })));
    const before = await sandbox.count();
    const waveStarted = performance.now();
    const counts = { HIT: 0, MISS: 0, STALE: 0 };
    const failures = [];
    await Promise.all(
      requests.map(async ({ path, at }) => {
        await sleep(at);
        const response = await fetch(leg.proxy.url + path);
        const status = response.headers.get('x-cache');
        const body = await response.text();
        if (response.status !== 200 || !(status in counts)) failures.push(`${path}: ${response.status} X-Cache ${status} ${body.slice(0, 300)}`);
        else counts[status]++;
      }),
    );
    const after = await sandbox.count();
    if (failures.length > 0) throw new Error(`${leg.name}: ${failures.length} of ${requests.length} answers failed, first: ${failures[0]}`);
    const byService = Object.fromEntries(Object.entries(after.byService).map(([service, n]) => [service, n - (before.byService[service] ?? 0)]).filter(([, n]) => n > 0));
    return { ...counts, calls: after.count - before.count, byService, ms: performance.now() - waveStarted };
  }

  let sandbox;
  const legs = [];
  try {
    const proxyFor = async (name, urls) => {
      const proxy = await startProxy();
      proxy.targets = urls;
      legs.push({ name, proxy });
    };
    // The sandbox and the baseline's dashboard start side by side (neither needs the other before configure), each
    // registering its cleanup before either failing ends the run.
    const starting = await Promise.allSettled([startSandboxWorker(), dashboard({})]);
    const failed = starting.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const [{ value: worker }, { value: base }] = starting;
    sandbox = worker;
    await configure(base.url, sandbox.setup);
    await proxyFor('baseline', [base.url]);

    const twoProcesses = async (name, env) => {
      const shared = { ...env, DATABASE_URL: await scratchDatabase(name), CREDENTIALS_KEY: randomBytes(32).toString('hex') };
      // The first migrates and is configured before the second starts, so the second opens a current database.
      const first = await dashboard(shared);
      await configure(first.url, sandbox.setup);
      const second = await dashboard(shared);
      const seen = await (await fetch(`${second.url}/api/projects`)).json();
      if (seen.projects?.length !== SLUGS.length) throw new Error(`${name}: the second process sees ${seen.projects?.length} projects`);
      await proxyFor(name, [first.url, second.url]);
    };
    if (LEGS.has('postgres')) await twoProcesses('postgres', {});
    if (LEGS.has('redis')) {
      if (await redisAnswers()) {
        await run('redis-cli', ['-u', REDIS_URL, 'FLUSHDB']);
        cleanups.push(() => run('redis-cli', ['-u', REDIS_URL, 'FLUSHDB']));
        await twoProcesses('redis', { REDIS_URL });
      } else {
        // A smoke run is to show that every leg still works.
        if (smoke) throw new Error(`Redis does not answer at ${REDIS_URL}: a smoke run needs every leg it was asked for`);
        console.log(`Redis does not answer at ${REDIS_URL}: no redis leg`);
      }
    }
    console.log(
      `legs: ${legs.map((leg) => `${leg.name} (${leg.proxy.targets.length} process${leg.proxy.targets.length > 1 ? 'es' : ''})`).join(', ')}; ` +
        `${ROUNDS} rounds of ${WAVES} waves, each ${8 * CLIENTS} requests over ${SPREAD} ms on ${KEYS_PER_WAVE} cold keys ` +
        `(started in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );

    // Warm-up, uncounted: the JIT, sockets, credentials opened, limiters made (the same wave(), which a smoke run has once).
    if (!smoke) for (const leg of legs) await wave(leg, FIRST_LIMIT - 1, 1);

    const perLeg = Object.fromEntries(legs.map((leg) => [leg.name, { rates: [], fetches: [], callsPerKey: [] }]));
    const ratios = Object.fromEntries(legs.slice(1).map((leg) => [leg.name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      const totals = Object.fromEntries(legs.map((leg) => [leg.name, { HIT: 0, MISS: 0, STALE: 0, calls: 0 }]));
      for (let w = 0; w < WAVES; w++) {
        const limit = FIRST_LIMIT + (round - 1) * WAVES + w;
        for (const leg of legs) {
          const result = await wave(leg, limit, limit);
          for (const field of ['HIT', 'MISS', 'STALE', 'calls']) totals[leg.name][field] += result[field];
          if (args.verbose) {
            console.log(
              `  round ${round} wave ${w + 1} limit=${limit} ${leg.name.padEnd(8)} HIT ${result.HIT} MISS ${result.MISS} STALE ${result.STALE}; ` +
                `${result.calls} upstream calls ${JSON.stringify(result.byService)}; ${result.ms.toFixed(0)} ms`,
            );
          }
          await sleep(100);
        }
      }
      const rate = (t) => t.HIT / (t.HIT + t.MISS + t.STALE);
      const baseline = totals.baseline;
      const lines = [];
      for (const leg of legs) {
        const t = totals[leg.name];
        const fetches = t.calls / baseline.calls;
        const stats = perLeg[leg.name];
        stats.rates.push(rate(t));
        stats.fetches.push(fetches);
        stats.callsPerKey.push(t.calls / (WAVES * KEYS_PER_WAVE));
        let line = `  ${leg.name.padEnd(8)} hit rate ${rate(t).toFixed(3)} (HIT ${t.HIT}, MISS ${t.MISS}, STALE ${t.STALE}); upstream calls ${(t.calls / WAVES).toFixed(1)} a wave, ${(t.calls / (WAVES * KEYS_PER_WAVE)).toFixed(2)} a key`;
        if (leg.name !== 'baseline') {
          const ratio = rate(baseline) > 0 ? rate(t) / rate(baseline) : NaN;
          ratios[leg.name].push(ratio);
          line += ` = ${fetches.toFixed(2)} fetches a key; hit rate / baseline ${ratio.toFixed(3)}`;
        } else {
          line += ' = 1 fetch a key';
        }
        lines.push(line);
      }
      console.log(`round ${round}:\n${lines.join('\n')}`);
    }

    console.log(`\nmedians of ${ROUNDS} rounds:`);
    console.log(`  baseline hit rate ${median(perLeg.baseline.rates).toFixed(3)}, ${median(perLeg.baseline.callsPerKey).toFixed(2)} upstream calls a key (1 fetch a key)`);
    for (const leg of legs.slice(1)) {
      const ratio = median(ratios[leg.name]);
      const verdict = Number.isFinite(ratio) ? (ratio >= 0.9 ? 'PASS' : 'FAIL') : 'n/a: the baseline had no hit (is --spread 0?)';
      console.log(
        `  ${leg.name.padEnd(8)} hit rate ${median(perLeg[leg.name].rates).toFixed(3)}, ${median(perLeg[leg.name].callsPerKey).toFixed(2)} upstream calls a key ` +
          `(${median(perLeg[leg.name].fetches).toFixed(2)} fetches a key; 1.00 is ideal); ` +
          `hit rate / baseline ${ratio.toFixed(3)} (target >= 0.9: ${verdict})`,
      );
    }
    console.log(`(whole run ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    if (smoke) {
      assertFigures({
        ...Object.fromEntries(legs.map((leg) => [`${leg.name} hit rate`, median(perLeg[leg.name].rates)])),
        ...Object.fromEntries(legs.slice(1).map((leg) => [`${leg.name} hit rate / baseline`, median(ratios[leg.name])])),
      });
    }
  } finally {
    await cleanUp();
  }
}
