// The relay's ingest rate on a Redis Cluster against a single Redis, in the same run, on this machine.
//   node scripts/pnpm.mjs --filter @dash/relay build && node bench/relay-cluster.mjs [--smoke]
// Starts a private redis-server and a private Redis Cluster (three masters, a replica each, every node
// a redis-server of its own on loopback, files in a temp dir), and the bundled relay twice in managed
// multi-tenant mode: on REDIS_URL and on REDIS_CLUSTER_URLS. Both get the same 30 tenants, and
// autocannon (32 connections) posts signed ~8 KB GitHub webhooks round-robin over the tenants, in
// alternating rounds (single, cluster, single, cluster, ...) so drift on a shared machine hits both
// alike. Prints each round with the CPU each side spent per webhook (relay process, Redis processes;
// read from /proc), the median ratio cluster / single, and how many webhooks shared each ingest script
// call on each side (from Redis's INFO commandstats: every webhook also makes one call of its own, the
// tenant lookup, which is taken off).
// --smoke: the same single Redis and cluster, 3 tenants, one round of 96 webhooks a side after a warm-up as small;
// its figures are not to be quoted, and it exits non-zero when anything failed.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { START_DEADLINE_MS, assertFigures, freePort, loadFor, perSecond, relayEntry, sayIfSmoke, signedPullRequest, smoke } from './support.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
const TENANTS = smoke ? 3 : 30;
/** A smoke load's webhooks, in place of SECONDS (or the warm-up's 2 s). */
const SMOKE_REQUESTS = 96;
const CONNECTIONS = 32;
const SECRET = 'bench-secret';
const ADMIN_SECRET = 'bench-admin-secret-0123456789abcdef';
const relayBundle = relayEntry();
const dir = mkdtempSync(join(tmpdir(), 'relay-cluster-bench-'));
const children = [];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')}: ${out}`))));
  });
}

async function redisServer(port, extra = []) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra], { stdio: 'ignore' });
  children.push(child);
  for (const deadline = performance.now() + START_DEADLINE_MS; performance.now() < deadline; ) {
    if ((await run('redis-cli', ['-p', String(port), 'PING']).catch(() => '')).trim() === 'PONG') return child;
    await sleep(50);
  }
  throw new Error(`redis-server on ${port} did not start in ${START_DEADLINE_MS / 1000} s`);
}

async function cluster() {
  const ports = [];
  const nodes = [];
  for (let i = 0; i < 6; i++) {
    const [port, bus] = [await freePort(), await freePort()];
    ports.push(port);
    nodes.push(await redisServer(port, ['--cluster-enabled', 'yes', '--cluster-port', String(bus), '--cluster-config-file', `nodes-${port}.conf`]));
  }
  await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes']);
  for (const deadline = performance.now() + START_DEADLINE_MS; performance.now() < deadline; ) {
    const states = await Promise.all(ports.map((p) => run('redis-cli', ['-p', String(p), 'CLUSTER', 'INFO']).catch(() => '')));
    if (states.every((s) => s.includes('cluster_state:ok'))) return { ports, nodes };
    await sleep(100);
  }
  throw new Error(`the cluster did not form in ${START_DEADLINE_MS / 1000} s`);
}

async function startRelay(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [relayBundle], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port), WEBHOOK_SECRET_GITHUB: SECRET, RELAY_ADMIN_SECRET: ADMIN_SECRET, TRUST_PROXY: 'true', RELAY_POLL_SECRET: ADMIN_SECRET },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  for (const deadline = performance.now() + START_DEADLINE_MS; performance.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error(`the relay exited (${child.exitCode}) while starting`);
    try {
      await fetch(`http://127.0.0.1:${port}/api/health`);
      const admin = { authorization: `Bearer ${ADMIN_SECRET}`, 'content-type': 'application/json' };
      for (let t = 0; t < TENANTS; t++) {
        const id = `tenant-${t}`;
        const created = await fetch(`http://127.0.0.1:${port}/api/tenants`, { method: 'POST', headers: admin, body: JSON.stringify({ id }) });
        if (created.status !== 201) throw new Error(`creating ${id}: ${created.status}`);
        await fetch(`http://127.0.0.1:${port}/api/tenants/${id}/secrets`, { method: 'PUT', headers: admin, body: JSON.stringify({ webhookSecrets: { github: SECRET } }) });
      }
      return { child, url: `http://127.0.0.1:${port}` };
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('creating')) throw error;
      await sleep(50);
    }
  }
  throw new Error(`the relay did not start in ${START_DEADLINE_MS / 1000} s`);
}

/** User + system CPU time of a process so far, in µs. */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

const { body, signature } = signedPullRequest(SECRET);
let counter = 0;

const load = (url, duration = SECONDS) =>
  autocannon({
    url,
    connections: CONNECTIONS,
    ...loadFor(duration, SMOKE_REQUESTS),
    requests: [
      {
        method: 'POST',
        body,
        setupRequest: (req) => {
          counter++;
          return {
            ...req,
            path: `/api/t/tenant-${counter % TENANTS}/webhooks/github`,
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'pull_request',
              'x-github-delivery': randomUUID(),
              'x-hub-signature-256': signature,
              // 90 requests per address and tenant stays under the relay's 100-a-minute limit.
              'x-forwarded-for': `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${Math.floor(counter / (90 * TENANTS)) & 255}`,
            },
          };
        },
      },
    ],
  });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

sayIfSmoke();
try {
  const singlePort = await freePort();
  const single = await redisServer(singlePort);
  const { ports, nodes } = await cluster();
  const onSingle = await startRelay({ REDIS_URL: `redis://127.0.0.1:${singlePort}` });
  const onCluster = await startRelay({ REDIS_CLUSTER_URLS: ports.map((p) => `redis://127.0.0.1:${p}`).join(',') });

  const measure = async (relay, redis, replicas = []) => {
    const cpuSum = (processes) => processes.reduce((sum, r) => sum + cpuOf(r.pid), 0);
    const before = [cpuOf(relay.child.pid), cpuSum(redis), cpuSum(replicas)];
    const result = await load(relay.url);
    const bad = result.non2xx + result.errors;
    if (bad > 0) throw new Error(`the relay answered ${bad} requests with an error`);
    const sent = result.requests.total;
    return {
      sent,
      rate: perSecond(result),
      p99: result.latency.p99,
      relayCpu: (cpuOf(relay.child.pid) - before[0]) / sent,
      redisCpu: (cpuSum(redis) - before[1]) / sent,
      replicaCpu: replicas.length > 0 ? (cpuSum(replicas) - before[2]) / sent : undefined,
    };
  };
  const show = (r) =>
    `${r.rate.toFixed(0)} req/s (p99 ${r.p99} ms; CPU per webhook: relay ${r.relayCpu.toFixed(0)} µs, ` +
    (r.replicaCpu === undefined ? `Redis ${r.redisCpu.toFixed(1)} µs)` : `Redis masters ${r.redisCpu.toFixed(1)} µs + replicas ${r.replicaCpu.toFixed(1)} µs)`);

  // Warm-up, unmeasured: the JIT, connection pools, the scripts loaded on every master.
  await load(onSingle.url, 2);
  await load(onCluster.url, 2);
  const masters = async () => {
    const masterPorts = [];
    for (const port of ports) if ((await run('redis-cli', ['-p', String(port), 'ROLE'])).startsWith('master')) masterPorts.push(port);
    return masterPorts;
  };
  const scriptCalls = async (redisPorts) => {
    let calls = 0;
    for (const port of redisPorts) {
      const stats = await run('redis-cli', ['-p', String(port), 'INFO', 'commandstats']);
      for (const name of ['evalsha', 'eval']) calls += Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    }
    return calls;
  };
  for (const port of [singlePort, ...ports]) await run('redis-cli', ['-p', String(port), 'CONFIG', 'RESETSTAT']);
  const sent = { single: 0, cluster: 0 };
  const masterPorts = await masters();
  const masterNodes = nodes.filter((_, i) => masterPorts.includes(ports[i]));
  const replicaNodes = nodes.filter((_, i) => !masterPorts.includes(ports[i]));

  const ratios = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const a = await measure(onSingle, [single]);
    const b = await measure(onCluster, masterNodes, replicaNodes);
    sent.single += a.sent;
    sent.cluster += b.sent;
    ratios.push(b.rate / a.rate);
    console.log(`round ${round}: single Redis ${show(a)}`);
    console.log(`         Redis Cluster (3 masters + 3 replicas) ${show(b)}, ratio ${(b.rate / a.rate).toFixed(2)}`);
  }
  const perCall = (calls, webhooks) => webhooks / Math.max(1, calls - webhooks);
  const perCallSingle = perCall(await scriptCalls([singlePort]), sent.single);
  const perCallCluster = perCall(await scriptCalls(masterPorts), sent.cluster);
  assertFigures({ ratio: median(ratios), 'webhooks per call, single': perCallSingle, 'webhooks per call, cluster': perCallCluster });
  console.log(`ratio cluster / single (median of ${ROUNDS})  ${median(ratios).toFixed(2)}`);
  console.log(
    `webhooks per ingest script call: single Redis ${perCallSingle.toFixed(1)}, ` +
      `Redis Cluster ${perCallCluster.toFixed(1)} (a group commit is split by slot)`,
  );
} finally {
  // The relays first, so they do not log their Redis going away.
  for (const child of [...children].reverse()) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? once(child, 'exit') : undefined)));
  rmSync(dir, { recursive: true, force: true });
}
