import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { MINUTE, pushDeliveryTests, t0 } from './delivery-testing.ts';

// Pushes from two processes on one database: a recovery after its outage's retry, a push service's pause held in
// every process, each push once per device, and what a process died holding sent once its claim runs out.

const { sandbox, dashboard, twoProcessesAndAPhone, received } = pushDeliveryTests();

describe('push notifications', () => {
  it('pushes a recovery after its outage when the outage waits for a retry, even from another process (issue 48)', async () => {
    const [a, b] = await twoProcessesAndAPhone();
    await a.ingest(events.down('api', 'inc1', t0));
    // The hold ends and the push service answers the outage 429, Retry-After 120 (process a holds the endpoint back).
    sandbox.inject('push', { status: 429, headers: { 'retry-after': '120' }, times: 1 });
    await a.at(t0 + 121_000);
    // Recovered 10 s later; process b, which knows nothing of a's pause, comes to the recovery first: it waits.
    const upAt = t0 + 131_000;
    a.clock.advance(upAt - a.clock.now());
    b.clock.advance(upAt - b.clock.now());
    await a.ingest(events.up('api', 'inc1', upAt));
    await b.ctx.notifications.pushes.drain();
    expect(sandbox.pushes()).toEqual([]);
    // Once the Retry-After has passed: the outage, then its recovery, whichever process sends them.
    for (const at of [t0 + 250_000, t0 + 260_000]) {
      a.clock.advance(at - a.clock.now());
      b.clock.advance(at - b.clock.now());
      await b.ctx.notifications.pushes.drain();
      await a.ctx.notifications.pushes.drain();
    }
    expect(received().map((push) => push.payload.kind)).toEqual(['alert', 'resolve']);
  });

  it('holds a push service that asked for a pause back in every process, not only the one it told (issue 48)', async () => {
    const [a, b] = await twoProcessesAndAPhone();
    // Two monitors down 10 s apart; process a is answered 429, Retry-After 120, for the first one's outage.
    await a.ingest(events.down('api', 'inc-a', t0));
    a.clock.advance(10_000);
    await a.ingest(events.down('web', 'inc-b', t0 + 10_000));
    sandbox.inject('push', { status: 429, headers: { 'retry-after': '120' }, times: 1 });
    await a.at(t0 + 121_000);
    // The second's hold ends 10 s later, and process b comes to it: it waits for the same push service's pause.
    const later = t0 + 131_000;
    for (const dash of [a, b]) dash.clock.advance(later - dash.clock.now());
    await a.ctx.notifications.inbox.tick();
    await b.ctx.notifications.pushes.drain();
    expect(sandbox.pushes()).toEqual([]);
    expect((await b.sends()).filter((send) => send.state === 'queued').map((send) => send.dueAt)).toEqual([t0 + 241_000, t0 + 241_000]);
    // Once the pause is over, b sends both.
    for (const dash of [a, b]) dash.clock.advance(t0 + 241_000 - dash.clock.now());
    await b.ctx.notifications.pushes.drain();
    expect(received().map((push) => push.payload.title)).toEqual(expect.arrayContaining(['Monitor down: api', 'Monitor down: web']));
  });

  it('sends each push once per device when two processes drain the same database', async () => {
    const a = await dashboard(t0);
    const b = await dashboard(t0, { dir: a.dir, credentialsKey: a.credentialsKey });
    await a.subscribe('Phone');
    await a.subscribe('Laptop');
    await a.ingest(...['x1', 'x2', 'x3', 'x4'].map((monitor) => events.down(monitor, `two-${monitor}`, t0)));
    a.clock.advance(121_000);
    b.clock.advance(121_000);
    await a.ctx.notifications.inbox.tick();
    await Promise.all([a.ctx.notifications.pushes.drain(), b.ctx.notifications.pushes.drain()]);
    expect(sandbox.pushes()).toHaveLength(8);
    expect(new Set(sandbox.pushes().map((push) => `${push.subscriptionId} ${(JSON.parse(push.payload) as { title: string }).title}`)).size).toBe(8);
  });

  it('sends once what a process claimed and died holding, after its claim runs out', async () => {
    const first = await dashboard(t0);
    await first.subscribe('Phone');
    // Its sender has not come to it yet (stopped here, so the tick's release does not wake it).
    await first.ctx.notifications.pushes.stop();
    await first.ingest(events.down('web', 'inc8', t0));
    first.clock.advance(121_000);
    await first.ctx.notifications.inbox.tick();
    // The process claims the push (as its sender does first) and dies before it reaches the push service.
    const [claimed] = await first.store.push.sends.claim('the-process-that-died', first.clock.now(), MINUTE, 10);
    expect(claimed?.delivery.message.title).toBe('Monitor down: web');
    await first.dispose({ keepFiles: true });

    const restarted = await dashboard(t0 + 121_000, { dir: first.dir, credentialsKey: first.credentialsKey });
    await restarted.at(t0 + 150_000);
    expect(sandbox.pushes()).toEqual([]);
    await restarted.at(t0 + 121_000 + MINUTE);
    await restarted.at(t0 + 10 * MINUTE);
    expect(sandbox.pushes()).toHaveLength(1);
    // The dead process's late answer (had it lived) changes nothing: it no longer holds the claim.
    await restarted.store.push.sends.settle(claimed?.id ?? '', 'the-process-that-died', { state: 'failed', attempts: 1, dueAt: 0, status: null, error: 'late', sentAt: null });
    expect((await restarted.sends())[0]).toMatchObject({ state: 'delivered', attempts: 1, error: null });
  });
});
