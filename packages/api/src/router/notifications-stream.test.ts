import { getEventListeners } from 'node:events';
import type { NotificationStreamEvent } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { notificationStream } from '../testing.ts';
import { at, fiveEvents, inboxDashboards, NOW, prEvent, seed, type Dashboard } from './notifications-testing.ts';

// The inbox's live stream (notifications.stream) through a server-side caller: new and read notifications, replay
// after lastEventId, a reset beyond 500, ending on abort.

const { dashboard, cleanup } = inboxDashboards();

/** A live stream (see `notificationStream`), closed after the test; interruptions are skipped unless asked for. */
async function subscribe(dash: Dashboard, lastEventId?: number, { interrupts = false } = {}) {
  const stream = await notificationStream(dash.ctx, { ...(lastEventId === undefined ? {} : { lastEventId }), interrupts });
  cleanup.push(stream.close);
  const { next, abort, iterator } = stream;
  /** Starts waiting for the next event and lets the stream subscribe before the caller acts. */
  const waitNext = async () => {
    const pending = next();
    pending.catch(() => undefined);
    await listening(dash, 1);
    return pending;
  };
  return { next, waitNext, abort, iterator };
}

/** Waits (up to 2 s) until the hub has `count` listeners. */
async function listening(dash: Dashboard, count: number) {
  const deadline = Date.now() + 2_000;
  while (dash.inbox.hub.listenerCount !== count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(dash.inbox.hub.listenerCount).toBe(count);
}

const notificationIn = (event: NotificationStreamEvent) => {
  if (event.kind !== 'notification') throw new Error(`Expected a notification, got ${event.kind}`);
  return event.notification;
};

describe('the live stream (notifications.stream)', () => {
  it('sends a new notification and a read one, each with the unread count, under its seq as the event id', async () => {
    const dash = await dashboard();
    const stream = await subscribe(dash);
    const arriving = stream.waitNext();
    await dash.inbox.ingest([fiveEvents()[0]!]);
    const first = await arriving;
    const stored = (await dash.list()).notifications[0]!;
    expect(first).toEqual({ id: String(stored.seq), event: { kind: 'notification', notification: stored, unreadCount: 1 } });

    const reading = stream.next();
    await dash.call('POST', '/api/notifications/read', { ids: [stored.id] });
    const read = await reading;
    expect(read.event).toEqual({ kind: 'notification', notification: { ...stored, seq: expect.any(Number), readAt: new Date(NOW).toISOString() }, unreadCount: 0 });
    expect(Number(read.id)).toBeGreaterThan(Number(first.id));
    expect(Number(read.id)).toBe(notificationIn(read.event).seq);

    // An outage's recovery is a change of its row.
    const outage = stream.next();
    await dash.inbox.ingest([fiveEvents()[4]!]);
    const down = notificationIn((await outage).event);
    const recovery = stream.next();
    await dash.inbox.ingest([
      { ...fiveEvents()[4]!, id: 'relay-up', type: 'monitor.up', sourceEventId: 'betterstack:incident:9:resolved:z', transition: 'resolve', occurredAt: at(1) },
    ]);
    expect((await recovery).event).toEqual({ kind: 'notification', notification: expect.objectContaining({ id: down.id, resolved: true, eventCount: 2 }), unreadCount: 1 });
  });

  it('sends nothing for a duplicate', async () => {
    const dash = await dashboard();
    await dash.inbox.ingest([prEvent(1)]);
    const stream = await subscribe(dash);
    const arriving = stream.waitNext();
    await dash.inbox.ingest([{ ...prEvent(1), id: 'another-relay-id' }]);
    await dash.inbox.ingest([prEvent(2)]);
    expect(notificationIn((await arriving).event).title).toBe('PR #1002 merged');
  });

  it('with lastEventId, first replays what changed after it (new rows and reads), in order, then goes on live', async () => {
    const dash = await dashboard();
    const all = (await seed(dash)).reverse(); // oldest first
    await dash.caller.notifications.markRead({ ids: [all[0]!.id] });
    const lastSeen = all[2]!.seq;

    const stream = await subscribe(dash, lastSeen);
    const replayed = [await stream.next(), await stream.next(), await stream.next()];
    expect(replayed.map(({ event }) => notificationIn(event).title)).toEqual([all[3]!.title, all[4]!.title, all[0]!.title]);
    expect(notificationIn(replayed[2]!.event).readAt).not.toBeNull();
    expect(replayed.map(({ id }) => Number(id))).toEqual([...replayed.map(({ id }) => Number(id))].sort((a, b) => a - b));
    expect(replayed.every(({ id, event }) => id === String(notificationIn(event).seq))).toBe(true);
    expect(replayed.every(({ event }) => event.kind === 'notification' && event.unreadCount === 4)).toBe(true);

    const live = stream.next();
    await dash.inbox.ingest([prEvent(1)]);
    expect((await live).event).toMatchObject({ kind: 'notification', notification: { title: 'PR #1001 merged' }, unreadCount: 5 });
  });

  it('with the newest lastEventId replays nothing and sends only what comes next', async () => {
    const dash = await dashboard();
    const all = await seed(dash);
    const stream = await subscribe(dash, all[0]!.seq);
    const arriving = stream.waitNext();
    await dash.inbox.ingest([prEvent(1)]);
    expect(notificationIn((await arriving).event).title).toBe('PR #1001 merged');
  });

  it('replays 500 missed changes, and sends a reset with the unread count, not a replay, beyond 500', async () => {
    const dash = await dashboard();
    await dash.inbox.ingest(Array.from({ length: 500 }, (_, i) => prEvent(i)));
    const replay = await subscribe(dash, 0);
    const events = [];
    for (let i = 0; i < 500; i++) events.push(await replay.next());
    expect(events.every(({ event }) => event.kind === 'notification')).toBe(true);
    expect(notificationIn(events[0]!.event).title).toBe('PR #1000 merged');
    expect(notificationIn(events[499]!.event).title).toBe('PR #1499 merged');
    replay.abort.abort();

    await dash.inbox.ingest([prEvent(500)]);
    const newest = (await dash.list('?limit=1')).notifications[0]!;
    const reset = await subscribe(dash, 0);
    expect(await reset.next()).toEqual({ id: String(newest.seq), event: { kind: 'reset', unreadCount: 501 } });
    // Then live, from the newest row on.
    const live = reset.next();
    await dash.inbox.ingest([prEvent(501)]);
    const { id, event } = await live;
    expect(notificationIn(event).title).toBe('PR #1501 merged');
    expect(Number(id)).toBeGreaterThan(newest.seq);
  });

  it('ends when its signal aborts, and stops listening', async () => {
    const dash = await dashboard();
    const stream = await subscribe(dash);
    const pending = stream.iterator.next();
    await listening(dash, 1);
    const second = await subscribe(dash);
    const secondPending = second.iterator.next();
    await listening(dash, 2);

    stream.abort.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(dash.inbox.hub.listenerCount).toBe(1);
    second.abort.abort();
    expect(await secondPending).toEqual({ done: true, value: undefined });
    expect(dash.inbox.hub.listenerCount).toBe(0);
    // Nothing is told to a closed stream.
    await dash.inbox.ingest([prEvent(1)]);
    expect(await dash.unread()).toBe(1);
  });

  it('stays open for many events without piling up listeners (no MaxListenersExceededWarning)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    cleanup.push(() => Promise.resolve(process.off('warning', onWarning)));
    const dash = await dashboard();
    const stream = await subscribe(dash);
    const listeners = () => getEventListeners(stream.abort.signal, 'abort').length;
    const first = stream.waitNext();
    await dash.inbox.ingest([prEvent(0)]);
    await first;
    const before = listeners();
    for (let i = 1; i <= 15; i++) {
      const arriving = stream.next();
      // Events come seconds apart: the stream is idle, waiting, when the next one comes.
      await new Promise((r) => setTimeout(r, 5));
      await dash.inbox.ingest([prEvent(i)]);
      expect(notificationIn((await arriving).event).title).toBe(`PR #${1000 + i} merged`);
    }
    // Warnings are emitted on a later tick.
    await new Promise((r) => setTimeout(r, 10));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(listeners()).toBeLessThanOrEqual(before);
  });
});
