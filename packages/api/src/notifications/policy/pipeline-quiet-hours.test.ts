import { describe, expect, it } from 'vitest';
import { berlinNights, events } from '../test-events.ts';
import { HOUR, iso, MINUTE, MORNING, NIGHT, pipelineDatabases, pipelineTests, T0 } from './pipeline-testing.ts';

// Quiet hours (22:00–07:00 in Europe/Berlin) and pauses: what waits for the digest, the one digest at the window's end
// (across a restart, a DST change, quiet hours switched off), what it says, and the recovery of what it told.

const { on } = pipelineTests();

describe.for(pipelineDatabases)('the notification pipeline on $kind', ({ kind, skip }) => {
  const { dashboard, quietDashboard, traceOf } = on(kind);

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

  it.skipIf(skip)('announces the recovery of an outage the digest told about (issue 26, 1)', async () => {
    const dash = await dashboard(Date.parse('2026-11-24T00:10:00Z'));
    await dash.caller.notifications.saveQuietHours(berlinNights);
    await dash.ingest(events.issue('1', dash.clock.now()));
    expect((await dash.tickAt(MORNING)).map((d) => d.purpose)).toEqual(['digest']);
    dash.clock.advance(HOUR);
    const recovery = await dash.ingest(events.issue('1', dash.clock.now(), 'resolved'));
    expect(recovery.sent).toEqual([expect.objectContaining({ purpose: 'resolve', message: expect.objectContaining({ tag: 'sentry:issue:1' }) })]);
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

  // --- pauses ---
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
});
