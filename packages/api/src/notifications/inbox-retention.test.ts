import { testClock } from '@dash/connectors/testing';
import type { RelayEvent } from '@dash/webhooks';
import { describe, expect, it } from 'vitest';
import { inboxTests, relayEvent } from './inbox-testing.ts';

// Retention: read notifications go after 90 days, unread ones after 180.

const DAY = 86_400_000;

const { dashboard } = inboxTests();

describe('retention', () => {
  it('removes read notifications after 90 days and unread ones after 180, and keeps the rest', async () => {
    const NOW = Date.parse('2026-06-01T00:00:00.000Z');
    const clock = testClock(NOW - 100 * DAY);
    const dash = await dashboard({ clock });
    const ago = (days: number) => new Date(NOW - days * DAY).toISOString();
    const rows = {
      unreadOld: relayEvent({ sourceEventId: 'unread-181-days', receivedAt: ago(181), occurredAt: ago(181) }),
      unreadYoung: relayEvent({ sourceEventId: 'unread-179-days', receivedAt: ago(179), occurredAt: ago(179) }),
      readLongAgo: relayEvent({ sourceEventId: 'read-100-days-ago', receivedAt: ago(200), occurredAt: ago(200) }),
      readRecently: relayEvent({ sourceEventId: 'read-89-days-ago', receivedAt: ago(200), occurredAt: ago(200) }),
      fresh: relayEvent({ sourceEventId: 'fresh', receivedAt: ago(1), occurredAt: ago(1) }),
    };
    await dash.inboxOf.ingest(Object.values(rows));
    const idOf = async (event: RelayEvent) => (await dash.inbox()).find((n) => n.title === event.title)!.id;

    await dash.caller.notifications.markRead({ ids: [await idOf(rows.readLongAgo)] }); // 100 days ago
    clock.advance(11 * DAY);
    await dash.caller.notifications.markRead({ ids: [await idOf(rows.readRecently)] }); // 89 days ago
    clock.advance(89 * DAY);
    expect(clock.now()).toBe(NOW);

    expect(await dash.inboxOf.prune()).toBe(2);
    expect((await dash.inbox()).map((n) => n.title).sort()).toEqual([rows.fresh.title, rows.readRecently.title, rows.unreadYoung.title].sort());
    expect(await dash.unread()).toBe(2);
    expect(dash.log.lines).toContain('info notifications: 2 old row(s) removed');
    expect(await dash.inboxOf.prune()).toBe(0);
  });
});
