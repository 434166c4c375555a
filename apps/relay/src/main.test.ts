import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleRelay } from '../build.mjs';
import { redisStore } from './store/redis.ts';
import { freePort, hasRedisServer, startRedis } from './store/redis-server.ts';
import { ADMIN_SECRET, githubDelivery, pollHeaders, POLL_SECRET, relay, until } from './testing.ts';

/**
 * The relay process as it is deployed: src/main.ts bundled by the relay's own build into one file (in a scratch
 * directory of this file's), which Node runs alone. Each of the five processes here starts on some 0.5 s of CPU,
 * where src/main.ts under tsx took 4 s.
 */
const bundleDir = mkdtempSync(join(tmpdir(), 'dash-relay-main-'));
const main = await bundleRelay(join(bundleDir, 'relay.mjs'));
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));
const root = fileURLToPath(new URL('../../..', import.meta.url));
const withRedisServer = await hasRedisServer();
if (!withRedisServer) console.warn('*** redis-server is not installed: the relay process is not tested on Redis ***');

/** This process's environment without anything the relay reads, so only what a test sets counts. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(REDIS_URL|REDIS_CLUSTER_URLS|KV_REST_API_|RELAY_|WEBHOOK_SECRET_|ERROR_TRACKER_DSN|ALLOWED_ORIGIN|TRUST_PROXY)/.test(name)) env[name] = value;
  }
  return env;
}

describe('the relay process', () => {
  it('answers its held long polls and exits within moments of SIGTERM, not after their wait', async () => {
    const port = await freePort();
    const relay = spawn(process.execPath, [main], {
      cwd: root,
      env: { ...cleanEnv(), RELAY_STORE: 'memory', RELAY_HOST: '127.0.0.1', RELAY_PORT: String(port), RELAY_POLL_SECRET: POLL_SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    relay.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    relay.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(relay, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      const base = `http://127.0.0.1:${port}`;
      await until(() => Promise.resolve(output), (said) => said.includes('listening on') || relay.exitCode !== null, 15_000, 'listening (the relay process)', 50);
      if (!output.includes('listening on')) throw new Error(`The relay did not start:\n${output}`);
      const first = await fetch(`${base}/api/events`, { headers: pollHeaders() });
      expect(await first.json()).toEqual([]);
      const cursor = first.headers.get('x-relay-timestamp');
      const held = fetch(`${base}/api/events?since=${cursor}&wait=25`, { headers: pollHeaders() }).then(async (res) => ({
        status: res.status,
        cursor: res.headers.get('x-relay-timestamp'),
        body: (await res.json()) as unknown,
        at: performance.now(),
      }));
      // Held: still unanswered a while after it was sent.
      const early = await Promise.race([held, new Promise((r) => setTimeout(r, 300, 'held'))]);
      expect(early).toBe('held');

      const signalled = performance.now();
      relay.kill('SIGTERM');
      const answer = await held;
      expect([answer.status, answer.body, answer.cursor]).toEqual([200, [], cursor]);
      expect(answer.at - signalled).toBeLessThan(500);
      expect(await exited).toEqual([0, null]);
      // Well before the 5 s the relay gives requests in flight.
      expect(performance.now() - signalled).toBeLessThan(1_500);
    } finally {
      relay.kill('SIGKILL');
    }
  });

  it.skipIf(!withRedisServer)('sends the refusal counts it still holds to Redis when it stops on SIGTERM', async () => {
    const redisPort = await freePort();
    const redis = await startRedis(redisPort);
    const url = `redis://127.0.0.1:${redisPort}`;
    const port = await freePort();
    const relayProcess = spawn(process.execPath, [main], {
      cwd: root,
      env: { ...cleanEnv(), REDIS_URL: url, RELAY_HOST: '127.0.0.1', RELAY_PORT: String(port), RELAY_POLL_SECRET: POLL_SECRET, TRUST_PROXY: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    relayProcess.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    relayProcess.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(relayProcess, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const store = await redisStore(url, () => {});
    // Reads what the store holds: this app has counted nothing itself.
    const { app: reader } = relay(store);
    let reads = 0;
    const counts = async () => ((await (await reader.request('/api/refusals', { headers: pollHeaders(`198.51.100.${++reads}`) })).json()) as { counts: unknown[] }).counts;
    try {
      await until(() => Promise.resolve(output), (said) => said.includes('listening on') || relayProcess.exitCode !== null, 15_000, 'listening (the relay process)', 50);
      if (!output.includes('listening on')) throw new Error(`The relay did not start:\n${output}`);
      const forged = githubDelivery({ secret: 'wrong' });
      const posted = performance.now();
      expect((await fetch(`http://127.0.0.1:${port}/api/webhooks/code_host`, { method: 'POST', body: forged.body, headers: forged.headers })).status).toBe(401);
      const before = await counts();
      // Under a second after the webhook, its count is still held by the process (sent every 2 s), not in Redis.
      if (performance.now() - posted < 1_000) expect(before).toEqual([]);
      relayProcess.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      expect(await counts()).toEqual([expect.objectContaining({ integration: 'code_host', reason: 'bad_signature', count: 1 })]);
    } finally {
      relayProcess.kill('SIGKILL');
      await store.close();
      redis.kill('SIGKILL');
    }
  });

  it('refuses to start with a poll or admin secret under 32 characters, saying how to make one and never echoing it', async () => {
    const refused = [{ RELAY_POLL_SECRET: 'hunter2-poll' }, { RELAY_POLL_SECRET: POLL_SECRET, RELAY_ADMIN_SECRET: `${ADMIN_SECRET},hunter2-adm` }];
    await Promise.all(refused.map(async (secrets) => {
      const port = await freePort();
      const relay = spawn(process.execPath, [main], {
        cwd: root,
        env: { ...cleanEnv(), RELAY_STORE: 'memory', RELAY_HOST: '127.0.0.1', RELAY_PORT: String(port), ...secrets },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      relay.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      relay.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(relay, 'exit')) as [number | null];
      expect(code).toBe(1);
      expect(output).toMatch(/not starting: .*(RELAY_POLL_SECRET|RELAY_ADMIN_SECRET).* at least 32\. Make one with `openssl rand -hex 32`/);
      expect(output).not.toContain('hunter2');
      // It exited before listening. (Its port is not probed: once the process is gone, another file's server may have
      // taken the port, as the sandbox's SendGrid did in a fresh clone's run, whose contract check then failed on the probe.)
      expect(output).not.toContain('listening on');
    }));
  });

  it('refuses to start with both REDIS_URL and REDIS_CLUSTER_URLS, or a malformed cluster URL, naming the variable', async () => {
    const refused = [
      { env: { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_URLS: 'redis://127.0.0.1:7000' }, says: 'REDIS_URL and REDIS_CLUSTER_URLS are both set' },
      { env: { REDIS_CLUSTER_URLS: 'redis://127.0.0.1:7000,127.0.0.1:7001' }, says: 'entry 2 of REDIS_CLUSTER_URLS has "127.0.0.1:7001", which is not a redis:// or rediss:// URL' },
    ];
    await Promise.all(refused.map(async ({ env, says }) => {
      const relay = spawn(process.execPath, [main], {
        cwd: root,
        env: { ...cleanEnv(), RELAY_HOST: '127.0.0.1', RELAY_PORT: String(await freePort()), RELAY_POLL_SECRET: POLL_SECRET, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      relay.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      relay.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(relay, 'exit')) as [number | null];
      expect(code).toBe(1);
      expect(output).toContain(`not starting: ${says}`);
    }));
  });
});
