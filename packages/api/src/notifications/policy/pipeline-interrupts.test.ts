import { describe, expect, it } from 'vitest';
import { notificationStream } from '../../testing.ts';
import { events } from '../test-events.ts';
import { HOUR, iso, MINUTE, pipelineDatabases, pipelineTests, SECOND, T0, type Dashboard } from './pipeline-testing.ts';

// What interrupts and when: an outage held for the flap hold (the settings' hold, 120 s by default), then sent or
// cancelled by its recovery, each event's trace of it, a second outage as a thread of its own, and an interruption on a
// live stream.

const { cleanup, on } = pipelineTests();

describe.for(pipelineDatabases)('the notification pipeline on $kind', ({ kind, skip }) => {
  const { dashboard, listen, traceOf } = on(kind);

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

  it.skipIf(skip)('says a recovery came within the hold its outage had, not the hold set since (issue 48)', async () => {
    const dash = await dashboard(T0);
    await dash.call('PUT', '/api/notifications/flap-hold', { seconds: 600 });
    await dash.ingest(events.down('api', '1', T0));
    await dash.call('PUT', '/api/notifications/flap-hold', { seconds: 60 });
    dash.clock.advance(3 * MINUTE);
    await dash.ingest(events.up('api', '1', T0 + 3 * MINUTE));
    expect((await traceOf(dash, 'Monitor down: api')).at(-1)).toMatchObject({ stage: 'flap', verdict: 'cancelled', why: 'recovered within the 10 min hold (down 3 min): nobody was interrupted' });
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
});
