import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testClock } from '@dash/connectors/testing';
import type { DeliveryRow } from '@dash/db';
import { MYSQL_SERVER, mysqlProblem, PG_SERVER, postgresProblem } from '@dash/db/testing';
import type { RelayEvent } from '@dash/webhooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestApi, notificationStream, restClient, testDatabases } from '../../testing.ts';
import { berlinNights, events, rule } from '../test-events.ts';

// The notification policy wired into the inbox, on SQLite, Postgres and MySQL, with an injected clock: the research's
// test table (../shared/research/notifications.md §3.3) as far as it applies. Every event is in the inbox at once;
// these tests are about what *interrupts* (the outbox of browser notifications) and when.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const pgProblem = await postgresProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): the notification policy is not tested on it. ***\n`);
const myProblem = await mysqlProblem();
if (myProblem && !inCI) console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): the notification policy is not tested on MySQL. ***\n`);

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
const databases = testDatabases();
afterAll(() => databases.drop(), 60_000);

const iso = (ms: number) => new Date(ms).toISOString();

describe.for([
  { kind: 'SQLite' as const, skip: false },
  { kind: 'Postgres' as const, skip: pgProblem !== undefined && !inCI },
  { kind: 'MySQL' as const, skip: myProblem !== undefined && !inCI },
])('the notification pipeline on $kind', ({ kind, skip }) => {
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

  const T0 = Date.parse('2026-11-23T10:00:00Z');
  /** The trace of the row's latest event, as the inbox shows it. */
  const traceOf = async (dash: Dashboard, title: string) => (await dash.list()).notifications.find((n) => n.title === title)?.decision?.trace ?? [];

  it.skipIf(skip)('holds an outage 120 s: a recovery within the hold interrupts nobody, and the row still shows the blip (F1)', async () => {
    const dash = await dashboard(T0);
    await dash.ingest(events.down('api', '1', T0));
    expect((await dash.outbox()).map((d) => d.status)).toEqual(['held']);
    dash.clock.advance(60 * SECOND);
    await dash.ingest(events.up('api', '1', T0 + 60 * SECOND));
    expect(await dash.tickAt(T0 + 3 * MINUTE)).toEqual([]);
    expect((await dash.outbox()).map((d) => [d.purpose, d.status])).toEqual([['first', 'cancelled']]);
    const [row] = (await dash.list()).notifications;
    expect(row).toMatchObject({ title: 'Monitor down: api', resolved: true, eventCount: 2, readAt: null });
    expect(row?.decision?.trace.at(-1)).toMatchObject({ stage: 'flap', verdict: 'cancelled', why: expect.stringContaining('down 1 min') });
  });

  it.skipIf(skip)('sends an outage that outlasts the hold once, when the hold ends (F2), and its recovery on the same tag (F4)', async () => {
    const dash = await dashboard(T0);
    await dash.ingest(events.down('api', '1', T0));
    expect(await dash.tickAt(T0 + 119 * SECOND)).toEqual([]);
    const sent = await dash.tickAt(T0 + 120 * SECOND);
    expect(sent).toEqual([expect.objectContaining({ purpose: 'first', message: expect.objectContaining({ title: 'Monitor down: api', tag: 'betterstack:monitor:api', requireInteraction: true }) })]);
    expect(await dash.tickAt(T0 + 10 * MINUTE)).toEqual([]);

    const result = await dash.ingest(events.up('api', '1', T0 + 10 * MINUTE));
    expect(result.sent).toEqual([
      expect.objectContaining({ purpose: 'resolve', message: expect.objectContaining({ tag: 'betterstack:monitor:api', renotify: false, body: 'Down 10 min, recovered' }) }),
    ]);
    expect((await dash.sent()).map((d) => d.purpose)).toEqual(['first', 'resolve']);
  });

  /** Each event of the thread titled `title`, with its own trace, as GET /api/notifications/:id/events answers it. */
  async function threadEvents(dash: Dashboard, title: string) {
    const row = (await dash.list()).notifications.find((n) => n.title === title);
    const res = await dash.call('GET', `/api/notifications/${encodeURIComponent(row?.id ?? 'none')}/events`);
    expect(res.status).toBe(200);
    return (res.json as unknown as { events: { type: string; decision: { trace: { stage: string; verdict: string; why: string; decidedAt?: string }[] } | null }[] }).events;
  }
  /** The stage, verdict and time of each pipeline line of a trace (the policy's own lines left out). */
  const pipelineLines = (trace: readonly { stage: string; verdict: string; decidedAt?: string }[] = []) =>
    trace.filter((entry) => entry.stage !== 'preference' && entry.stage !== 'rule').map((entry) => [entry.stage, entry.verdict, entry.decidedAt ?? null]);

  it.skipIf(skip)("keeps each event's own trace: the outage says it was held and then sent, its recovery says its own (issue 26, 3)", async () => {
    const dash = await dashboard(T0);
    await dash.ingest(events.down('api', '1', T0));
    await dash.tickAt(T0 + 2 * MINUTE);
    // Before any recovery the thread shows its outage's trace, with the scheduler's line.
    expect(pipelineLines(await traceOf(dash, 'Monitor down: api'))).toEqual([
      ['flap', 'held', null],
      ['delivery', 'sent', iso(T0 + 2 * MINUTE)],
    ]);
    expect((await traceOf(dash, 'Monitor down: api')).at(-1)?.why).toBe(
      'still down after the 2 min hold; sent to the open dashboard tabs: a browser notification where the dashboard is hidden, a toast where it is in view',
    );
    dash.clock.advance(8 * MINUTE);
    await dash.ingest(events.up('api', '1', T0 + 10 * MINUTE));

    const [outage, recovery] = await threadEvents(dash, 'Monitor down: api');
    expect(outage?.type).toBe('monitor.down');
    expect(pipelineLines(outage?.decision?.trace)).toEqual([
      ['flap', 'held', null],
      ['delivery', 'sent', iso(T0 + 2 * MINUTE)],
    ]);
    expect(recovery?.type).toBe('monitor.up');
    expect(pipelineLines(recovery?.decision?.trace)).toEqual([['delivery', 'sent', null]]);
    // The thread's own decision is its latest event's: the recovery's.
    expect(pipelineLines(await traceOf(dash, 'Monitor down: api'))).toEqual([['delivery', 'sent', null]]);
  });

  it.skipIf(skip)("adds 'cancelled' to a held outage's trace when its recovery comes within the hold, in the same batch or a later one (issue 26, 3)", async () => {
    const dash = await dashboard(T0);
    await dash.ingest(events.down('api', '1', T0));
    dash.clock.advance(MINUTE);
    await dash.ingest(events.up('api', '1', T0 + MINUTE));
    await dash.ingest(events.down('web', '2', T0 + MINUTE), events.up('web', '2', T0 + MINUTE));
    for (const monitor of ['api', 'web']) {
      const [outage, recovery] = await threadEvents(dash, `Monitor down: ${monitor}`);
      expect(pipelineLines(outage?.decision?.trace)).toEqual([
        ['flap', 'held', null],
        ['flap', 'cancelled', iso(T0 + MINUTE)],
      ]);
      expect(outage?.decision?.trace.at(-1)?.why).toMatch(/^recovered at 10:01, within the hold \(down \d+ (min|s)\): nobody was interrupted$/);
      expect(pipelineLines(recovery?.decision?.trace)).toEqual([['flap', 'cancelled', null]]);
    }
    // Nothing is left held: the tick has nothing to release and adds no line.
    expect(await dash.tickAt(T0 + 5 * MINUTE)).toEqual([]);
    expect((await threadEvents(dash, 'Monitor down: api'))[0]?.decision?.trace).toHaveLength(
      (await threadEvents(dash, 'Monitor down: web'))[0]?.decision?.trace.length ?? 0,
    );
  });

  it.skipIf(skip)('answers 404 for the events of a notification that does not exist', async () => {
    const dash = await dashboard(T0);
    const missing = await dash.call('GET', '/api/notifications/no-such-row/events');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: expect.objectContaining({ code: 'NOT_FOUND', message: 'No notification "no-such-row"' }) });
  });

  it.skipIf(skip)('notifies a second outage of the same monitor as a new thread (D4)', async () => {
    const dash = await dashboard(T0);
    await dash.ingest(events.down('api', '1', T0));
    await dash.tickAt(T0 + 2 * MINUTE);
    dash.clock.advance(MINUTE);
    await dash.ingest(events.up('api', '1', dash.clock.now()));
    dash.clock.advance(HOUR);
    await dash.ingest(events.down('api', '2', dash.clock.now()));
    await dash.tickAt(dash.clock.now() + 2 * MINUTE);
    expect((await dash.sent()).map((d) => d.purpose)).toEqual(['first', 'resolve', 'first']);
    expect((await dash.list()).notifications.map((n) => n.resolved)).toEqual([false, true]);
  });

  it.skipIf(skip)('sends one "flapping" notice on the third outage in 30 min, nothing for the next ones, and "stable again" after 15 quiet minutes (F3)', async () => {
    const dash = await dashboard(T0);
    for (let cycle = 0; cycle < 5; cycle++) {
      const start = T0 + cycle * 5 * MINUTE;
      await dash.tickAt(start);
      await dash.ingest(events.down('api', `c${cycle}`, start));
      await dash.tickAt(start + 3 * MINUTE);
      await dash.ingest(events.up('api', `c${cycle}`, start + 3 * MINUTE));
    }
    const lastChange = T0 + 4 * 5 * MINUTE + 3 * MINUTE;
    expect(await dash.tickAt(lastChange + 15 * MINUTE - 1)).toEqual([]);
    const end = await dash.tickAt(lastChange + 15 * MINUTE);
    expect(end).toEqual([expect.objectContaining({ purpose: 'flap_end', message: expect.objectContaining({ title: 'Monitor down: api: stable again' }) })]);
    // Cycles 1 and 2 interrupt (down after the hold, and the recovery); the third starts the flap; 4 and 5 are quiet.
    expect((await dash.sent()).map((d) => d.purpose)).toEqual(['first', 'resolve', 'first', 'resolve', 'flap_start', 'flap_end']);
    expect((await dash.list()).notifications).toHaveLength(5);
    expect(await traceOf(dash, 'Monitor down: api')).toEqual(expect.arrayContaining([expect.objectContaining({ stage: 'flap' })]));
  });

  it.skipIf(skip)('announces the recovery of an outage told by a flap notice, replacing it in the browser (issue 26, 1)', async () => {
    const dash = await dashboard(T0);
    // Three short outages start a flap; the fourth stays down through the flap's end ("still down").
    for (let cycle = 0; cycle < 3; cycle++) {
      const start = T0 + cycle * 5 * MINUTE;
      await dash.tickAt(start);
      await dash.ingest(events.down('api', `c${cycle}`, start));
      await dash.tickAt(start + 3 * MINUTE);
      await dash.ingest(events.up('api', `c${cycle}`, start + 3 * MINUTE));
    }
    const down = T0 + 15 * MINUTE;
    await dash.tickAt(down);
    await dash.ingest(events.down('api', 'c3', down));
    const end = await dash.tickAt(down + 15 * MINUTE);
    expect(end).toEqual([expect.objectContaining({ purpose: 'flap_end', message: expect.objectContaining({ title: 'Monitor down: api: still down', tag: 'betterstack:monitor:api' }) })]);
    dash.clock.advance(HOUR);
    const recovery = await dash.ingest(events.up('api', 'c3', dash.clock.now()));
    expect(recovery.sent).toEqual([
      expect.objectContaining({ purpose: 'resolve', status: 'sent', message: expect.objectContaining({ tag: 'betterstack:monitor:api', severity: 'success', renotify: false }) }),
    ]);
  });

  it.skipIf(skip)('announces the recovery of an outage the digest told about (issue 26, 1)', async () => {
    const dash = await dashboard(Date.parse('2026-11-24T00:10:00Z'));
    await dash.caller.notifications.saveQuietHours(berlinNights);
    await dash.ingest(events.issue('1', dash.clock.now()));
    expect((await dash.tickAt(MORNING)).map((d) => d.purpose)).toEqual(['digest']);
    dash.clock.advance(HOUR);
    const recovery = await dash.ingest(events.issue('1', dash.clock.now(), 'resolved'));
    expect(recovery.sent).toEqual([expect.objectContaining({ purpose: 'resolve', message: expect.objectContaining({ tag: 'sentry:issue:1' }) })]);
  });

  it.skipIf(skip)('never calls failed deploys or Sentry issues flapping: each failure is a new notification (issue 26, 2)', async () => {
    const dash = await dashboard(T0);
    for (let n = 0; n < 4; n++) {
      const at = T0 + n * 5 * MINUTE;
      dash.clock.advance(at - dash.clock.now());
      const failed = await dash.ingest(events.deploy(`f${n}`, at));
      expect(failed.sent.map((d) => [d.purpose, d.message.title])).toEqual([['first', 'Deploy failed: shop (production)']]);
      dash.clock.advance(MINUTE);
      await dash.ingest(events.deploy(`s${n}`, at + MINUTE, { state: 'succeeded' }));
      dash.clock.advance(MINUTE);
      const issue = await dash.ingest({ ...events.issue('i', at + 2 * MINUTE), sourceEventId: `sentry:issue:i:created:${n}` });
      expect(issue.sent.map((d) => d.purpose)).toEqual(['first']);
      dash.clock.advance(MINUTE);
      await dash.ingest({ ...events.issue('i', at + 3 * MINUTE, 'resolved'), sourceEventId: `sentry:issue:i:resolved:${n}` });
    }
    expect((await dash.outbox()).map((d) => d.purpose)).not.toContain('flap_start');
  });

  it.skipIf(skip)('takes the flap hold from the settings (default 120 s), refusing a bad one with 400 and keeping the stored one (issue 26, 2)', async () => {
    const dash = await dashboard(T0);
    expect((await dash.caller.notifications.policy()).flapHoldSeconds).toBe(120);
    const saved = await dash.call('PUT', '/api/notifications/flap-hold', { seconds: 30 });
    expect(saved.status).toBe(200);
    expect((saved.json as { flapHoldSeconds: number }).flapHoldSeconds).toBe(30);
    for (const body of [{ seconds: -1 }, { seconds: 1.5 }, { seconds: 3_601 }, { seconds: '30' }, {}]) {
      const res = await dash.call('PUT', '/api/notifications/flap-hold', body);
      expect(res.status).toBe(400);
      expect((res.json as { error: { code: string } }).error.code).toBeTruthy();
    }
    expect((await dash.caller.notifications.policy()).flapHoldSeconds).toBe(30);
    await dash.ingest(events.down('api', '1', T0));
    expect((await dash.outbox()).map((d) => [d.status, d.dueAt])).toEqual([['held', T0 + 30 * SECOND]]);
    expect(await traceOf(dash, 'Monitor down: api')).toEqual(expect.arrayContaining([expect.objectContaining({ stage: 'flap', verdict: 'held', why: expect.stringContaining('held 30 s') })]));
    expect(await dash.tickAt(T0 + 29 * SECOND)).toEqual([]);
    expect((await dash.tickAt(T0 + 30 * SECOND)).map((d) => d.purpose)).toEqual(['first']);
  });

  it.skipIf(skip)('does not interrupt for a recovery that arrives before its outage (F5)', async () => {
    const dash = await dashboard(T0);
    const result = await dash.ingest(events.up('api', '9', T0));
    expect(result.sent).toEqual([]);
    expect(await dash.outbox()).toEqual([]);
    expect((await dash.list()).notifications).toEqual([expect.objectContaining({ resolved: true, eventCount: 1 })]);
  });

  // --- quiet hours: 22:00–07:00 in Europe/Berlin (UTC+1 in November) ---
  const NIGHT = Date.parse('2026-11-23T22:10:00Z'); // 23:10 in Berlin
  const MORNING = Date.parse('2026-11-24T06:00:00Z'); // 07:00 in Berlin

  async function quietDashboard(start = NIGHT) {
    const dash = await dashboard(start);
    await dash.caller.notifications.saveQuietHours(berlinNights);
    return dash;
  }

  it.skipIf(skip)('defers a warning at 23:10 to one digest at 07:00: nothing at 06:59, exactly one at 07:00 (Q1)', async () => {
    const dash = await quietDashboard();
    const result = await dash.ingest(events.issue('1', NIGHT));
    expect(result.changed).toHaveLength(1);
    expect(result.sent).toEqual([]);
    const dry = await dash.caller.notifications.dryRun({ event: { integration: 'error_tracker', type: 'error.issue_created', severity: 'warning', title: 'x', transition: null } });
    expect(dry.delivery.browser).toMatchObject({ status: 'deferred', until: iso(MORNING) });
    expect((await dash.outbox()).map((d) => [d.status, d.dueAt])).toEqual([['deferred', MORNING]]);
    expect((await traceOf(dash, 'TypeError in checkout (1)')).at(-1)).toMatchObject({ stage: 'quiet_hours', verdict: 'deferred', why: 'quiet hours until 07:00: kept for the digest' });
    expect(await dash.tickAt(MORNING - MINUTE)).toEqual([]);
    const digest = await dash.tickAt(MORNING);
    expect(digest).toHaveLength(1);
    expect(digest[0]?.message.title).toBe('While quiet hours were on (22:00–07:00): 1 still open');
    expect(digest[0]?.message.body).toBe('TypeError in checkout (1) — still unresolved since 23:10');
    expect(await dash.tickAt(MORNING + MINUTE)).toEqual([]);
    // Its trace no longer ends at "kept for the digest": it says the digest took it.
    expect((await traceOf(dash, 'TypeError in checkout (1)')).at(-1)).toEqual({
      stage: 'quiet_hours',
      id: 'quiet_hours',
      name: 'Quiet hours',
      verdict: 'sent',
      why: 'went out in the 07:00 digest',
      decidedAt: iso(MORNING),
    });
  });

  it.skipIf(skip)("gives each of 300 deferred events its digest line, past one statement's slice of ids (issue 26, 3)", async () => {
    const dash = await quietDashboard();
    await dash.ingest(...Array.from({ length: 300 }, (_, i) => events.issue(String(i), NIGHT)));
    expect(await dash.tickAt(MORNING)).toHaveLength(1);
    const rows = await dash.store.notifications.list({ limit: 1_000 });
    expect(rows).toHaveLength(300);
    expect(rows.filter((row) => row.decision?.trace.at(-1)?.why === 'went out in the 07:00 digest')).toHaveLength(300);
  });

  it.skipIf(skip)('lets a critical event through quiet hours at once (Q2)', async () => {
    const dash = await quietDashboard();
    const result = await dash.ingest(events.deploy('d1', NIGHT));
    expect(result.sent).toEqual([expect.objectContaining({ purpose: 'first', message: expect.objectContaining({ severity: 'error' }) })]);
    // Email has no sender yet: the decision does not claim one.
    expect(result.changed[0]?.decision?.channels).toEqual(['inApp', 'browser']);
    expect((await traceOf(dash, 'Deploy failed: shop (production)')).at(-1)).toMatchObject({ stage: 'quiet_hours', verdict: 'sent' });
  });

  it.skipIf(skip)('sends no digest when everything held was read in the app before the window ended (Q3)', async () => {
    const dash = await quietDashboard();
    await dash.ingest(events.issue('1', NIGHT), events.pr(7, NIGHT));
    // The PR is a change: in-app only, never held. The Sentry issue is.
    expect((await dash.outbox()).map((d) => d.status)).toEqual(['deferred']);
    await dash.caller.notifications.markRead({ all: true });
    expect(await dash.tickAt(MORNING)).toEqual([]);
    expect((await dash.outbox()).map((d) => [d.purpose, d.status])).toEqual([
      ['first', 'cancelled'],
      ['digest', 'empty'],
    ]);
    expect((await traceOf(dash, 'TypeError in checkout (1)')).at(-1)).toMatchObject({
      stage: 'quiet_hours',
      verdict: 'none',
      why: 'read in the app before the digest went out: left out of it',
      decidedAt: iso(MORNING),
    });
  });

  it.skipIf(skip)('folds an outage that started and ended in the night into one digest line with its duration (Q4), open subjects first (Q5)', async () => {
    const dash = await quietDashboard(Date.parse('2026-11-24T00:10:00Z'));
    await dash.ingest(events.issue('1', dash.clock.now()));
    dash.clock.advance(20 * MINUTE);
    await dash.ingest(events.issue('1', dash.clock.now(), 'resolved'));
    dash.clock.advance(MINUTE);
    await dash.ingest(events.issue('2', dash.clock.now()));
    const [digest] = await dash.tickAt(MORNING);
    expect(digest?.message.body.split('\n')).toEqual(['TypeError in checkout (2) — still unresolved since 01:31', '1 Sentry issue resolved after 20 min']);
  });

  it.skipIf(skip)('sends exactly one digest after a restart across the window end (Q6)', async () => {
    const first = await quietDashboard();
    await first.ingest(events.issue('1', NIGHT), events.issue('2', NIGHT + MINUTE));
    await first.dispose();
    // Stopped over the night; started again at 09:00 Berlin.
    const second = await dashboard(MORNING + 2 * HOUR, first.reuse);
    const sent = await second.tickAt(MORNING + 2 * HOUR);
    expect(sent.map((d) => d.purpose)).toEqual(['digest']);
    expect(sent[0]?.message.title).toContain('2 still open');
    expect(await second.tickAt(MORNING + 2 * HOUR + MINUTE)).toEqual([]);
  });

  it.skipIf(skip)('ends a 07:00 window at 05:00Z on the spring change and 06:00Z on the autumn change in Europe/Berlin (Q7)', async () => {
    for (const [night, flush] of [
      ['2026-03-29T01:00:00Z', '2026-03-29T05:00:00Z'],
      ['2026-10-25T02:00:00Z', '2026-10-25T06:00:00Z'],
    ] as const) {
      const dash = await quietDashboard(Date.parse(night));
      await dash.ingest(events.issue('dst', Date.parse(night)));
      expect(await dash.tickAt(Date.parse(flush) - 1)).toEqual([]);
      expect((await dash.tickAt(Date.parse(flush))).map((d) => d.purpose)).toEqual(['digest']);
    }
  });

  it.skipIf(skip)('flushes what was held as one digest at the next tick when quiet hours are switched off at 02:00 (Q9)', async () => {
    const dash = await quietDashboard(Date.parse('2026-11-24T00:30:00Z'));
    await dash.ingest(events.issue('1', dash.clock.now()), events.issue('2', dash.clock.now()));
    dash.clock.advance(30 * MINUTE);
    await dash.caller.notifications.saveQuietHours({ ...berlinNights, enabled: false });
    const sent = await dash.tickAt(dash.clock.now());
    expect(sent.map((d) => d.purpose)).toEqual(['digest']);
    expect(sent[0]?.message.title).toBe('While quiet hours were on (22:00–02:00): 2 still open');
  });

  it.skipIf(skip)('holds everything non-critical while paused, and says so in the digest after', async () => {
    const dash = await dashboard(T0);
    await dash.caller.notifications.pause({ until: iso(T0 + HOUR) });
    // Saving the quiet hours (a form loaded before the pause) leaves the pause alone; it cannot even name it.
    expect((await dash.caller.notifications.saveQuietHours({ ...berlinNights, timezone: 'UTC', enabled: false })).quietHours.pauseUntil).toBe(iso(T0 + HOUR));
    expect((await dash.call('PUT', '/api/notifications/quiet-hours', { ...berlinNights, pauseUntil: null })).status).toBe(400);
    await dash.ingest(events.issue('1', T0 + MINUTE));
    expect((await dash.outbox()).map((d) => d.status)).toEqual(['deferred']);
    const [digest] = await dash.tickAt(T0 + HOUR);
    expect(digest?.message.title).toMatch(/^While notifications were paused \(10:00–11:00\): 1 still open$/);
    await expect(dash.caller.notifications.pause({ until: iso(T0) })).rejects.toThrow('until is in the past');
  });

  it.skipIf(skip)('says "paused" in the digest of a pause, also for an outage whose flap hold ended during it (issue 26, 7)', async () => {
    const dash = await dashboard(T0);
    await dash.caller.notifications.pause({ until: iso(T0 + HOUR) });
    dash.clock.advance(MINUTE);
    // A degraded monitor (a warning, not critical): it waits for the pause.
    await dash.ingest({ ...events.down('api', '1', T0 + MINUTE), severity: 'warning' });
    expect(await dash.tickAt(T0 + 4 * MINUTE)).toEqual([]);
    expect((await dash.outbox()).map((d) => [d.status, d.heldFor])).toEqual([['deferred', 'pause']]);
    const [digest] = await dash.tickAt(T0 + HOUR);
    // Named from when the pause began (10:00), not from when the outage came (issue 48).
    expect(digest?.message.title).toBe('While notifications were paused (10:00–11:00): 1 still open');
  });

  // --- rules ---
  it.skipIf(skip)('raises a production deploy to critical by rule, which bypasses quiet hours and names the rule in the trace (R1)', async () => {
    const dash = await quietDashboard();
    await dash.caller.notifications.saveRules({
      rules: [rule('prod', { type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] }, { setSeverity: 'error' })],
    });
    const prod = await dash.ingest(events.deploy('p1', NIGHT, { severity: 'warning' }));
    const preview = await dash.ingest(events.deploy('p2', NIGHT, { severity: 'warning', target: 'preview' }));
    expect(prod.sent).toHaveLength(1);
    expect(prod.changed[0]?.severity).toBe('error');
    expect(prod.changed[0]?.decision?.trace).toEqual(expect.arrayContaining([expect.objectContaining({ stage: 'rule', id: 'prod', verdict: 'applied' })]));
    expect(preview.sent).toEqual([]);
    expect(preview.changed[0]?.decision?.trace.at(-1)).toMatchObject({ verdict: 'deferred' });
  });

  it.skipIf(skip)('stores a discarded event as done: not unread, not counted, no interruption (R2); a rule with stop ends the list (R3)', async () => {
    const dash = await dashboard(T0);
    await dash.caller.notifications.saveRules({
      rules: [
        rule('keep-prod', { type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] }, {}, true),
        rule('drop-deploys', { integrations: ['deploy_host'] }, { discard: true }),
      ],
    });
    const preview = await dash.ingest(events.deploy('p1', T0, { target: 'preview' }));
    expect(preview.sent).toEqual([]);
    expect(preview.changed[0]?.readAt).not.toBeNull();
    expect((await dash.list()).unreadCount).toBe(0);
    const prod = await dash.ingest(events.deploy('p2', T0));
    expect(prod.sent).toHaveLength(1);
    expect(prod.changed[0]?.decision?.trace.map((entry) => entry.id)).toEqual(['default', 'keep-prod', 'delivery']);
  });

  it.skipIf(skip)('refuses a bad rule with 400 naming the field, and keeps the stored rules (R5)', async () => {
    const dash = await dashboard(T0);
    const good = [rule('a', { type: 'deploy.*' }, { silence: true })];
    expect((await dash.call('PUT', '/api/notifications/rules', { rules: good })).status).toBe(200);
    const bad = [
      { rules: [{ ...good[0], match: { payload: [{ path: 'deployment.target', op: 'matches', value: 'prod.*' }] } }] },
      { rules: [{ ...good[0], match: { payload: [{ path: 'deploy(ment)?.target', op: 'eq', value: 'x' }] } }] },
      { rules: [{ ...good[0], match: { type: 'deploy.**' } }] },
      { rules: Array.from({ length: 101 }, (_, i) => rule(`r${i}`, {}, {})) },
    ];
    const paths: string[] = [];
    for (const body of bad) {
      const res = await dash.call('PUT', '/api/notifications/rules', body);
      expect(res.status).toBe(400);
      const issues = (res.json as { error: { issues: { path: (string | number)[] }[] } }).error.issues;
      paths.push(issues.map((issue) => issue.path.join('.')).join(' '));
    }
    expect(paths).toEqual(['rules.0.match.payload.0.op', 'rules.0.match.payload.0.path', 'rules.0.match.type', 'rules']);
    expect((await dash.caller.notifications.policy()).rules).toEqual(good);
  });

  // R6, the dry run against real ingests on every channel, is in dry-run.test.ts.

  // --- snooze and mute ---
  it.skipIf(skip)('hides a snoozed row from the list and the count, and brings it back unread at its time, live (S1)', async () => {
    const dash = await dashboard(T0);
    await dash.ingest(events.pr(1, T0), events.pr(2, T0));
    const [row] = (await dash.list()).notifications;
    await dash.caller.notifications.markRead({ ids: [row?.id ?? ''] });
    expect(await dash.caller.notifications.snooze({ ids: [row?.id ?? ''], until: iso(T0 + HOUR) })).toEqual({ snoozed: 1, unreadCount: 1 });
    expect((await dash.list()).notifications.map((n) => n.id)).not.toContain(row?.id);

    const stream = await listen(dash);
    const next = stream.next();
    expect(await dash.tickAt(T0 + HOUR - 1)).toEqual([]);
    expect((await dash.list()).unreadCount).toBe(1);
    await dash.tickAt(T0 + HOUR);
    const { event } = await next;
    expect(event).toMatchObject({ kind: 'notification', notification: { id: row?.id, readAt: null, snoozedUntil: null }, unreadCount: 2 });
    expect((await dash.list()).notifications.map((n) => n.id)).toContain(row?.id);
    await expect(dash.caller.notifications.snooze({ ids: [row?.id ?? ''], until: iso(T0) })).rejects.toThrow('until is in the past');
  });

  it.skipIf(skip)('keeps a muted subject quiet, and reminds once when the mute ends while it is still down (S2)', async () => {
    const dash = await dashboard(T0);
    const subject = 'betterstack:monitor:api';
    await dash.caller.notifications.mute({ subjectKey: subject, until: iso(T0 + HOUR) });
    await dash.ingest(events.down('api', '1', T0));
    await dash.tickAt(T0 + 5 * MINUTE);
    expect(await dash.sent()).toEqual([]);
    expect((await dash.list()).notifications[0]).toMatchObject({ mutedUntil: iso(T0 + HOUR), readAt: null });
    const reminder = await dash.tickAt(T0 + HOUR);
    expect(reminder).toEqual([expect.objectContaining({ purpose: 'repeat', message: expect.objectContaining({ title: 'Monitor down: api: still down' }) })]);
    expect(await dash.tickAt(T0 + 2 * HOUR)).toEqual([]);
    expect((await dash.caller.notifications.policy()).mutes).toEqual([]);

    // Resolved while muted: no reminder.
    await dash.caller.notifications.mute({ subjectKey: 'betterstack:monitor:web', until: iso(T0 + 3 * HOUR) });
    await dash.ingest(events.down('web', '2', T0 + 2 * HOUR));
    dash.clock.advance(10 * MINUTE);
    await dash.ingest(events.up('web', '2', dash.clock.now()));
    expect(await dash.tickAt(T0 + 3 * HOUR)).toEqual([]);
    await expect(dash.caller.notifications.mute({ subjectKey: subject, until: iso(T0 + 40 * 24 * HOUR) })).rejects.toThrow('at most 30 days');
  });

  it.skipIf(skip)('tells live streams about each interruption, with the seq as its event id', async () => {
    const dash = await dashboard(T0);
    const stream = await listen(dash);
    const first = stream.next();
    const result = await dash.ingest(events.deploy('d1', T0));
    const received = [await first, await stream.next()];
    expect(received.map(({ event }) => event.kind)).toEqual(['notification', 'interrupt']);
    expect(received[1]?.id).toBe(String(result.sent[0]?.seq));
    expect(received[1]?.event).toMatchObject({ kind: 'interrupt', replayed: false, interrupt: { purpose: 'first', tag: 'vercel:prj_shop:production', notificationId: result.changed[0]?.id } });
    // A client that reconnects after the row gets the interruption again, marked as a replay (not to pop up late).
    const again = await notificationStream(dash.ctx, { lastEventId: Number(received[0]?.id), interrupts: true });
    cleanup.push(again.close);
    expect(await again.next()).toMatchObject({ id: received[1]?.id, event: { kind: 'interrupt', replayed: true } });
  });

  // --- a second review (issue 36) ---
  /** Three short outages of `monitor` five minutes apart from `start` (the third starts a flap); the instant of the last change. */
  async function flap(dash: Dashboard, start: number, monitor = 'api') {
    for (let cycle = 0; cycle < 3; cycle++) {
      const at = start + cycle * 5 * MINUTE;
      await dash.tickAt(at);
      await dash.ingest(events.down(monitor, `${monitor}-c${cycle}`, at));
      await dash.tickAt(at + 3 * MINUTE);
      await dash.ingest(events.up(monitor, `${monitor}-c${cycle}`, at + 3 * MINUTE));
    }
    return start + 2 * 5 * MINUTE + 3 * MINUTE;
  }

  /** A flap of `monitor` from `start` (see `flap`), then at +15 min a fourth outage that stays (flapping: no notice); its instant. */
  async function flapStillDown(dash: Dashboard, start: number, monitor = 'api') {
    await flap(dash, start, monitor);
    const down = start + 15 * MINUTE;
    await dash.tickAt(down);
    await dash.ingest(events.down(monitor, `${monitor}-stays`, down));
    return down;
  }

  it.skipIf(skip)('ends a flap the way it started: one that went through quiet hours says "stable again" at once, on its tag (issue 36, 1)', async () => {
    const dash = await quietDashboard(Date.parse('2026-11-24T00:00:00Z')); // 01:00 in Berlin
    const lastChange = await flap(dash, dash.clock.now());
    // Outages are errors: they go through quiet hours, the flap's start with them.
    expect((await dash.sent()).map((d) => d.purpose)).toEqual(['first', 'resolve', 'first', 'resolve', 'flap_start']);
    const end = await dash.tickAt(lastChange + 15 * MINUTE);
    expect(end).toEqual([
      expect.objectContaining({ purpose: 'flap_end', status: 'sent', message: expect.objectContaining({ title: 'Monitor down: api: stable again', tag: 'betterstack:monitor:api' }) }),
    ]);
    expect((await dash.outbox()).filter((d) => d.status === 'deferred')).toEqual([]);
  });

  it.skipIf(skip)('counts as told only what reached the founder: a recovery of an outage read in the app before its digest interrupts nobody (issue 36, 2)', async () => {
    const dash = await quietDashboard();
    await dash.ingest(events.issue('1', NIGHT));
    await dash.caller.notifications.markRead({ all: true });
    expect(await dash.tickAt(MORNING)).toEqual([]);
    // Left out of the digest, so not in it.
    expect((await dash.outbox()).map((d) => [d.purpose, d.status])).toEqual([
      ['first', 'cancelled'],
      ['digest', 'empty'],
    ]);
    dash.clock.advance(HOUR);
    const recovery = await dash.ingest(events.issue('1', dash.clock.now(), 'resolved'));
    expect(recovery.sent).toEqual([]);
    expect((await dash.sent()).map((d) => d.purpose)).toEqual([]);
  });

  it.skipIf(skip)('keeps the end of a flap quiet while its monitor is muted, and reminds once when the mute ends (issue 36, 3)', async () => {
    const dash = await dashboard(T0);
    // A fourth outage that stays: flapping, so suppressed; then the monitor is muted.
    const down = await flapStillDown(dash, T0);
    await dash.caller.notifications.mute({ subjectKey: 'betterstack:monitor:api', until: iso(T0 + 2 * HOUR) });
    expect(await dash.tickAt(down + 15 * MINUTE)).toEqual([]);
    expect(await dash.tickAt(T0 + HOUR)).toEqual([]);
    const reminder = await dash.tickAt(T0 + 2 * HOUR);
    expect(reminder).toEqual([expect.objectContaining({ purpose: 'repeat', message: expect.objectContaining({ title: 'Monitor down: api: still down' }) })]);
  });

  it.skipIf(skip)("names a pause with its own times, not the disabled quiet hours' window (issue 36, 5)", async () => {
    const pausedAt = Date.parse('2026-11-23T22:00:00Z'); // 23:00 in Berlin
    const dash = await dashboard(pausedAt);
    await dash.caller.notifications.saveQuietHours({ ...berlinNights, enabled: false });
    await dash.caller.notifications.pause({ until: iso(pausedAt + 2 * HOUR) });
    await dash.ingest(events.issue('1', pausedAt));
    const [digest] = await dash.tickAt(pausedAt + 2 * HOUR);
    expect(digest?.message.title).toBe('While notifications were paused (23:00–01:00): 1 still open');
  });

  it.skipIf(skip)('names both a pause and quiet hours, each with its own times, in a digest of both; a recovery held by the pause says pause (issue 36, 5)', async () => {
    const pausedAt = Date.parse('2026-11-23T20:00:00Z'); // 21:00 in Berlin
    const dash = await dashboard(pausedAt);
    await dash.caller.notifications.saveQuietHours(berlinNights);
    await dash.caller.notifications.pause({ until: iso(pausedAt + 2 * HOUR) }); // until 23:00, past the window's start
    await dash.ingest(events.issue('1', pausedAt));
    dash.clock.advance(10 * MINUTE);
    await dash.ingest(events.issue('1', dash.clock.now(), 'resolved'));
    expect((await traceOf(dash, 'TypeError in checkout (1)')).at(-1)).toMatchObject({ stage: 'pause', verdict: 'deferred' });
    await dash.tickAt(pausedAt + 150 * MINUTE); // 23:30: quiet hours alone
    await dash.ingest(events.issue('2', dash.clock.now()));
    const [digest] = await dash.tickAt(MORNING);
    expect(digest?.message.title).toBe('While notifications were paused (21:00–23:00) and quiet hours were on (22:00–07:00): 1 still open, 1 Sentry issue resolved after 10 min');
  });

  it.skipIf(skip)('says in each held outage\'s trace the hold it had, also when the scheduler gets to it late, after a restart (issue 36, 7)', async () => {
    const first = await dashboard(T0);
    await first.call('PUT', '/api/notifications/flap-hold', { seconds: 600 });
    await first.ingest(events.down('api', '1', T0));
    first.clock.advance(5 * MINUTE);
    await first.ingest(events.down('web', '2', first.clock.now()));
    await first.dispose();
    // Started again half an hour later: both holds have long ended.
    const second = await dashboard(T0 + 30 * MINUTE, first.reuse);
    expect((await second.tickAt(T0 + 30 * MINUTE)).map((d) => d.purpose)).toEqual(['first', 'first']);
    for (const title of ['Monitor down: api', 'Monitor down: web']) {
      expect((await traceOf(second, title)).at(-1)?.why).toMatch(/^still down after the 10 min hold; /);
    }
  });

  // --- the policy review of issue 48 (item 8) ---
  it.skipIf(skip)('answers a "flapping" sent before quiet hours with "stable again" when the flap ends in them, not in the morning digest (issue 48)', async () => {
    const evening = Date.parse('2026-11-23T20:35:00Z'); // 21:35 in Berlin; quiet from 22:00
    const dash = await quietDashboard(evening);
    // A degraded monitor (warnings: nothing critical) goes down at 21:35, 21:40 and 21:45, up three minutes after each.
    for (let cycle = 0; cycle < 3; cycle++) {
      const at = evening + cycle * 5 * MINUTE;
      await dash.tickAt(at);
      await dash.ingest({ ...events.down('api', `w${cycle}`, at), severity: 'warning' });
      await dash.tickAt(at + 3 * MINUTE);
      await dash.ingest(events.up('api', `w${cycle}`, at + 3 * MINUTE));
    }
    expect((await dash.sent()).map((d) => d.purpose)).toEqual(['first', 'resolve', 'first', 'resolve', 'flap_start']);
    // 22:03, in quiet hours: the flap's end answers the "flapping" that went out, on its tag, without a sound.
    const end = await dash.tickAt(evening + 28 * MINUTE);
    expect(end).toEqual([
      expect.objectContaining({ purpose: 'flap_end', status: 'sent', message: expect.objectContaining({ title: 'Monitor down: api: stable again', tag: 'betterstack:monitor:api', renotify: false }) }),
    ]);
    expect((await dash.outbox()).filter((d) => d.status === 'deferred')).toEqual([]);
  });

  it.skipIf(skip)('names a pause from when it began, not from the first interruption it held; extended, it keeps its start (issue 48)', async () => {
    const pausedAt = Date.parse('2026-11-23T22:00:00Z'); // 23:00 in Berlin
    const dash = await dashboard(pausedAt);
    await dash.caller.notifications.saveQuietHours({ ...berlinNights, enabled: false });
    await dash.caller.notifications.pause({ until: iso(pausedAt + HOUR) });
    dash.clock.advance(20 * MINUTE);
    // Extended while it runs (23:20): still the pause that began at 23:00.
    await dash.caller.notifications.pause({ until: iso(pausedAt + 2 * HOUR) });
    dash.clock.advance(20 * MINUTE);
    await dash.ingest(events.issue('1', dash.clock.now())); // 23:40
    const [digest] = await dash.tickAt(pausedAt + 2 * HOUR);
    expect(digest?.message.title).toBe('While notifications were paused (23:00–01:00): 1 still open');
  });

  it.skipIf(skip)('names the quiet hours to the end of their window when a pause outlasts it, and both when a pause ends inside one (issue 48)', async () => {
    // Quiet 22:00–07:00 (Berlin); a warning at 23:10; paused at 06:30 until 09:00; another at 08:00: the digest at 09:00.
    const dash = await quietDashboard();
    await dash.ingest(events.issue('1', NIGHT));
    await dash.tickAt(MORNING - 30 * MINUTE);
    await dash.caller.notifications.pause({ until: iso(MORNING + 2 * HOUR) });
    await dash.tickAt(MORNING + HOUR);
    await dash.ingest(events.issue('2', dash.clock.now()));
    expect(await dash.tickAt(MORNING)).toEqual([]);
    const [digest] = await dash.tickAt(MORNING + 2 * HOUR);
    expect(digest?.message.title).toBe('While notifications were paused (06:30–09:00) and quiet hours were on (22:00–07:00): 2 still open');

    // Paused from 21:00 until 23:00, a warning at 21:10, and nothing else: the pause ended inside the window, where its
    // warning waited until 07:00: both are named.
    const evening = MORNING + 14 * HOUR; // 21:00 in Berlin
    await dash.tickAt(evening);
    await dash.caller.notifications.pause({ until: iso(evening + 2 * HOUR) });
    dash.clock.advance(10 * MINUTE);
    await dash.ingest(events.issue('3', dash.clock.now()));
    expect(await dash.tickAt(evening + 2 * HOUR)).toEqual([]);
    const [next] = await dash.tickAt(MORNING + 24 * HOUR);
    expect(next?.message.title).toBe('While notifications were paused (21:00–23:00) and quiet hours were on (22:00–07:00): 1 still open');
  });

  it.skipIf(skip)('says a recovery came within the hold its outage had, not the hold set since (issue 48)', async () => {
    const dash = await dashboard(T0);
    await dash.call('PUT', '/api/notifications/flap-hold', { seconds: 600 });
    await dash.ingest(events.down('api', '1', T0));
    await dash.call('PUT', '/api/notifications/flap-hold', { seconds: 60 });
    dash.clock.advance(3 * MINUTE);
    await dash.ingest(events.up('api', '1', T0 + 3 * MINUTE));
    expect((await traceOf(dash, 'Monitor down: api')).at(-1)).toMatchObject({ stage: 'flap', verdict: 'cancelled', why: 'recovered within the 10 min hold (down 3 min): nobody was interrupted' });
  });

  it.skipIf(skip)('says "still down" once when a mute ends during a flap, or as it ends: the flap’s end says it, the mute’s end not again (issue 48)', async () => {
    const dash = await dashboard(T0);
    // A fourth outage that stays (flapping: no notice), muted for five minutes.
    const down = await flapStillDown(dash, T0);
    await dash.caller.notifications.mute({ subjectKey: 'betterstack:monitor:api', until: iso(down + 5 * MINUTE) });
    expect(await dash.tickAt(down + 5 * MINUTE)).toEqual([]);
    const end = await dash.tickAt(down + 15 * MINUTE);
    expect(end).toEqual([expect.objectContaining({ purpose: 'flap_end', message: expect.objectContaining({ title: 'Monitor down: api: still down' }) })]);

    // Another monitor whose mute ends in the very tick its flap does: one "still down" too.
    const stays = await flapStillDown(dash, T0 + 2 * HOUR, 'web');
    await dash.caller.notifications.mute({ subjectKey: 'betterstack:monitor:web', until: iso(stays + 15 * MINUTE) });
    const both = await dash.tickAt(stays + 15 * MINUTE);
    expect(both).toEqual([expect.objectContaining({ purpose: 'flap_end', message: expect.objectContaining({ title: 'Monitor down: web: still down' }) })]);
    expect((await dash.sent()).filter((d) => d.message.title.endsWith('still down')).map((d) => d.message.title)).toEqual(['Monitor down: api: still down', 'Monitor down: web: still down']);
  });

  it.skipIf(skip)('sends no flap end for a deploy or a Sentry issue an older version had marked as flapping (issue 36, 7)', async () => {
    const dash = await dashboard(T0);
    await dash.ingest(events.deploy('d1', T0), events.issue('1', T0));
    const sent = (await dash.sent()).length;
    await dash.store.notifications.outbox((ops) =>
      ops.putSubjects(['vercel:prj_shop:production', 'sentry:issue:1'].map((subjectKey) => ({ subjectKey, outages: [T0, T0, T0], flappingSince: T0, lastChangeAt: T0 }))),
    );
    expect(await dash.tickAt(T0 + 20 * MINUTE)).toEqual([]);
    expect(await dash.sent()).toHaveLength(sent);
    expect(await dash.store.notifications.outbox((ops) => ops.flapping(Number.MAX_SAFE_INTEGER))).toEqual([]);
  });
});
