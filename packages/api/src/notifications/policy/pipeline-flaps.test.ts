import { describe, expect, it } from 'vitest';
import { events } from '../test-events.ts';
import { HOUR, iso, MINUTE, pipelineDatabases, pipelineTests, T0, type Dashboard } from './pipeline-testing.ts';

// A monitor that flaps: one "flapping" notice on the third outage in 30 min, then quiet, and one end ("stable again",
// "still down") answering it, through quiet hours and mutes; never for deploys or Sentry issues.

const { on } = pipelineTests();

describe.for(pipelineDatabases)('the notification pipeline on $kind', ({ kind, skip }) => {
  const { dashboard, quietDashboard, traceOf } = on(kind);

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
