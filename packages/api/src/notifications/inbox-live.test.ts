import { testClock } from '@dash/connectors/testing';
import type { Notification } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { deliveryTests } from '../testing/delivery.ts';
import { until } from '../testing/waiting.ts';
import { incident, inboxTests, relayEvent, signed } from './inbox-testing.ts';

// Live streams across dashboard processes on one database: a row another process stored reaches this process's
// stream, and the data it made stale is read fresh here, with or without a stream open.

const { sandbox } = deliveryTests();
const { dashboard, subscribe } = inboxTests(sandbox);

describe('live streams across dashboard processes on one database', () => {
  it("brings a row another process stored to this process's stream, and forgets this process's copy of the data it made stale", async () => {
    sandbox.reset();
    const clock = testClock();
    const a = await dashboard({ clock, withDemo: true });
    await a.caller.demo.start();
    const b = await dashboard({ clock, dir: a.dir, credentialsKey: a.credentialsKey });
    const cacheOf = async (path: string) => (await a.call('GET', path)).headers.get('x-cache');
    expect([await cacheOf('/api/health?project=formfox'), await cacheOf('/api/health?project=formfox')]).toEqual(['MISS', 'HIT']);
    expect([await cacheOf('/api/health?project=tideline'), await cacheOf('/api/health?project=tideline')]).toEqual(['MISS', 'HIT']);
    const unreadBefore = await a.unread();

    const stream = await subscribe(a);
    const first = stream.next();
    await until(() => a.inboxOf.hub.listenerCount === 1);
    await b.deliver(signed.betterstack(incident('started', { id: '80', monitorId: '2003' })));
    const { id, event } = await first;
    expect(event).toEqual({
      kind: 'notification',
      notification: expect.objectContaining({ integration: 'uptime_monitor', type: 'monitor.down', project: 'formfox', readAt: null }),
      unreadCount: unreadBefore + 1,
    });
    expect(id).toBe(String((event as { notification: Notification }).notification.seq));

    // a's copy of Formfox's uptime went; Tideline's stayed.
    expect(await cacheOf('/api/health?project=formfox')).toBe('MISS');
    expect(await cacheOf('/api/health?project=tideline')).toBe('HIT');

    // Read in b: a's stream hears that too.
    const notification = (event as { notification: Notification }).notification;
    const second = stream.next();
    await b.caller.notifications.markRead({ ids: [notification.id] });
    expect((await second).event).toEqual({
      kind: 'notification',
      notification: expect.objectContaining({ id: notification.id, readAt: expect.any(String) }),
      unreadCount: unreadBefore,
    });
  });

  it("serves a fresh read in this process after another process stored an event, even with no live stream open here", async () => {
    sandbox.reset();
    const clock = testClock();
    const a = await dashboard({ clock, withDemo: true });
    await a.caller.demo.start();
    const b = await dashboard({ clock, dir: a.dir, credentialsKey: a.credentialsKey });
    const cacheOf = async (path: string) => (await a.call('GET', path)).headers.get('x-cache');
    expect([await cacheOf('/api/health?project=formfox'), await cacheOf('/api/health?project=formfox')]).toEqual(['MISS', 'HIT']);

    await b.deliver(signed.betterstack(incident('started', { id: '81', monitorId: '2003' })));
    // The store's row is expired by b; a's next read (no browser open on a) should ask Better Stack again,
    // within the second the change feed takes.
    await until(async () => (await cacheOf('/api/health?project=formfox')) === 'MISS', 2_500);
  });

  it('does not send a new subscriber of a freshly started process the rows that were already there', async () => {
    const a = await dashboard();
    await a.inboxOf.ingest([1, 2, 3].map((n) => relayEvent({ sourceEventId: `github:acme/app:pr:${n}:merged` })));
    // A second process starts on the same database; a browser connects to it.
    const b = await dashboard({ dir: a.dir, credentialsKey: a.credentialsKey });
    const stream = await subscribe(b);
    const first = stream.next();
    await until(() => b.inboxOf.hub.listenerCount === 1);
    await a.inboxOf.ingest([relayEvent({ sourceEventId: 'github:acme/app:pr:4:merged' })]);
    const { event } = await first;
    expect(event).toMatchObject({ kind: 'notification', notification: { title: 'PR merged: github:acme/app:pr:4:merged' }, unreadCount: 4 });
  });
});
