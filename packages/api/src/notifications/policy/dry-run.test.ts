import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testClock } from '@dash/connectors/testing';
import type { DeliveryOutcome, InterruptChannel } from '@dash/contracts';
import type { DeliveryRow } from '@dash/db';
import { MYSQL_SERVER, mysqlProblem, PG_SERVER, postgresProblem } from '@dash/db/testing';
import { sandboxEmail, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import type { RelayEvent } from '@dash/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, testDatabases } from '../../testing.ts';
import { berlinNights, events, rule } from '../test-events.ts';

// The dry run (`POST /api/notifications/dry-run`, the settings' live preview) against real ingests, with email set up
// (the fake SendGrid): for each event, the decision and every interrupting channel's outcome must be what the ingest
// that follows writes to the outbox, on SQLite, Postgres and MySQL.

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const pgProblem = await postgresProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): the dry run is not compared on it. ***\n`);
const myProblem = await mysqlProblem();
if (myProblem && !inCI) console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): the dry run is not compared on MySQL. ***\n`);

let sandbox: Sandbox;
const cleanup: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
const databases = testDatabases();
afterAll(() => databases.drop(), 60_000);

const statuses = ['held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty'] as const;
/** The outcome a delivery row stands for, in the dry run's words (the test's own reading of the contract). */
const expectedStatus: Record<DeliveryRow['status'], DeliveryOutcome['status']> = {
  sent: 'now',
  held: 'held',
  deferred: 'deferred',
  suppressed: 'suppressed',
  cancelled: 'suppressed',
  digested: 'none',
  empty: 'none',
};

describe.for([
  { kind: 'SQLite' as const, skip: false },
  { kind: 'Postgres' as const, skip: pgProblem !== undefined && !inCI },
  { kind: 'MySQL' as const, skip: myProblem !== undefined && !inCI },
])('the dry run on $kind', ({ kind, skip }) => {
  async function dashboard(start: number, email = true) {
    const dir = mkdtempSync(join(tmpdir(), 'dash-dry-run-'));
    const { databaseUrl, drop } = await databases.fresh(kind, dir);
    // Dropped beside the next test; the file's afterAll waits for it.
    cleanup.push(() => Promise.resolve(void drop()));
    cleanup.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const clock = testClock(start);
    const env = email
      ? { SENDGRID_API_KEY: sandboxTokens.sendgrid, ALERT_EMAIL_FROM: sandboxEmail.from, ALERT_EMAIL_TO: 'founder@example.com', SENDGRID_API_URL: sandbox.services.sendgrid.url }
      : {};
    const api = await createTestApi({ dir, clock, scheduler: false, email: env, ...(databaseUrl ? { databaseUrl } : {}) });
    cleanup.push(() => api.dispose({ keepFiles: true }));
    const { inbox } = api.ctx.notifications;
    /** Every interruption in the outbox, by id, as it is now (read outside a transaction: nothing else writes meanwhile). */
    const outbox = async () => {
      const all = await api.store.notifications.read(async (ops) => (await Promise.all(statuses.map((status) => ops.deliveriesWithStatus(status)))).flat());
      return new Map(all.map((row) => [row.id, row]));
    };
    return {
      ...api,
      clock,
      inbox,
      outbox,
      /**
       * Ingests one event; answers the ingest's result, the interruptions it added or changed to the event's row, and
       * the outbox after it. `known` is the outbox as it was, when the caller knows it (the last ingest's `after`,
       * nothing having written since): read again otherwise.
       */
      async ingest(event: RelayEvent, known?: Map<string, DeliveryRow>) {
        const before = known ?? (await outbox());
        const result = await inbox.ingest([event]);
        const id = result.changed[0]?.id;
        const after = await outbox();
        const written = [...after.values()].filter((row) => {
          const old = before.get(row.id);
          return row.notificationId === id && (!old || old.status !== row.status || old.reason !== row.reason || old.dueAt !== row.dueAt);
        });
        return { result, written: written.sort((a, b) => a.createdAt - b.createdAt), after };
      },
    };
  }

  /** What each channel's outcome must be, after the rows the real ingest wrote for the event. */
  function expected(written: DeliveryRow[], channel: InterruptChannel) {
    const rows = written.filter((row) => row.channel === channel);
    // A recovery changes the held outage (cancelled) or adds its own row: the row it added tells.
    const row = rows.find((candidate) => candidate.purpose === 'resolve') ?? rows.at(-1);
    if (!row) return { status: 'none' };
    return { status: expectedStatus[row.status], until: row.dueAt === null ? null : iso(row.dueAt), why: row.reason };
  }

  it.skipIf(skip)('answers a dry run with each channel’s outcome, email included, exactly as the real ingest after it decides (R6)', async () => {
    const dash = await dashboard(Date.parse('2026-11-23T20:00:00Z'));
    await dash.caller.notifications.saveQuietHours(berlinNights);
    await dash.caller.notifications.saveRules({
      rules: [
        rule('prod', { type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] }, { setSeverity: 'error' }),
        rule('quiet-sentry', { integrations: ['error_tracker'], titleContains: 'quiet' }, { silence: true }),
        rule('drop', { titleContains: 'noise' }, { discard: true }, true),
        rule('mail', { titleContains: 'mail' }, { addChannels: ['email'], removeChannels: ['browser'] }),
        rule('prs', { type: 'pr.*' }, { addChannels: ['browser', 'email'], bypassQuietHours: true }),
      ],
    });
    await dash.caller.notifications.mute({ subjectKey: 'betterstack:monitor:web', until: iso(dash.clock.now() + 3 * 60 * MINUTE) });
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const seen = new Map<string, number>();
    // The outbox as the last ingest left it, so that each ingest reads it once (after) rather than twice; a tick
    // changes it, and it is read again. (A dry run writes nothing: a row it wrote for the event's row would count as
    // the ingest's, and fail the comparison.)
    let known: Map<string, DeliveryRow> | undefined;
    for (let n = 0; n < 300; n++) {
      dash.clock.advance(Math.floor(random() * 4 * MINUTE));
      if (random() < 0.05) {
        await dash.inbox.tick();
        known = undefined;
      }
      const at = dash.clock.now();
      const words = pick(['', ' quiet', ' noise', ' mail']);
      const base = pick([
        () => events.down(pick(['api', 'web']), `i${n}`, at),
        () => events.up(pick(['api', 'web']), `i${n}`, at),
        () => events.issue(pick(['1', '2', '3']), at, pick(['created', 'resolved'] as const)),
        () => events.deploy(`d${n}`, at, { target: pick(['production', 'preview']), state: pick(['error', 'succeeded'] as const), severity: pick(['warning', 'error', 'success'] as const) }),
        () => events.pr(n, at),
      ])();
      // Each a real-world event of its own (a copy would be a duplicate, which stores nothing to compare).
      const event = { ...base, sourceEventId: `${base.sourceEventId}:${n}`, title: base.title + words };
      const dry = await dash.caller.notifications.dryRun({
        event: {
          integration: event.integration,
          type: event.type,
          severity: event.severity,
          title: event.title,
          transition: event.transition ?? null,
          subjectKey: event.subject ?? null,
          project: null,
          ...(event.payload ? { payload: event.payload } : {}),
        },
      });
      const { result, written, after } = await dash.ingest(event, known);
      known = after;
      const stored = result.changed[0]?.decision;
      expect({ n, severity: dry.decision.severity, channels: dry.decision.channels, trace: dry.decision.trace }).toEqual({
        n,
        severity: stored?.severity,
        channels: stored?.channels,
        trace: stored?.trace,
      });
      for (const channel of ['browser', 'email'] as const) {
        expect({ n, channel, ...dry.delivery[channel] }).toMatchObject({ n, channel, ...expected(written, channel) });
        const status = dry.delivery[channel].status;
        seen.set(`${channel} ${status}`, (seen.get(`${channel} ${status}`) ?? 0) + 1);
      }
    }
    // The walk reached every outcome of both channels.
    for (const channel of ['browser', 'email']) {
      for (const status of ['now', 'held', 'deferred', 'suppressed', 'none']) expect(seen.get(`${channel} ${status}`), `${channel} ${status}`).toBeGreaterThan(0);
    }
    // 300 ingests and dry runs: about 30 s on a quiet machine, and over 120 s on Postgres on a loaded one.
  }, 300_000);

  it.skipIf(skip)('previews an event at a later time after what the scheduler does until then, as the real ingest then decides (issue 36, 7)', async () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    const dash = await dashboard(now);
    await dash.inbox.ingest([events.down('api', '1', now)]);
    const later = now + 10 * MINUTE;
    const up = { integration: 'uptime_monitor', type: 'monitor.up', severity: 'success', title: 'Monitor up: api', transition: 'resolve', subjectKey: 'betterstack:monitor:api' } as const;
    const dry = await dash.caller.notifications.dryRun({ event: up, at: iso(later) });
    // The preview wrote nothing: the outage is still held, on both channels.
    expect([...(await dash.outbox()).values()].map((row) => row.status)).toEqual(['held', 'held']);
    // What really happens: the hold ends at 10:02 (the outage interrupts), the recovery at 10:10 replaces it.
    dash.clock.advance(later - now);
    await dash.inbox.tick();
    const { written } = await dash.ingest(events.up('api', '1', later));
    for (const channel of ['browser', 'email'] as const) expect(dry.delivery[channel]).toMatchObject(expected(written, channel));
    expect(dry.delivery.browser.status).toBe('now');
  });

  it.skipIf(skip)('previews a later recovery after each of the scheduler’s ticks until then: a pause’s digest at 21:00 tells the outage before quiet hours (issue 48)', async () => {
    const evening = Date.parse('2026-11-23T19:00:00Z'); // 20:00 in Berlin; quiet from 22:00
    const dash = await dashboard(evening);
    await dash.caller.notifications.saveQuietHours(berlinNights);
    await dash.caller.notifications.pause({ until: iso(evening + 60 * MINUTE) }); // until 21:00
    await dash.inbox.ingest([events.issue('1', evening + 10 * MINUTE)]);
    const later = evening + 150 * MINUTE; // 22:30, in quiet hours
    const resolved = { integration: 'error_tracker', type: 'error.issue_resolved', severity: 'success', title: 'TypeError in checkout (1)', transition: 'resolve', subjectKey: 'sentry:issue:1' } as const;
    const dry = await dash.caller.notifications.dryRun({ event: resolved, at: iso(later) });
    // What really happens: at 21:00 the pause's digest tells the issue; at 22:30 its recovery answers it at once.
    dash.clock.advance(60 * MINUTE);
    await dash.inbox.tick();
    dash.clock.advance(later - dash.clock.now());
    await dash.inbox.tick();
    const { written } = await dash.ingest(events.issue('1', later, 'resolved'));
    for (const channel of ['browser', 'email'] as const) expect(dry.delivery[channel]).toMatchObject(expected(written, channel));
    expect(dry.delivery.browser.status).toBe('now');
  });

  it.skipIf(skip)('says email is sent, held or deferred as the planner decides once SendGrid is set up, and why there is none before', async () => {
    const night = Date.parse('2026-11-23T22:10:00Z');
    const dash = await dashboard(night);
    await dash.caller.notifications.saveQuietHours(berlinNights);
    const failed = { integration: 'deploy_host', type: 'deploy.error', severity: 'error', title: 'Deploy failed', transition: null } as const;
    // An error interrupts through quiet hours, on both channels.
    expect((await dash.caller.notifications.dryRun({ event: failed })).delivery).toEqual({
      browser: expect.objectContaining({ status: 'now' }),
      email: { status: 'now', until: null, why: 'queued for SendGrid' },
      push: { status: 'none', until: null, why: 'no push: no device is subscribed (Settings → Notifications → Devices)' },
      chat: { status: 'none', until: null, why: 'no chat message: no chat or webhook connection is ready (Settings → Notifications → Chat and webhooks)' },
    });
    // A monitor's outage is held on both, until the hold ends.
    const down = { integration: 'uptime_monitor', type: 'monitor.down', severity: 'error', title: 'api down', transition: 'trigger', subjectKey: 'betterstack:monitor:api' } as const;
    expect((await dash.caller.notifications.dryRun({ event: down })).delivery).toEqual({
      browser: { status: 'held', until: iso(night + 2 * MINUTE), why: 'flap hold' },
      email: { status: 'held', until: iso(night + 2 * MINUTE), why: 'flap hold' },
      push: expect.objectContaining({ status: 'none' }),
      chat: expect.objectContaining({ status: 'none' }),
    });
    // A warning that a rule sends by email only waits for the digest email at 07:00 Berlin; no browser notification.
    await dash.caller.notifications.saveRules({ rules: [rule('mail', { type: 'error.*' }, { addChannels: ['email'], removeChannels: ['browser'] })] });
    const issue = { integration: 'error_tracker', type: 'error.issue_created', severity: 'warning', title: 'TypeError', transition: null } as const;
    expect((await dash.caller.notifications.dryRun({ event: issue })).delivery).toEqual({
      browser: { status: 'none', until: null, why: 'no browser notification: its decision does not open that channel' },
      email: { status: 'deferred', until: '2026-11-24T06:00:00.000Z', why: 'kept for the digest email' },
      push: expect.objectContaining({ status: 'none' }),
      chat: expect.objectContaining({ status: 'none' }),
    });

    const without = await dashboard(night, false);
    expect((await without.caller.notifications.dryRun({ event: failed })).delivery.email).toEqual({
      status: 'none',
      until: null,
      why: 'no email: it is not set up (SendGrid, under Alerts)',
    });
  });
});
