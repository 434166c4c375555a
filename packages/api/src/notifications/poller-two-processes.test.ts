import { PG_SERVER, postgresProblem, scratchPostgres } from '@dash/db/testing';
import { POLL_SECRET } from '@dash/relay/testing';
import { isTrackedEnvelope } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { createCaller } from '../root.ts';
import { until } from '../testing/waiting.ts';
import { manualClock, pollerTests, post, relayEnv, signed, type Relay } from './poller-testing.ts';

// Two dashboard processes on one store, a SQLite file or a scratch Postgres database: one polls the relay at a time
// (the lease), the other takes over when it stops or dies, and every event arrives once.

const { cleanup, startRelay, dashboard } = pollerTests();

const pgProblem = await postgresProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): two dashboards are tested on SQLite only. ***\n`);

describe.for([
  { kind: 'SQLite file', skip: false },
  { kind: 'Postgres database', skip: pgProblem !== undefined && !inCI },
])('two dashboard processes on one $kind', ({ kind, skip }) => {
  /** Two dashboards on one store: a SQLite file in a's directory, or a scratch Postgres database. */
  async function pair(relay: Relay) {
    const clock = manualClock();
    let databaseUrl: string | undefined;
    if (kind === 'Postgres database') {
      const scratch = await scratchPostgres();
      databaseUrl = scratch.url;
      // Dropped after both dashboards are gone (cleanup runs last-in first-out).
      cleanup.push(() => scratch.drop());
    }
    const a = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock, ...(databaseUrl ? { databaseUrl } : {}) });
    const b = await dashboard({ dir: a.dir, credentialsKey: a.credentialsKey, relay: relayEnv(relay.url(), POLL_SECRET), clock, ...(databaseUrl ? { databaseUrl } : {}) });
    return { a, b, clock };
  }

  it.skipIf(skip)('only one polls; when it stops, the other takes over and every event arrives once', async () => {
    const relay = await startRelay();
    const { a, b, clock } = await pair(relay);
    a.poller.start();
    await until(() => relay.store.notices!.watching() === 1);
    b.poller.start();
    await until(() => b.poller.status().state === 'standby' && clock.sleeping() === 1);
    expect(relay.polls()).toHaveLength(0); // a's poll is still held: answered requests only

    // A browser connected to b (which does not poll) hears of what a stored, live.
    const abort = new AbortController();
    cleanup.push(() => abort.abort());
    const stream = (await createCaller(b.ctx, abort.signal).notifications.stream())[Symbol.asyncIterator]();
    const heard = stream.next();

    await post(relay, [signed.unmatched(1)]);
    await until(async () => (await a.inbox()).length === 1);
    const first = (await heard).value as unknown;
    expect(isTrackedEnvelope(first) && first[1]).toMatchObject({ kind: 'notification', notification: { url: 'https://github.com/acme/app/pull/1' }, unreadCount: 1 });
    abort.abort();
    await until(() => relay.store.notices!.watching() === 1);
    expect(a.poller.status().state).toBe('polling');
    // b looks again every 10 s, and stays in standby while a holds the lease.
    clock.advance(10_000);
    await until(() => clock.sleeping() === 1);
    expect(b.poller.status().state).toBe('standby');
    expect((await b.call('GET', '/api/relay/status')).json).toMatchObject({ configured: true, poller: { state: 'standby' } });
    expect(relay.store.notices!.watching()).toBe(1);

    await a.poller.stop();
    await until(() => relay.store.notices!.watching() === 0);
    expect(a.poller.status().state).toBe('stopped');
    clock.advance(10_000);
    await until(() => relay.store.notices!.watching() === 1);

    await post(relay, [signed.unmatched(2)]);
    await until(async () => (await b.inbox()).length === 2);
    // Its state turns to polling once the poll that stored the event has returned, just after the commit.
    await until(() => b.poller.status().state === 'polling');
    const inbox = await a.inbox();
    expect(inbox.map((n) => n.url)).toEqual([2, 1].map((n) => `https://github.com/acme/app/pull/${n}`));
    expect(relay.polls().every((p) => p.status === 200)).toBe(true);
  });

  it.skipIf(skip)('when the polling process dies without letting go, the other takes over once its 30 s lease runs out', async () => {
    const relay = await startRelay();
    const { a, b, clock } = await pair(relay);
    a.poller.start();
    await until(() => relay.store.notices!.watching() === 1);
    b.poller.start();
    await until(() => b.poller.status().state === 'standby' && clock.sleeping() === 1);

    // a dies: its database goes first, so it cannot give the lease up, then its loop ends.
    await a.store.close();
    await a.poller.stop();
    await until(() => relay.store.notices!.watching() === 0);

    for (let waited = 10_000; waited < 30_000; waited += 10_000) {
      clock.advance(10_000);
      await until(() => clock.sleeping() === 1);
      expect(b.poller.status().state, `after ${waited} ms`).toBe('standby');
    }
    expect(relay.store.notices!.watching()).toBe(0);
    clock.advance(10_000);
    await until(() => relay.store.notices!.watching() === 1);

    await post(relay, [signed.unmatched(1), signed.unmatched(2)]);
    await until(async () => (await b.inbox()).length === 2);
    // Its state turns to polling once the poll that stored the event has returned, just after the commit.
    await until(() => b.poller.status().state === 'polling');
    expect((await b.inbox()).map((n) => n.url)).toEqual([2, 1].map((n) => `https://github.com/acme/app/pull/${n}`));
  });
});
