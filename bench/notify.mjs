// Webhook-to-dashboard latency and the inbox's drain rate, each against a baseline measured in the same run.
//   node scripts/pnpm.mjs --filter @dash/web build && node bench/notify.mjs [--only=latency|drain|chat] [--n=50] [--smoke]
//
// Latency. Starts the real relay (apps/relay/src/main.ts under tsx, or the bundle at BENCH_RELAY_ENTRY, on
// Redis db 14, flushed before and after; on its memory store when Redis is down, and it says so) and the built
// dashboard (a fresh temp DATA_DIR, embedded SQLite) pointed at it, connects an SSE client to GET
// /api/notifications/stream, then posts GitHub-signed pull_request (closed, merged) webhooks to the relay one a
// second apart, each with its own delivery id and PR number, and times each from the moment its POST is sent to
// the SSE `event: notification` carrying its URL. A warm-up webhook goes first (it proves the path, and is not counted).
// The dashboard reaches the relay through a small pass-through HTTP proxy in this process, which counts
// the polls. Twice, with fresh processes each time:
//   long-poll  the proxy passes every request as it is: the dashboard's `wait=20` polls are held open;
//   polling    the proxy drops `wait` from GET …/events, so the relay answers at once, exactly as a relay
//              without long-poll does, and the unchanged dashboard falls back to its plain 15 s interval.
// Prints p50, p95 and max of each, the ratio of the p95s and whether the target (long-poll p95 <= 2 s) is
// met; then checks GET /api/notifications: each webhook is one notification.
// Push. In the long-poll phase the dashboard also has a Web Push device (Settings → Devices, through the API)
// whose endpoint is a push service in this process: it answers 201 as a push service does, decrypts each
// message (RFC 8291 aes128gcm, with the device's keys) and notes when the PR it names arrived; a preference
// sends merged PRs to push. Printed: webhook -> push service p50/p95/max, and its p95 against the SSE p95 of
// the same webhooks (the live stream, measured in the same run; target push p95 <= 2 s, as for the stream).
//
// Drain. 10,000 realistic relay events (mostly distinct PRs, deploys and Linear issues, some Better Stack
// down/up pairs on a few monitors, failed deploys fixed by a later one, 1% redeliveries) go through the
// inbox's real path, Inbox.ingest of a context built by createContext, in pages of 500 (the poller's page)
// with the relay cursor, into a fresh database. The baseline is a bare drizzle insert of the same events as
// notification rows, 500 rows a statement, one transaction a page, into a fresh database of the same kind
// with the same migrations. SQLite (a temp file) and Postgres (127.0.0.1:5432, user postgres, a throwaway
// database per run, dropped after). Rounds alternate (bare, inbox, bare, inbox, …) after an uncounted
// warm-up; medians are printed; the target is inbox >= 0.3 of bare. The drain runs in a child process
// under tsx (it imports the TypeScript workspace); `--cpu-prof` profiles that child into --cpu-prof-dir.
//
// Chat (only with --only=chat, bench/notify-chat.mjs says how): the chat outbox with two dashboard processes on one
// Postgres database: webhook -> chat p95 with two processes against one, and, with a receiver that answers in 8 s,
// requests received per message (exactly 1.00), every duplicate named.
//
// Flags: --only=latency|drain|chat, --chat-n=200, --chat-latency-n=50, --slow-ms=8000, --n=50 (webhooks per latency phase), --baseline-n=<n> (the polling phase's
// count; default --n), --events=10000, --rounds=3, --stores=sqlite,postgres, --cpu-prof,
// --cpu-prof-dir=<dir> (default $TMPDIR/dash-bench-notify-cpu-prof), --verbose (each phase's polls and
// latencies in order), --smoke (below). Env: BENCH_REDIS_URL (redis://127.0.0.1:6379/14), BENCH_PG_URL
// (postgres://postgres@127.0.0.1:5432/postgres), BENCH_RELAY_ENTRY (the relay bundled, e.g. by `node scripts/pnpm.mjs
// --filter @dash/relay build`, apps/relay/dist/relay.mjs: it starts in a fraction of tsx's time).
//
// --smoke: both parts with the smallest numbers: one counted webhook a phase, a shorter wait for late copies, and
// in the polling phase the dashboard asked to poll now (POST /api/relay/poll) after each webhook instead of waiting
// its 15 s interval; a drain of 1,000 events, one round, no warm-up. Its figures are not to be quoted; it exits
// non-zero when a webhook, a notification or a push went missing or came twice, when Redis or Postgres does not
// answer (no memory store, no skipped drain), or when a figure is not a number.
import { spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runChat } from './notify-chat.mjs';
import { assertFigures, cliArgs, freePort, sayIfSmoke, smoke, startBuiltDashboard } from './support.mjs';

const repoDir = fileURLToPath(new URL('..', import.meta.url));
const args = cliArgs();
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const GITHUB_SECRET = 'bench-github-secret';
const POLL_SECRET = 'bench-poll-secret-0123456789abcdef';
const PAGE = 500;
/** After the warm-up, when the first counted webhook goes; after the last arrival, how long late copies may take to show. */
const LEAD_MS = smoke ? 200 : 1_000;
const LATE_COPY_MS = smoke ? 300 : 1_500;
const benchEmail = { SENDGRID_API_KEY: 'SG.bench-key', ALERT_EMAIL_FROM: 'alerts@bench.example', ALERT_EMAIL_TO: 'founder@bench.example', SENDGRID_API_URL: 'http://127.0.0.1:9' };

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
const seconds = (ms) => `${(ms / 1000).toFixed(ms < 1_000 ? 3 : 2)} s`;
const thousands = (n) => Math.round(n).toLocaleString('en-US');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** An ES module entry of a package as `fromDir` would import it (the drain imports the store's own drizzle). */
function esmEntry(fromDir, specifier) {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const subpath = `.${specifier.slice(name.length)}`;
  const cjs = createRequire(join(fromDir, 'package.json')).resolve(specifier);
  let dir = dirname(cjs);
  while (!existsSync(join(dir, 'package.json')) || JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name !== name) dir = dirname(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  let entry = pkg.exports?.[subpath === '.' ? '.' : subpath] ?? pkg.exports;
  for (const condition of ['import', 'node', 'default']) if (entry && typeof entry === 'object' && condition in entry) entry = entry[condition];
  if (entry && typeof entry === 'object') entry = entry.default;
  if (typeof entry !== 'string') return pathToFileURL(cjs).href;
  return pathToFileURL(join(dir, entry)).href;
}
const dbPackageDir = join(repoDir, 'packages/db');

// ---------------------------------------------------------------------------------------------------------
// Cleanup: every process, server, temp dir and database this run made goes, on success, failure or Ctrl-C.
const cleanups = [];
let cleaning = Promise.resolve();
let interrupted = false;
/** Undoes, newest first, what was set up after the first `keep` steps; one clean-up at a time. */
function cleanUp(keep = 0) {
  cleaning = cleaning.then(async () => {
    while (cleanups.length > keep) {
      const step = cleanups.pop();
      try {
        await step();
      } catch (error) {
        console.error(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  });
  return cleaning;
}
for (const signal of args['drain-worker'] ? [] : ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}
if (!args['drain-worker']) {
  process.on('unhandledRejection', (error) => {
    console.error('unexpected:', error);
    void cleanUp().finally(() => process.exit(1));
  });
}

/** A child with its output kept (shown when it fails); stopped with SIGTERM, then SIGKILL, at cleanup. */
function startChild(name, argv, env) {
  const child = spawn(process.execPath, argv, {
    cwd: repoDir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = [];
  const keep = (chunk) => {
    output.push(...chunk.toString().split('\n').filter(Boolean));
    if (output.length > 200) output.splice(0, output.length - 200);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = false;
  child.once('exit', () => (exited = true));
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 8_000);
    await once(child, 'exit').catch(() => undefined);
    clearTimeout(killer);
  };
  cleanups.push(stop);
  return { child, output, stop, name, get exited() { return exited; } };
}

async function waitForHttp(proc, url) {
  for (let i = 0; i < 600; i++) {
    if (proc.exited) throw new Error(`${proc.name} exited while starting:\n${proc.output.join('\n')}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${proc.name} did not answer ${url} within 60 s:\n${proc.output.join('\n')}`);
}

// ---------------------------------------------------------------------------------------------------------
// Latency.

/** A GitHub pull_request delivery (closed, merged), signed as GitHub signs it (apps/relay/src/testing.ts). */
function githubDelivery(number) {
  const body = JSON.stringify({
    action: 'closed',
    number,
    pull_request: {
      number,
      title: `Change ${number}`,
      html_url: `https://github.com/acme/app/pull/${number}`,
      merged: true,
      merged_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      created_at: '2026-11-21T10:00:00Z',
      closed_at: new Date().toISOString(),
      user: { login: 'octocat' },
      base: { ref: 'main' },
      head: { ref: `feature-${number}` },
    },
    repository: { full_name: 'acme/app', name: 'app', html_url: 'https://github.com/acme/app', owner: { login: 'acme' } },
    sender: { login: 'octocat' },
  });
  return {
    url: `https://github.com/acme/app/pull/${number}`,
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`,
    },
  };
}

/**
 * Between the dashboard and the relay: passes requests through, counting the polls; with `stripWait`,
 * GET …/events loses its `wait` parameter, so the relay answers at once as one without long-poll would.
 */
async function startProxy(relayPort, stripWait) {
  const polls = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const isPoll = req.method === 'GET' && url.pathname.endsWith('/events');
    if (isPoll && stripWait) url.searchParams.delete('wait');
    const poll = isPoll ? { at: performance.now(), wait: url.searchParams.get('wait'), status: 0, ms: 0 } : undefined;
    if (poll) polls.push(poll);
    const upstream = httpRequest(
      { host: '127.0.0.1', port: relayPort, method: req.method, path: url.pathname + url.search, headers: req.headers },
      (answer) => {
        if (poll) {
          poll.status = answer.statusCode ?? 0;
          answer.once('end', () => (poll.ms = performance.now() - poll.at));
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  cleanups.push(close);
  return { port: server.address().port, polls, close };
}

/** Reads `event: notification` frames from the dashboard's SSE stream; each arrival is timed. */
async function connectStream(base) {
  const arrivals = new Map(); // url -> [performance.now() of each arrival]
  const waiters = new Set();
  const controller = new AbortController();
  const response = await fetch(`${base}/api/notifications/stream`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`GET /api/notifications/stream answered ${response.status} ${response.headers.get('content-type')}`);
  }
  let opened;
  const ready = new Promise((resolve) => (opened = resolve));
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        const now = performance.now();
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data = [];
          for (const line of frame.split('\n')) {
            if (line.startsWith('retry:')) opened();
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (event !== 'notification' || data.length === 0) continue;
          const { notification } = JSON.parse(data.join('\n'));
          const list = arrivals.get(notification.url) ?? [];
          list.push(now);
          arrivals.set(notification.url, list);
          for (const waiter of waiters) waiter();
        }
      }
      if (!controller.signal.aborted) throw new Error('the dashboard ended the SSE stream');
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  const stream = { failure: undefined };
  reading.catch((error) => {
    stream.failure = error;
    for (const waiter of waiters) waiter();
  });
  const close = async () => {
    controller.abort();
    await reading.catch(() => undefined);
  };
  cleanups.push(close);
  await Promise.race([ready, sleep(10_000).then(() => Promise.reject(new Error('the SSE stream sent no `retry:` within 10 s')))]);
  /** Resolves when `done()` holds or at `deadline` (performance.now() ms). */
  const until = (done, deadline) =>
    new Promise((resolve) => {
      const check = () => {
        if (done() || stream.failure || performance.now() >= deadline) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(done());
        }
      };
      const timer = setTimeout(check, Math.max(0, deadline - performance.now()));
      waiters.add(check);
      check();
    });
  /** Throws what broke the stream, if anything did. */
  const check = () => {
    if (stream.failure) throw stream.failure;
  };
  return { arrivals, until, close, check };
}

/**
 * A Web Push service for one device: `POST /push/bench` answers 201 (RFC 8030), the body decrypted with the device's
 * keys (RFC 8291 aes128gcm, by the sandbox's decryption); `arrivals` holds,
 * per PR number named in a message's title, when each message arrived.
 */
async function startPushService() {
  // The sandbox's own RFC 8291 decryption, proven on the RFC's worked example (packages/sandbox/src/push/ece.ts).
  const { tsImport } = await import('tsx/esm/api');
  const { decryptPushMessage, newSubscriberKeys } = await tsImport('../packages/sandbox/src/push/ece.ts', import.meta.url);
  const keys = newSubscriberKeys();
  const arrivals = new Map();
  let refused = 0;
  const decrypt = (body) => JSON.parse(decryptPushMessage(body, keys).toString('utf8'));
  const server = createHttpServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      try {
        const payload = decrypt(Buffer.concat(chunks));
        const number = /Change (\d+)/.exec(String(payload.title))?.[1];
        if (number) arrivals.set(Number(number), [...(arrivals.get(Number(number)) ?? []), at]);
        res.writeHead(201, { location: `/message/${randomUUID()}` }).end();
      } catch {
        refused++;
        res.writeHead(400).end();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const endpoint = `http://127.0.0.1:${server.address().port}/push/bench`;
  return { endpoint, keys: { p256dh: keys.publicKey.toString('base64url'), auth: keys.authSecret.toString('base64url') }, arrivals, refused: () => refused };
}

/** Whether `done()` holds by `deadline` (performance.now() ms), looking every 20 ms. */
async function settled(done, deadline) {
  while (!done() && performance.now() < deadline) await sleep(20);
  return done();
}

/** Subscribes the push service's device on the dashboard and sends merged PRs (and the rest of GitHub's) to push. */
async function subscribePush(base, push) {
  // As the dashboard's own page would ask (the cross-site guard); on loopback with no password, the owner.
  const json = { 'content-type': 'application/json', origin: base };
  const added = await fetch(`${base}/api/push/subscriptions`, { method: 'POST', headers: json, body: JSON.stringify({ endpoint: push.endpoint, expirationTime: null, keys: push.keys, name: 'Bench device' }) });
  if (added.status !== 201) throw new Error(`adding the push device answered ${added.status}: ${await added.text()}`);
  const preferences = [{ integration: 'code_host', type: '*', enabled: true, minSeverity: 'info', channels: { browser: true, email: false, push: true } }];
  const saved = await fetch(`${base}/api/notifications/preferences`, { method: 'PUT', headers: json, body: JSON.stringify({ preferences }) });
  if (!saved.ok) throw new Error(`saving the push preference answered ${saved.status}: ${await saved.text()}`);
}

async function postWebhook(relayBase, delivery) {
  const response = await fetch(`${relayBase}/api/webhooks/code_host`, { method: 'POST', headers: delivery.headers, body: delivery.body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the relay answered ${response.status} to a webhook: ${text}`);
}

/** One phase: fresh relay, proxy and dashboard; a warm-up webhook, then `n` a second apart. */
async function latencyPhase({ label, stripWait, n, redis, prNumberBase, push: withPush = false }) {
  const phaseCleanups = cleanups.length;
  if (redis) await redis.flushDb();
  const relayPort = await freePort();
  const relayArgs = process.env.BENCH_RELAY_ENTRY ? [process.env.BENCH_RELAY_ENTRY] : ['--import', 'tsx', 'apps/relay/src/main.ts'];
  const relay = startChild('relay', relayArgs, {
    RELAY_HOST: '127.0.0.1',
    RELAY_PORT: String(relayPort),
    RELAY_POLL_SECRET: POLL_SECRET,
    WEBHOOK_SECRET_GITHUB: GITHUB_SECRET,
    ...(redis ? { REDIS_URL } : { RELAY_STORE: 'memory' }),
  });
  const relayBase = `http://127.0.0.1:${relayPort}`;
  await waitForHttp(relay, `${relayBase}/api/health`);
  const proxy = await startProxy(relayPort, stripWait);

  const dashboard = await startBuiltDashboard({
    WEBHOOK_RELAY_URL: `http://127.0.0.1:${proxy.port}/api`,
    RELAY_POLL_SECRET: POLL_SECRET,
    // Push services need a contact (RFC 8292); without an alert address or an https ORIGIN, this one.
    VAPID_SUBJECT: 'mailto:founder@bench.example',
    // The bench's push service listens on loopback, where a real one never is (docs/security.md).
    PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true',
  });
  cleanups.push(dashboard.stop);
  const base = dashboard.url;
  /** A smoke run's polling phase: the dashboard polls now, as its button does, instead of in up to 15 s. */
  const nudge =
    smoke && stripWait
      ? async () => {
          const response = await fetch(`${base}/api/relay/poll`, { method: 'POST', headers: { origin: base } });
          if (!response.ok) throw new Error(`POST /api/relay/poll answered ${response.status}: ${await response.text()}`);
        }
      : undefined;
  try {
    const push = withPush ? await startPushService() : undefined;
    if (push) await subscribePush(base, push);
    const stream = await connectStream(base);

    // Warm-up: proves relay -> dashboard -> SSE end to end; not counted.
    const warm = githubDelivery(prNumberBase);
    const warmSent = performance.now();
    await postWebhook(relayBase, warm);
    if (nudge) await nudge();
    const warmArrived = await stream.until(() => stream.arrivals.has(warm.url), warmSent + 60_000);
    stream.check();
    if (!warmArrived) {
      throw new Error(`${label}: the warm-up webhook did not reach the SSE stream within 60 s\n--- dashboard:\n${dashboard.output()}`);
    }
    const warmMs = stream.arrivals.get(warm.url)[0] - warmSent;

    if (push && !(await settled(() => push.arrivals.has(prNumberBase), warmSent + 60_000))) {
      throw new Error(`${label}: the warm-up webhook's push did not reach the push service within 60 s\n--- dashboard:\n${dashboard.output()}`);
    }
    const sent = new Map(); // url -> performance.now() when its POST was sent
    const sentNumbers = new Map(); // PR number -> the same instant
    const posts = [];
    const start = performance.now() + LEAD_MS;
    for (let i = 0; i < n; i++) {
      const delivery = githubDelivery(prNumberBase + 1 + i);
      const due = start + i * 1_000;
      await sleep(due - performance.now());
      sent.set(delivery.url, performance.now());
      sentNumbers.set(prNumberBase + 1 + i, sent.get(delivery.url));
      const post = postWebhook(relayBase, delivery).then(() => nudge?.());
      post.catch(() => {}); // awaited below, with the others
      posts.push(post);
    }
    await Promise.all(posts);
    const lastSent = performance.now();
    const tailMs = 90_000;
    await stream.until(() => [...sent.keys()].every((url) => stream.arrivals.has(url)), lastSent + tailMs);
    if (push) await settled(() => [...sentNumbers.keys()].every((number) => push.arrivals.has(number)), lastSent + tailMs);
    await sleep(LATE_COPY_MS); // a late second copy of anything would show now
    stream.check();

    const latencies = [];
    let missing = 0;
    let duplicates = 0;
    for (const [url, at] of sent) {
      const seen = stream.arrivals.get(url);
      if (!seen) missing++;
      else {
        latencies.push(seen[0] - at);
        duplicates += seen.length - 1;
      }
    }
    latencies.sort((a, b) => a - b);
    // Webhook -> push service, each once.
    const pushes = push && {
      latencies: [...sentNumbers].flatMap(([number, at]) => (push.arrivals.has(number) ? [push.arrivals.get(number)[0] - at] : [])).sort((a, b) => a - b),
      missing: [...sentNumbers.keys()].filter((number) => !push.arrivals.has(number)).length,
      duplicates: [...sentNumbers.keys()].reduce((sum, number) => sum + Math.max(0, (push.arrivals.get(number)?.length ?? 0) - 1), 0),
      refused: push.refused(),
    };

    // Exactly once in the inbox, each with its URL.
    const list = await (await fetch(`${base}/api/notifications?limit=100`)).json();
    const stored = new Map();
    for (const item of list.notifications ?? []) stored.set(item.url, (stored.get(item.url) ?? 0) + 1);
    const expected = [warm.url, ...sent.keys()];
    const inboxOk = expected.every((url) => stored.get(url) === 1) && stored.size === expected.length;

    const polls = proxy.polls.filter((p) => p.at >= start - 1_000);
    if (args.verbose) {
      const timeline = proxy.polls.map((p) => `${((p.at - start) / 1000).toFixed(1)}s${p.wait ? ` wait=${p.wait}` : ''} -> ${p.status} in ${(p.ms / 1000).toFixed(2)}s`);
      console.log(`  ${label} polls (time from the first counted webhook): ${timeline.join(', ')}`);
      console.log(`  ${label} latencies in send order: ${[...sent].map(([url, at]) => (stream.arrivals.has(url) ? ((stream.arrivals.get(url)[0] - at) / 1000).toFixed(1) : 'x')).join(' ')}`);
    }
    const status = await (await fetch(`${base}/api/relay/status`).catch(() => undefined))?.json().catch(() => undefined);
    await stream.close();
    return {
      label,
      n,
      latencies,
      missing,
      duplicates,
      warmMs,
      inboxOk,
      storedCount: stored.size,
      expectedCount: expected.length,
      polls: polls.length,
      polls429: polls.filter((p) => p.status === 429).length,
      pollsHeld: polls.filter((p) => p.ms >= 1_000).length,
      longPollStatus: status?.poller?.longPoll,
      durationMs: performance.now() - start,
      pushes,
    };
  } finally {
    // This phase's processes, proxy and temp dir go now; the next phase starts fresh.
    await cleanUp(phaseCleanups);
  }
}

function describeLatency(result) {
  const { latencies: l } = result;
  if (l.length === 0) return `no webhook arrived (n=${result.n}, missing ${result.missing})`;
  const p50 = quantile(l, 0.5);
  const p95 = quantile(l, 0.95);
  const max = l[l.length - 1];
  const extra = [
    result.missing > 0 ? `${result.missing} MISSING` : '',
    result.duplicates > 0 ? `${result.duplicates} DUPLICATE SSE events` : '',
    result.inboxOk ? '' : `inbox holds ${result.storedCount} of ${result.expectedCount} notifications or some twice: NOT exactly once`,
  ].filter(Boolean);
  return {
    p50,
    p95,
    max,
    text:
      `p50 ${seconds(p50)} p95 ${seconds(p95)} max ${seconds(max)} (n=${l.length}${result.missing ? ` of ${result.n}` : ''}, ${l.filter((ms) => ms <= 2_000).length} within 2 s; ` +
      `${result.polls} polls, ${result.pollsHeld} held >= 1 s, ${result.polls429} answered 429; warm-up ${seconds(result.warmMs)})` +
      (extra.length ? `  !! ${extra.join('; ')}` : ''),
  };
}

async function runLatency() {
  if (!existsSync(join(repoDir, 'apps/web/build/server.js'))) {
    throw new Error('apps/web/build/server.js is missing: run `node scripts/pnpm.mjs --filter @dash/web build` first');
  }
  const staleBy = newestSource() - statSync(join(repoDir, 'apps/web/build/server.js')).mtimeMs;
  if (staleBy > 0) console.log(`note: sources changed after the dashboard build (by ${Math.round(staleBy / 1000)} s); rebuild for current figures`);

  const { createClient } = await import('redis');
  let redis = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false, connectTimeout: 2_000 } });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.flushDb();
    cleanups.push(async () => {
      await redis.flushDb();
      redis.destroy();
    });
    console.log(`relay store: Redis ${REDIS_URL} (flushed before each phase and at the end)`);
  } catch (error) {
    if (smoke) throw new Error(`Redis at ${REDIS_URL} is unreachable (${error.message}): a smoke run does not fall back to the memory store`);
    redis = undefined;
    console.log(`relay store: MEMORY (RELAY_STORE=memory): Redis at ${REDIS_URL} is unreachable (${error.message})`);
  }

  const n = Number(args.n ?? (smoke ? 1 : 50));
  const baselineN = Number(args['baseline-n'] ?? n);
  const started = performance.now();
  const longPoll = await latencyPhase({ label: 'long-poll', stripWait: false, n, redis, prNumberBase: 1_000, push: true });
  const lp = describeLatency(longPoll);
  console.log(`latency long-poll: ${lp.text ?? lp}`);
  const { pushes } = longPoll;
  if (pushes.latencies.length === 0) console.log(`push: no message reached the push service (missing ${pushes.missing})`);
  else if (lp.p95 !== undefined) {
    const p95 = quantile(pushes.latencies, 0.95);
    const problems = [pushes.missing ? `${pushes.missing} MISSING` : '', pushes.duplicates ? `${pushes.duplicates} DUPLICATE` : '', pushes.refused ? `${pushes.refused} did not decrypt` : ''].filter(Boolean);
    console.log(
      `latency webhook -> push service: p50 ${seconds(quantile(pushes.latencies, 0.5))} p95 ${seconds(p95)} max ${seconds(pushes.latencies.at(-1))} (n=${pushes.latencies.length})` +
        (problems.length ? `  !! ${problems.join('; ')}` : ''),
    );
    console.log(`ratio p95 push/live stream (same webhooks): ${(p95 / lp.p95).toFixed(2)} (target push p95 <= 2 s: ${p95 <= 2_000 && pushes.missing === 0 ? 'met' : 'NOT met'})`);
  }
  const polling = await latencyPhase({ label: '15 s polling', stripWait: true, n: baselineN, redis, prNumberBase: 5_000 });
  const pl = describeLatency(polling);
  console.log(`latency 15 s polling: ${pl.text ?? pl}`);
  if (lp.p95 !== undefined && pl.p95 !== undefined) {
    const met = lp.p95 <= 2_000 && longPoll.missing === 0;
    console.log(`ratio p95 long-poll/polling: ${(lp.p95 / pl.p95).toFixed(2)} (target p95 <= 2 s: ${met ? 'met' : 'NOT met'})`);
  }
  console.log(`latency part took ${Math.round((performance.now() - started) / 1000)} s`);
  if (smoke) {
    const problems = [
      ...[longPoll, polling].flatMap((phase) => [
        phase.missing ? `${phase.label}: ${phase.missing} webhooks never reached the SSE stream` : '',
        phase.duplicates ? `${phase.label}: ${phase.duplicates} duplicate SSE events` : '',
        phase.inboxOk ? '' : `${phase.label}: the inbox holds ${phase.storedCount} of ${phase.expectedCount} notifications, or some twice`,
      ]),
      pushes.missing ? `${pushes.missing} pushes never reached the push service` : '',
      pushes.duplicates ? `${pushes.duplicates} duplicate pushes` : '',
      pushes.refused ? `${pushes.refused} pushes did not decrypt` : '',
    ].filter(Boolean);
    if (problems.length > 0) throw new Error(`the latency part did not work: ${problems.join('; ')}`);
    assertFigures({ 'long-poll p95': lp.p95, 'polling p95': pl.p95, 'push p95': quantile(pushes.latencies, 0.95) });
  }
  return { longPoll, polling };
}

/** Newest modification time of the dashboard's sources (as scripts/start.mjs judges a build stale). */
function newestSource() {
  const walk = (path) => {
    if (!existsSync(path)) return 0;
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs;
    return readdirSync(path)
      .filter((name) => name !== 'node_modules' && !/(\.test\.ts|^testing\.ts)$/.test(name))
      .reduce((latest, name) => Math.max(latest, walk(join(path, name))), 0);
  };
  return Math.max(...['apps/web/src', 'packages'].map((p) => walk(join(repoDir, p))));
}

// ---------------------------------------------------------------------------------------------------------
// Drain: the parent side.

async function pgAdmin() {
  const { default: postgres } = await import(esmEntry(dbPackageDir, 'postgres'));
  return postgres(PG_URL, { onnotice: () => {}, max: 1, connect_timeout: 3 });
}

async function runDrain() {
  const stores = (args.stores ?? 'sqlite,postgres').split(',');
  const tempDir = mkdtempSync(join(tmpdir(), 'dash-bench-drain-'));
  cleanups.push(async () => rmSync(tempDir, { recursive: true, force: true }));
  const dbPrefix = `bench_notify_${process.pid}_`;
  const results = {};
  for (const kind of stores) {
    if (kind === 'postgres') {
      try {
        const admin = await pgAdmin();
        await admin`select 1`;
        // Whatever a failed worker left behind goes at the end.
        cleanups.push(async () => {
          const left = await admin`select datname from pg_database where datname like ${`${dbPrefix}%`}`;
          for (const { datname } of left) await admin.unsafe(`drop database if exists "${datname}" with (force)`);
          await admin.end();
        });
      } catch (error) {
        if (smoke) throw new Error(`Postgres at ${PG_URL.replace(/:[^:@/]*@/, ':***@')} is unreachable (${error.message}): a smoke run does not skip the drain`);
        console.log(`drain postgres: SKIPPED: ${PG_URL.replace(/:[^:@/]*@/, ':***@')} is unreachable (${error.message})`);
        continue;
      }
    }
    const profileDir = args['cpu-prof-dir'] ?? join(tmpdir(), 'dash-bench-notify-cpu-prof');
    const profile = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=200'] : [];
    if (args['cpu-prof']) console.log(`drain ${kind}: CPU profile of the worker goes to ${profileDir}`);
    const worker = spawn(
      process.execPath,
      [...profile, '--import', 'tsx', fileURLToPath(import.meta.url), '--drain-worker', `--kind=${kind}`, `--events=${args.events ?? (smoke ? 1_000 : 10_000)}`, `--rounds=${args.rounds ?? (smoke ? 1 : 3)}`, `--dir=${tempDir}`, `--db-prefix=${dbPrefix}`, ...(smoke ? ['--smoke'] : [])],
      { cwd: repoDir, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_PG_URL: PG_URL } },
    );
    // On SQLite the worker's event loop can be busy for seconds (see `stall`), so SIGKILL follows soon;
    // its databases go with the sweep above and the temp dir.
    cleanups.push(async () => {
      if (worker.exitCode === null && worker.signalCode === null) {
        const exited = once(worker, 'exit').catch(() => undefined);
        worker.kill('SIGTERM');
        const killer = setTimeout(() => worker.kill('SIGKILL'), 2_000);
        await exited;
        clearTimeout(killer);
      }
    });
    let result;
    let buffer = '';
    worker.stdout.on('data', (chunk) => {
      buffer += chunk.toString();
      let end;
      while ((end = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line.startsWith('RESULT ')) result = JSON.parse(line.slice(7));
        else console.log(line);
      }
    });
    const [code] = await once(worker, 'exit');
    if (code !== 0 || !result) throw new Error(`the ${kind} drain worker failed (exit ${code})`);
    results[kind] = result;
    const ratio = result.inbox / result.bare;
    console.log(
      `drain ${kind}: inbox ${thousands(result.inbox)} ev/s, bare insert ${thousands(result.bare)} ev/s, ratio ${ratio.toFixed(2)} ` +
        `(target >= 0.3: ${ratio >= 0.3 ? 'met' : 'NOT met'}) (medians of ${result.rounds}; ${thousands(result.events)} events: ${thousands(result.stored)} stored, ${result.duplicates} redeliveries; ` +
        `the inbox's longest event-loop stall ${Math.round(result.stall)} ms for a page of ${PAGE})`,
    );
    const policyRatio = result.policy / result.inbox;
    console.log(
      `drain ${kind} with the notification policy (20 rules, quiet hours on): ${thousands(result.policy)} ev/s, ratio to the inbox without it ${policyRatio.toFixed(2)} ` +
        `(target >= 0.7: ${policyRatio >= 0.7 ? 'met' : 'NOT met'})`,
    );
    assertFigures({ [`drain ${kind} ratio`]: ratio, [`drain ${kind} policy ratio`]: policyRatio });
    if (!(result.stored > 0)) throw new Error(`drain ${kind}: the inbox stored no notification of ${result.events} events`);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------------
// Drain: the worker (a child under tsx, so it can import the workspace's TypeScript).

/** A small seeded PRNG: the same events every run. */
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` relay events as GET /api/events serves them (relayEventSchema), oldest first. */
function relayEvents(count) {
  const random = mulberry32(12);
  const repos = ['acme/app', 'acme/api', 'acme/site', 'acme/docs'];
  const vercelProjects = ['prj_app', 'prj_api', 'prj_site'];
  const monitors = ['1001', '1002', '1003', '1004', '1005'];
  const teams = ['ENG', 'OPS'];
  const events = [];
  const openMonitors = new Map(); // monitor -> incident id
  const failedTargets = new Set();
  const start = Date.parse('2026-11-22T00:00:00Z');
  let pr = 1;
  let deploy = 1;
  let incident = 1;
  let issue = 1;
  for (let i = 0; events.length < count; i++) {
    const receivedMs = start + i * 250;
    const receivedAt = new Date(receivedMs).toISOString();
    const occurredAt = new Date(receivedMs - 1_000 - Math.floor(random() * 5_000)).toISOString();
    const id = `${receivedMs}-${i.toString(36)}`;
    const roll = random();
    if (roll < 0.01 && events.length > 10) {
      // A redelivery: the same real-world event again (the relay and the local route, or a provider retry).
      const again = events[Math.floor(random() * events.length)];
      events.push({ ...again, id, receivedAt });
    } else if (roll < 0.5) {
      const repo = repos[Math.floor(random() * repos.length)];
      const number = pr++;
      const outcome = random() < 0.7 ? 'merged' : 'opened';
      const bot = random() < 0.15;
      const base = random() < 0.8 ? 'main' : random() < 0.5 ? 'release' : `feature-${number}`;
      events.push({
        id,
        integration: 'code_host',
        type: `pr.${outcome}`,
        sourceEventId: `github:${repo}:pr:${number}:${outcome}`,
        title: bot ? `PR #${number} ${outcome}: Bump lodash from 4.17.20 to 4.17.21 (dependabot)` : `PR #${number} ${outcome}: Change ${number} to the billing page and its tests`,
        url: `https://github.com/${repo}/pull/${number}`,
        project: repo,
        repo,
        severity: outcome === 'merged' ? 'success' : 'info',
        occurredAt,
        receivedAt,
        refs: [`code_host:${repo}`],
        payload: { pull_request: { number, base: { ref: base }, user: { login: bot ? 'dependabot[bot]' : 'dev' }, labels: bot ? ['dependencies'] : [] } },
      });
    } else if (roll < 0.75) {
      const project = vercelProjects[Math.floor(random() * vercelProjects.length)];
      const target = random() < 0.6 ? 'production' : 'preview';
      const subject = `vercel:${project}:${target}`;
      const failed = random() < 0.1;
      const state = failed ? 'error' : 'succeeded';
      const dpl = `dpl_${(deploy++).toString(36)}`;
      if (failed) failedTargets.add(subject);
      else failedTargets.delete(subject);
      events.push({
        id,
        integration: 'deploy_host',
        type: `deploy.${state}`,
        sourceEventId: `vercel:${dpl}:${state}`,
        title: `${failed ? 'Deploy failed' : 'Deployed'}: ${project} (${target})`,
        url: `https://${project}-${dpl}.vercel.app`,
        project,
        severity: failed ? 'error' : 'success',
        occurredAt,
        receivedAt,
        subject,
        transition: failed ? 'trigger' : 'resolve',
        refs: [`deploy_host:${project}`],
        payload: { deployment: { id: dpl, target, meta: { branch: target === 'production' ? 'main' : `feature-${deploy}` } } },
      });
    } else if (roll < 0.9) {
      const team = teams[Math.floor(random() * teams.length)];
      const number = issue++;
      events.push({
        id,
        integration: 'issue_tracker',
        type: 'issue.created',
        sourceEventId: `linear:issue:${team}-${number}:create`,
        title: `${team}-${number} created: Customers ask for CSV export of invoices`,
        url: `https://linear.app/acme/issue/${team}-${number}`,
        severity: 'info',
        occurredAt,
        receivedAt,
        refs: [`issue_tracker:${team}`],
        payload: { data: { identifier: `${team}-${number}`, priority: 1 + Math.floor(random() * 4), labels: random() < 0.3 ? ['bug'] : ['feature'] } },
      });
    } else {
      // Better Stack: a monitor goes down, a later event brings it back up (one story, two events).
      const monitor = monitors[Math.floor(random() * monitors.length)];
      const open = openMonitors.get(monitor);
      const down = open === undefined;
      const incidentId = down ? String(incident++) : open;
      if (down) openMonitors.set(monitor, incidentId);
      else openMonitors.delete(monitor);
      const state = down ? 'started' : 'resolved';
      events.push({
        id,
        integration: 'uptime_monitor',
        type: down ? 'monitor.down' : 'monitor.up',
        sourceEventId: `betterstack:incident:${incidentId}:${state}:${occurredAt}`,
        title: `${down ? 'Down' : 'Recovered'}: api.acme.dev/health${down ? ' (Status 503)' : ''}`,
        url: 'https://api.acme.dev/health',
        project: 'API health',
        severity: down ? 'error' : 'success',
        occurredAt,
        receivedAt,
        subject: `betterstack:monitor:${monitor}`,
        transition: down ? 'trigger' : 'resolve',
        refs: [`uptime_monitor:${monitor}`],
      });
    }
  }
  return events;
}

const benchProjects = [
  { slug: 'app', name: 'App', integrations: { code_host: { repos: ['acme/app', 'acme/docs'] }, deploy_host: { projectId: 'prj_app' }, issue_tracker: { teamIds: ['ENG'] }, uptime_monitor: { monitorIds: ['1001', '1002'] } } },
  { slug: 'api', name: 'API', integrations: { code_host: { repos: ['acme/api'] }, deploy_host: { projectId: 'prj_api' }, uptime_monitor: { monitorIds: ['1003'] } } },
  { slug: 'site', name: 'Site', integrations: { deploy_host: { projectId: 'prj_site' } } },
];

/**
 * Twenty rules of the kinds a founder writes (type globs, payload conditions, words in the title, projects,
 * severities, channels, silence), each one matching some of the run's events (the drain counts them and refuses
 * a rule that matches none), evaluated on every event; and quiet hours around the run's time.
 */
function benchPolicy() {
  const hour = new Date().getUTCHours();
  const at = (h) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
  const rule = (n, match, actions) => ({ id: `r${n}`, name: `Rule ${n}`, enabled: true, match, actions, stop: false });
  const rules = [
    rule(0, { type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] }, { setSeverity: 'error' }),
    rule(1, { integrations: ['code_host'], titleContains: 'dependabot' }, { silence: true }),
    rule(2, { type: 'monitor.*', projects: ['api'] }, { addChannels: ['browser'], bypassQuietHours: true }),
    rule(3, { integrations: ['issue_tracker'], payload: [{ path: 'data.priority', op: 'lt', value: 2 }] }, { setSeverity: 'warning' }),
    rule(4, { type: 'pr.*', payload: [{ path: 'pull_request.base.ref', op: 'in', value: ['main', 'release'] }] }, { addChannels: ['browser'] }),
    rule(5, { type: 'deploy.error', projects: ['site'] }, { addChannels: ['email'] }),
    rule(6, { type: 'pr.opened', titleContains: 'billing' }, { silence: true }),
    rule(7, { integrations: ['issue_tracker'], titleContains: 'CSV export' }, { addChannels: ['browser'] }),
    rule(8, { type: 'monitor.down', titleContains: 'Status 503' }, { addChannels: ['email'] }),
    rule(9, { type: 'deploy.succeeded', payload: [{ path: 'deployment.target', op: 'eq', value: 'preview' }] }, { silence: true }),
    rule(10, { type: 'pr.merged', projects: ['app'] }, { setSeverity: 'info' }),
    rule(11, { integrations: ['issue_tracker'], titleContains: 'OPS-' }, { bypassQuietHours: true }),
    rule(12, { integrations: ['code_host'], payload: [{ path: 'pull_request.user.login', op: 'contains', value: '[bot]' }] }, { discard: true }),
    rule(13, { type: 'monitor.up', projects: ['app'] }, { removeChannels: ['browser'] }),
    rule(14, { type: 'deploy.*', payload: [{ path: 'deployment.meta.branch', op: 'exists' }] }, { addChannels: ['browser'] }),
    rule(15, { minSeverity: 'error' }, { bypassQuietHours: true }),
    rule(16, { type: 'issue.created', payload: [{ path: 'data.priority', op: 'gt', value: 3 }] }, { silence: true }),
    rule(17, { integrations: ['deploy_host', 'uptime_monitor'], projects: ['api'] }, { addChannels: ['browser'] }),
    rule(18, { projects: ['site'], minSeverity: 'warning' }, { setSeverity: 'warning' }),
    rule(19, { type: 'issue.*', payload: [{ path: 'data.labels', op: 'contains', value: 'bug' }] }, { addChannels: ['browser'] }),
  ];
  return {
    rules,
    quietHours: { enabled: true, timezone: 'UTC', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: at(hour - 2), end: at(hour + 3) }] },
  };
}

async function drainWorker() {
  const kind = args.kind;
  const count = Number(args.events);
  const rounds = Number(args.rounds);
  const migrationsDir = join(repoDir, 'drizzle');
  const { openStore } = await import(pathToFileURL(join(repoDir, 'packages/db/src/index.ts')).href);
  const { createContext } = await import('@dash/api');
  const { relayEventSchema } = await import(pathToFileURL(join(repoDir, 'packages/webhooks/src/index.ts')).href);
  const { projectRefs, toIncoming } = await import(pathToFileURL(join(repoDir, 'packages/api/src/notifications/resolve.ts')).href);
  const { evaluate } = await import(pathToFileURL(join(repoDir, 'packages/api/src/notifications/policy/rules.ts')).href);
  const schema = await import(pathToFileURL(join(repoDir, `packages/db/src/schema/${kind === 'sqlite' ? 'sqlite' : 'pg'}.ts`)).href);
  const { sql } = await import(esmEntry(dbPackageDir, 'drizzle-orm'));

  const allEvents = relayEvents(count);
  for (const event of allEvents) relayEventSchema.parse(event);
  const quiet = { info() {}, warn() {}, error() {} };

  // Databases: a temp file each, or a throwaway Postgres database each, dropped after.
  let admin;
  let serial = 0;
  const made = [];
  if (kind === 'postgres') {
    const { default: postgres } = await import(esmEntry(dbPackageDir, 'postgres'));
    admin = postgres(PG_URL, { onnotice: () => {}, max: 1 });
  }
  async function freshDatabase() {
    serial++;
    if (kind === 'sqlite') {
      const path = join(args.dir, `drain-${serial}.db`);
      made.push(path);
      return { url: `file:${path}` };
    }
    const name = `${args['db-prefix']}${serial}`;
    await admin.unsafe(`create database "${name}"`);
    made.push(name);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return { url: url.href, name };
  }
  async function dropDatabase(db) {
    if (kind === 'sqlite') {
      for (const suffix of ['', '-wal', '-shm']) rmSync(db.url.slice('file:'.length) + suffix, { force: true });
    } else {
      await admin.unsafe(`drop database if exists "${db.name}" with (force)`);
    }
  }

  /**
   * Times `work`, and the longest the event loop went without a turn meanwhile: libSQL runs local
   * statements synchronously, so on SQLite a page blocks the whole process (a dashboard serves nothing).
   */
  async function timed(work) {
    let last = performance.now();
    let stall = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      stall = Math.max(stall, now - last);
      last = now;
    }, 2);
    const started = performance.now();
    try {
      const result = await work();
      return { ...result, ms: performance.now() - started, stall: Math.max(stall, performance.now() - last) };
    } finally {
      clearInterval(ticker);
    }
  }
  /** Between pages the poller awaits the relay's next page (network I/O): the event loop gets a turn. */
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  const pagesOf = (events) => {
    const pages = [];
    for (let i = 0; i < events.length; i += PAGE) pages.push(events.slice(i, i + PAGE));
    return pages;
  };

  /** How many of the events each rule matches, by the policy's own evaluation (before the clock starts); none may be 0. */
  async function countRuleMatches(events, policy, available) {
    const refs = projectRefs(benchProjects);
    const counts = new Map(policy.rules.map((rule) => [rule.id, 0]));
    for (const event of events) {
      const incoming = toIncoming(event, refs);
      const decision = evaluate(incoming, { projectSlug: incoming.projectSlug, payload: event.payload }, { ...policy, available });
      for (const entry of decision.trace) if (entry.stage === 'rule' && entry.verdict === 'applied') counts.set(entry.id, (counts.get(entry.id) ?? 0) + 1);
    }
    const never = [...counts].filter(([, n]) => n === 0).map(([id]) => id);
    if (never.length > 0) throw new Error(`bench rules that match none of the events: ${never.join(', ')}`);
    return counts;
  }
  let ruleMatches;

  /**
   * The inbox's path: Inbox.ingest, a page at a time with the relay cursor, as the poller calls it; with `policy`,
   * twenty rules and quiet hours that hold the run's time (so non-critical interruptions are deferred).
   */
  async function inboxRun(events, { policy = false } = {}) {
    const db = await freshDatabase();
    const store = await openStore({ url: db.url, migrationsDir });
    let ctx;
    try {
      for (const project of benchProjects) await store.projects.create(project);
      // Email set up (so the email channel is open and its rows and queue are written in the ingest), its sender stopped.
      ctx = await createContext({ store, credentialsKey: randomBytes(32), log: quiet, scheduler: false, email: benchEmail });
      await ctx.notifications.emails.stop();
      const { inbox } = ctx.notifications;
      if (policy) {
        await inbox.savePolicy(benchPolicy());
        if (events === allEvents) ruleMatches ??= await countRuleMatches(events, await inbox.policy.get(), (await inbox.targets()).available);
      }
      const relayUrl = 'http://relay.bench/api';
      const pages = pagesOf(events);
      await nextTurn();
      return await timed(async () => {
        let stored = 0;
        let duplicates = 0;
        for (const page of pages) {
          const result = await inbox.ingest(page, { relayUrl, since: Date.parse(page[page.length - 1].receivedAt) });
          stored += result.stored;
          duplicates += result.duplicates;
          await nextTurn();
        }
        return { stored, duplicates };
      });
    } finally {
      ctx?.notifications.inbox.close();
      await store.close();
      await dropDatabase(db);
    }
  }

  /** The same events as notification rows, as the fold would leave them (built before the clock starts). */
  async function bareRows(events) {
    const refs = projectRefs(benchProjects);
    const rows = [];
    const openBySubject = new Map();
    for (const [index, event] of events.entries()) {
      const incoming = toIncoming(event, refs);
      const subject = incoming.transition === null ? null : incoming.subjectKey;
      const row = {
        id: randomUUID(),
        seq: index + 1,
        createdSeq: index + 1,
        integration: incoming.integration,
        type: incoming.type,
        subjectKey: incoming.subjectKey,
        status: subject === null ? 'info' : incoming.transition === 'trigger' ? 'open' : 'resolved',
        severity: incoming.severity,
        title: incoming.title,
        url: incoming.url,
        projectSlug: incoming.projectSlug,
        eventCount: 1,
        firstAt: new Date(incoming.occurredAt).toISOString(),
        lastAt: new Date(incoming.occurredAt).toISOString(),
        resolvedAt: incoming.transition === 'resolve' ? new Date(incoming.occurredAt).toISOString() : null,
        receivedAt: new Date(incoming.receivedAt).toISOString(),
        readAt: null,
      };
      // At most one open row per subject (the partial unique index): an earlier open one reads as resolved.
      if (subject !== null) {
        const earlier = openBySubject.get(subject);
        if (earlier) earlier.status = 'resolved';
        if (row.status === 'open') openBySubject.set(subject, row);
        else openBySubject.delete(subject);
      }
      rows.push(row);
    }
    return rows;
  }

  /** The baseline: drizzle inserts of 500 rows a statement, one transaction a page, into a fresh migrated database. */
  async function bareRun(events) {
    const rows = await bareRows(events);
    const db = await freshDatabase();
    // The same migrations, applied by the store; then a plain connection of the same driver.
    await (await openStore({ url: db.url, migrationsDir })).close();
    let client;
    let insertPages;
    if (kind === 'sqlite') {
      const { createClient } = await import(esmEntry(dbPackageDir, '@libsql/client'));
      const { drizzle } = await import(esmEntry(dbPackageDir, 'drizzle-orm/libsql'));
      client = createClient({ url: db.url });
      await client.execute('PRAGMA busy_timeout = 5000');
      const orm = drizzle(client);
      insertPages = async (pages) => {
        for (const page of pages) {
          await orm.run(sql`begin immediate`);
          await orm.insert(schema.notifications).values(page);
          await orm.run(sql`commit`);
          await nextTurn();
        }
      };
    } else {
      const { default: postgres } = await import(esmEntry(dbPackageDir, 'postgres'));
      const { drizzle } = await import(esmEntry(dbPackageDir, 'drizzle-orm/postgres-js'));
      client = postgres(db.url, { onnotice: () => {} });
      const orm = drizzle(client);
      insertPages = async (pages) => {
        for (const page of pages) {
          await orm.transaction(async (tx) => void (await tx.insert(schema.notifications).values(page)));
          await nextTurn();
        }
      };
    }
    try {
      const pages = pagesOf(rows);
      await nextTurn();
      return await timed(async () => {
        await insertPages(pages);
        return { stored: rows.length };
      });
    } finally {
      if (kind === 'sqlite') client.close();
      else await client.end();
      await dropDatabase(db);
    }
  }

  try {
    // Warm-up: JIT, module loading, the driver's first connections; not counted.
    if (!smoke) {
      const warm = allEvents.slice(0, 1_000);
      await bareRun(warm);
      await inboxRun(warm);
      await inboxRun(warm, { policy: true });
    }
    const bare = [];
    const inbox = [];
    const policy = [];
    const stalls = [];
    let last;
    for (let round = 1; round <= rounds; round++) {
      const b = await bareRun(allEvents);
      const i = await inboxRun(allEvents);
      const p = await inboxRun(allEvents, { policy: true });
      bare.push((allEvents.length / b.ms) * 1000);
      inbox.push((allEvents.length / i.ms) * 1000);
      policy.push((allEvents.length / p.ms) * 1000);
      last = i;
      stalls.push(i.stall);
      if (round === 1) console.log(`  ${kind}: the 20 rules each match ${Math.min(...ruleMatches.values())}–${Math.max(...ruleMatches.values())} of the ${allEvents.length} events`);
      console.log(
        `  ${kind} round ${round}: bare insert ${thousands(bare.at(-1))} ev/s (${(b.ms / 1000).toFixed(2)} s, longest event-loop stall ${Math.round(b.stall)} ms), ` +
          `inbox ${thousands(inbox.at(-1))} ev/s (${(i.ms / 1000).toFixed(2)} s, longest stall ${Math.round(i.stall)} ms; ${i.stored} stored, ${i.duplicates} duplicates), ratio ${(inbox.at(-1) / bare.at(-1)).toFixed(2)}; ` +
          `with 20 rules and quiet hours ${thousands(policy.at(-1))} ev/s (${(p.ms / 1000).toFixed(2)} s), ratio to the inbox without ${(policy.at(-1) / inbox.at(-1)).toFixed(2)}`,
      );
    }
    process.stdout.write(
      `RESULT ${JSON.stringify({ bare: median(bare), inbox: median(inbox), policy: median(policy), stall: median(stalls), rounds, events: allEvents.length, stored: last.stored, duplicates: last.duplicates })}\n`,
    );
  } finally {
    for (const name of made) {
      if (kind === 'postgres') await admin.unsafe(`drop database if exists "${name}" with (force)`).catch(() => undefined);
      else for (const suffix of ['', '-wal', '-shm']) rmSync(name + suffix, { force: true });
    }
    await admin?.end();
  }
}

// ---------------------------------------------------------------------------------------------------------

if (args['drain-worker']) {
  await drainWorker();
  process.exit(0);
}

sayIfSmoke();
const started = performance.now();
let failed = false;
try {
  const only = args.only;
  if (only !== undefined && only !== 'latency' && only !== 'drain' && only !== 'chat') throw new Error('--only is latency, drain or chat');
  if (only === 'chat') {
    const pg = await pgAdmin();
    cleanups.push(() => pg.end());
    await runChat({ pg, pgUrl: PG_URL, cleanups });
  } else {
    if (only !== 'drain') await runLatency();
    if (only !== 'latency') await runDrain();
  }
} catch (error) {
  failed = true;
  if (!interrupted) console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await cleanUp();
  console.log(`total ${Math.round((performance.now() - started) / 1000)} s`);
}
process.exit(failed ? 1 : 0);
