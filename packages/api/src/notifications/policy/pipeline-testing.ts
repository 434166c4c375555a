import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testClock } from '@dash/connectors/testing';
import type { DeliveryRow } from '@dash/db';
import { MYSQL_SERVER, mysqlProblem, PG_SERVER, postgresProblem } from '@dash/db/testing';
import type { RelayEvent } from '@dash/webhooks';
import { afterAll } from 'vitest';
import { createTestApi, notificationStream, restClient, testDatabases, type DatabaseKind } from '../../testing.ts';
import { cleanupAfterEach } from '../../testing/cleanup.ts';
import { berlinNights } from '../test-events.ts';

// What the tests of the notification pipeline (pipeline-*.test.ts) share: the policy wired into the inbox, on SQLite,
// Postgres and MySQL, with an injected clock: the research's test table (../shared/research/notifications.md §3.3) as
// far as it applies. Every event is in the inbox at once; these tests are about what *interrupts* (the outbox of
// browser notifications) and when. Each file runs on databases of its own (copies of templates it migrates), so any
// two of them can run at once.

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

export const pgProblem = await postgresProblem();
export const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): the notification policy is not tested on it. ***\n`);
export const myProblem = await mysqlProblem();
if (myProblem && !inCI) console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): the notification policy is not tested on MySQL. ***\n`);

export const iso = (ms: number) => new Date(ms).toISOString();

/** The databases each file runs the pipeline on: `describe.for(pipelineDatabases)('the notification pipeline on $kind', …)`. */
export const pipelineDatabases = [
  { kind: 'SQLite' as const, skip: false },
  { kind: 'Postgres' as const, skip: pgProblem !== undefined && !inCI },
  { kind: 'MySQL' as const, skip: myProblem !== undefined && !inCI },
];

export const T0 = Date.parse('2026-11-23T10:00:00Z');
// Quiet hours: 22:00–07:00 in Europe/Berlin (UTC+1 in November).
export const NIGHT = Date.parse('2026-11-23T22:10:00Z'); // 23:10 in Berlin
export const MORNING = Date.parse('2026-11-24T06:00:00Z'); // 07:00 in Berlin

/**
 * A test file's dashboards: registers the file's hooks (what `cleanup` was given undone after each test; the
 * databases' templates dropped after all) and answers `on(kind)`, the dashboards of the pipeline on that database.
 * Call once at the top of a test file.
 */
export function pipelineTests() {
  const cleanup = cleanupAfterEach();
  const databases = testDatabases();
  afterAll(() => databases.drop(), 60_000);

  function on(kind: DatabaseKind) {
    /** A dashboard with a clock of its own (no scheduler of its own: the test ticks), on a fresh store or on `reuse`'s. */
    async function dashboard(start: number, reuse?: { dir: string; databaseUrl?: string }) {
      let databaseUrl = reuse?.databaseUrl;
      const dir = reuse?.dir ?? mkdtempSync(join(tmpdir(), 'dash-policy-'));
      if (!reuse) {
        const database = await databases.fresh(kind, dir);
        // Dropped beside the next test; the file's afterAll waits for it.
        cleanup.push(() => Promise.resolve(void database.drop()));
        databaseUrl = database.databaseUrl;
        cleanup.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
      }
      const clock = testClock(start);
      const api = await createTestApi({ dir, clock, scheduler: false, ...(databaseUrl ? { databaseUrl } : {}) });
      let disposed = false;
      const dispose = async () => {
        if (disposed) return;
        disposed = true;
        await api.dispose({ keepFiles: true });
      };
      cleanup.push(dispose);
      const inbox = api.ctx.notifications.inbox;
      return {
        ...api,
        dispose,
        clock,
        inbox,
        reuse: { dir, ...(databaseUrl ? { databaseUrl } : {}) },
        call: restClient(() => api.caller),
        /** Ingests at the clock's time. */
        ingest: (...batch: RelayEvent[]) => inbox.ingest(batch),
        /** Moves the clock to `at` and ticks; answers what the tick sent. */
        async tickAt(at: number) {
          clock.advance(at - clock.now());
          return (await inbox.tick()).sent;
        },
        /** Every interruption in the outbox, oldest first (read outside a transaction: the test's ingests and ticks are done). */
        async outbox(): Promise<DeliveryRow[]> {
          const statuses = ['held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty'] as const;
          const all = await api.store.notifications.read(async (ops) => (await Promise.all(statuses.map((status) => ops.deliveriesWithStatus(status)))).flat());
          return all.sort((a, b) => a.createdAt - b.createdAt || (a.seq ?? 0) - (b.seq ?? 0));
        },
        async sent() {
          return (await this.outbox()).filter((d) => d.status === 'sent');
        },
        list: () => api.caller.notifications.list({}),
      };
    }
    type Dashboard = Awaited<ReturnType<typeof dashboard>>;

    /** A live stream with its interruptions (see `notificationStream`), listening once this returns; closed after the test. */
    async function listen(dash: Dashboard) {
      const stream = await notificationStream(dash.ctx, { interrupts: true });
      cleanup.push(stream.close);
      // The generator subscribes on its first pull: start one, wait until it listens, hand it out first.
      let first: ReturnType<typeof stream.next> | undefined = stream.next();
      while (dash.inbox.hub.listenerCount === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      return {
        next: () => {
          const result = first ?? stream.next();
          first = undefined;
          return result;
        },
      };
    }

    /** The trace of the row's latest event, as the inbox shows it. */
    const traceOf = async (dash: Dashboard, title: string) => (await dash.list()).notifications.find((n) => n.title === title)?.decision?.trace ?? [];

    async function quietDashboard(start = NIGHT) {
      const dash = await dashboard(start);
      await dash.caller.notifications.saveQuietHours(berlinNights);
      return dash;
    }

    return { dashboard, listen, traceOf, quietDashboard };
  }

  return { cleanup, on };
}
/** A dashboard of `on(kind).dashboard`. */
export type Dashboard = Awaited<ReturnType<ReturnType<ReturnType<typeof pipelineTests>['on']>['dashboard']>>;
