// Stopping the built dashboard (SIGTERM, as `docker stop` or Ctrl-C): it exits once the app's own cleanup is done,
// not on a timer, so a busy machine or a stalled link to the store cannot cut it short. What shows it: the relay
// poller's lease, which the cleanup gives up so that the next process polls at once instead of waiting out its 30 s.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import postgres from 'postgres';
import { postgresProblem, scratchPostgres } from '@dash/db/testing';
import { describe, expect, it } from 'vitest';
import { startDashboard } from './server.ts';
import { takeDownAfterEach, until } from './waiting.ts';

const postgresDown = await postgresProblem();
if (postgresDown) {
  if (process.env.CI === 'true') throw new Error(`CI=true needs the test Postgres, which is unreachable: ${postgresDown}`);
  console.warn(`\n*** The test Postgres is unreachable (${postgresDown}): the shutdown test is SKIPPED ***\n`);
}

const cleanup = takeDownAfterEach();

/**
 * A TCP link to the test Postgres that can stall: `stall(ms)` holds every client-to-server byte from now on for `ms`,
 * then sends them in order and lets the rest through (a network that stops for a moment).
 */
async function stallingLink() {
  let heldUntil = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(5432, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => {
      const wait = heldUntil - performance.now();
      if (wait <= 0) upstream.write(chunk);
      else setTimeout(() => upstream.write(chunk), wait);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.end());
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return {
    port: (server.address() as AddressInfo).port,
    stall: (ms: number) => (heldUntil = performance.now() + ms),
  };
}

describe.skipIf(postgresDown !== undefined && process.env.CI !== 'true')('stopping the dashboard', () => {
  it('waits for its cleanup while the link to the store stalls, and lets go of the relay poller’s lease', async () => {
    const database = await scratchPostgres();
    cleanup.push(() => database.drop());
    const link = await stallingLink();
    // A relay that is not there: the poller takes its lease and backs off, holding it.
    const dashboard = await startDashboard({
      env: {
        DATABASE_URL: database.url.replace(':5432/', `:${link.port}/`),
        CREDENTIALS_KEY: randomBytes(32).toString('hex'),
        WEBHOOK_RELAY_URL: 'http://127.0.0.1:9/api',
        RELAY_POLL_SECRET: randomBytes(24).toString('hex'),
      },
    });
    cleanup.push(() => dashboard.stop());
    const sql = postgres(database.url, { onnotice: () => {}, max: 1 });
    cleanup.push(() => sql.end());
    const leases = async () => (await sql`select holder from leases where name = 'relay-poller'`).length;
    await until(leases, (held) => held === 1, 10_000, 'the poller’s lease taken');

    // The link stops for 2 s as the dashboard stops: the cleanup's release waits behind it.
    link.stall(2_000);
    const stopping = performance.now();
    await dashboard.stop();
    expect(performance.now() - stopping).toBeGreaterThan(2_000);
    expect(dashboard.output()).not.toMatch(/did not finish/);
    expect(await leases()).toBe(0);
  });
});
