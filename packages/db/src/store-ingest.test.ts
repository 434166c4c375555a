import { describe, expect, it } from 'vitest';
import type { NotificationSeverity } from './index.ts';
import { at, DAY, event, HOUR, ids, inWindow, MINUTE, monitor, NOW, RELAY, SECOND, session } from './testing/store-fixtures.ts';
import { describeStores } from './testing/store-suite.ts';

/** The notifications' ingest, on every engine: each event stored once (its claim), subjects folded into rows, the relay cursor, batches. */

/** Less than the SQLite store's busy timeout: a write that waited that out took too long. */
const BUSY_WAIT_MS = 3000;

await describeStores('the notifications\' ingest', ({ open, query }) => {
  describe('notifications', () => {
    it('stores a copy of an event in the same batch and in a later one once, and again once the dedup window has passed', async () => {
      const store = await open();
      const first = await store.notifications.ingest([event('github:1'), event('github:1')], inWindow);
      expect(first).toEqual({
        stored: 1,
        duplicates: 1,
        sent: [],
        events: [
          { sourceEventId: 'github:1', effect: 'info', notificationId: expect.any(String), eventId: expect.any(String) },
          { sourceEventId: 'github:1', effect: 'duplicate', notificationId: expect.any(String), eventId: null },
        ],
        changed: [
          {
            id: expect.any(String),
            seq: expect.any(Number),
            createdSeq: expect.any(Number),
            integration: 'github',
            type: 'pr.merged',
            subjectKey: null,
            status: 'info',
            severity: 'info',
            title: 'Event github:1',
            url: 'https://example.com/github:1',
            projectSlug: null,
            eventCount: 1,
            firstAt: NOW,
            lastAt: NOW,
            resolvedAt: null,
            receivedAt: NOW,
            readAt: null,
            snoozedUntil: null,
            decision: null,
            refs: null,
          },
        ],
      });
      expect(first.changed[0]?.createdSeq).toBe(first.changed[0]?.seq);
      // A redelivery within the window (a day from NOW), alone or beside a new event.
      expect(await store.notifications.ingest([event('github:1')], { now: at(HOUR), dedupWindowMs: DAY })).toEqual({
        stored: 0,
        duplicates: 1,
        changed: [],
        sent: [],
        events: [{ sourceEventId: 'github:1', effect: 'duplicate', notificationId: null, eventId: null }],
      });
      const mixed = await store.notifications.ingest([event('github:2'), event('github:1')], { now: at(DAY - 1), dedupWindowMs: DAY });
      expect(mixed).toMatchObject({ stored: 1, duplicates: 1, changed: [{ title: 'Event github:2' }] });
      expect(await store.notifications.list({ limit: 10 })).toEqual([...mixed.changed, ...first.changed]);
      // The claim ends a day after NOW: from then on the same id is a new event.
      const later = await store.notifications.ingest([event('github:1')], { now: at(DAY), dedupWindowMs: DAY });
      expect(later).toMatchObject({ stored: 1, duplicates: 0, changed: [{ title: 'Event github:1' }] });
      expect(later.changed[0]?.id).not.toBe(first.changed[0]?.id);
      expect(await store.notifications.list({ limit: 10 })).toHaveLength(3);
      // And its new claim runs from then.
      expect(await store.notifications.ingest([event('github:1')], { now: at(DAY + HOUR), dedupWindowMs: DAY })).toMatchObject({ stored: 0, duplicates: 1 });
    });

    it('stores an event exactly once among 20 concurrent ingests of it from two processes', async () => {
      const [first, second] = [await open(), await open()];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).notifications.ingest([event('vercel:dep-1')], inWindow)),
      );
      expect(results.reduce((sum, r) => sum + r.stored, 0)).toBe(1);
      expect(results.reduce((sum, r) => sum + r.duplicates, 0)).toBe(19);
      const rows = await second.notifications.list({ limit: 10 });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ title: 'Event vercel:dep-1', eventCount: 1 });
      expect(results.flatMap((r) => r.changed)).toEqual(rows);
    });

    it('folds a monitor going down and up into one resolved row, and a second outage into a new row', async () => {
      const store = await open();
      const down = await store.notifications.ingest([monitor('uptime:1', 'trigger', at(0))], inWindow);
      const [opened] = down.changed;
      expect(opened).toMatchObject({ status: 'open', severity: 'error', eventCount: 1, title: 'Site is down', firstAt: at(0), lastAt: at(0) });
      expect(await store.notifications.unreadCount()).toBe(1);

      const up = await store.notifications.ingest([monitor('uptime:2', 'resolve', at(5 * MINUTE))], inWindow);
      // Same row, resolved; the recovery's `success` does not lower (or raise) its severity.
      expect(up).toEqual({
        stored: 1,
        duplicates: 0,
        sent: [],
        events: [{ sourceEventId: 'uptime:2', effect: 'resolved', notificationId: opened?.id, eventId: expect.any(String) }],
        changed: [{ ...opened, seq: expect.any(Number), status: 'resolved', eventCount: 2, lastAt: at(5 * MINUTE), resolvedAt: at(5 * MINUTE) }],
      });
      expect(up.changed[0]?.seq).toBeGreaterThan(opened?.seq ?? Infinity);

      const again = await store.notifications.ingest([monitor('uptime:3', 'trigger', at(HOUR))], inWindow);
      expect(again.changed).toEqual([expect.objectContaining({ status: 'open', eventCount: 1, firstAt: at(HOUR), resolvedAt: null })]);
      expect(again.changed[0]?.id).not.toBe(opened?.id);
      expect(await store.notifications.list({ limit: 10 })).toEqual([...again.changed, ...up.changed]);
      expect(await store.notifications.unreadCount()).toBe(2);
    });

    it('joins triggers of an open subject: the highest severity, the latest time, the row once in the answer', async () => {
      const store = await open();
      const result = await store.notifications.ingest(
        [
          monitor('uptime:1', 'trigger', at(0), { severity: 'warning', title: 'Site is slow' }),
          event('github:1'),
          monitor('uptime:2', 'trigger', at(2 * MINUTE)),
          // Late: it happened before the previous one.
          monitor('uptime:3', 'trigger', at(MINUTE), { severity: 'warning' }),
          monitor('uptime:4', 'trigger', at(0), { subjectKey: 'uptime:api', severity: 'info' }),
        ],
        inWindow,
      );
      expect(result.stored).toBe(5);
      const [info, site, api] = result.changed;
      expect(result.changed).toHaveLength(3);
      expect(info).toMatchObject({ status: 'info', title: 'Event github:1' });
      expect(site).toMatchObject({ status: 'open', subjectKey: 'uptime:site', title: 'Site is slow', severity: 'error', eventCount: 3, firstAt: at(0), lastAt: at(2 * MINUTE) });
      expect(api).toMatchObject({ status: 'open', subjectKey: 'uptime:api', severity: 'info', eventCount: 1 });
      expect(result.changed.map((row) => row.seq)).toEqual([...result.changed.map((row) => row.seq)].sort((a, b) => a - b));
      expect(await store.notifications.list({ limit: 10 })).toEqual([...result.changed].reverse());
      // The recovery's `success` does not raise an `info` occurrence either.
      const up = await store.notifications.ingest([monitor('uptime:5', 'resolve', at(HOUR), { subjectKey: 'uptime:api' })], inWindow);
      expect(up.changed).toEqual([{ ...api, seq: expect.any(Number), status: 'resolved', severity: 'info', eventCount: 2, lastAt: at(HOUR), resolvedAt: at(HOUR) }]);
    });

    it('folds 20 concurrent triggers of one subject from two processes into one open row of 20 events', async () => {
      const [first, second] = [await open(), await open()];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? first : second).notifications.ingest([monitor(`uptime:${i}`, 'trigger', at(i * SECOND), { severity: i === 7 ? 'error' : 'warning' })], inWindow),
        ),
      );
      expect(results.every((r) => r.stored === 1)).toBe(true);
      const rows = await first.notifications.list({ limit: 10 });
      expect(rows).toEqual([expect.objectContaining({ status: 'open', eventCount: 20, severity: 'error', firstAt: expect.any(String), lastAt: at(19 * SECOND) })]);
      // Every ingest answered the one row, each with a seq of its own.
      const seqs = results.map((r) => r.changed[0]?.seq);
      expect(new Set(results.map((r) => r.changed[0]?.id))).toEqual(new Set([rows[0]?.id]));
      expect(new Set(seqs).size).toBe(20);
      expect(Math.max(...(seqs as number[]))).toBe(rows[0]?.seq);
      // And it resolves as one.
      const up = await second.notifications.ingest([monitor('uptime:up', 'resolve', at(MINUTE))], inWindow);
      expect(up.changed).toEqual([expect.objectContaining({ id: rows[0]?.id, status: 'resolved', eventCount: 21 })]);
    });

    it('keeps other writes working when they start while an ingest is under way', async () => {
      const store = await open();
      // As a batched API request would: writes that start at any moment of a notification transaction must
      // neither time out nor fail. Each starts after `ticks` turns of the microtask queue.
      const after = async (ticks: number, write: () => Promise<unknown>) => {
        for (let i = 0; i < ticks; i++) await Promise.resolve();
        return write();
      };
      const batch = Array.from({ length: 50 }, (_, i) => monitor(`uptime:${i}`, 'trigger', at(i * SECOND)));
      const started = Date.now();
      await Promise.all([
        store.notifications.ingest(batch, inWindow),
        ...[0, 10, 30, 100, 300, 1000].flatMap((ticks) => [
          after(ticks, () => store.settings.update({ widgetLayout: { slots: { seo: 'funding' } } })),
          after(ticks, () => store.auth.sessions.create(session(`s${ticks}`, NOW))),
          after(ticks, () => store.projects.create({ slug: `app-${ticks}`, name: 'App' })),
          after(ticks, () => store.meta.put(`key-${ticks}`, { v: ticks })),
          after(ticks, () => store.notifications.markRead({ all: true }, NOW)),
        ]),
      ]);
      expect(Date.now() - started).toBeLessThan(BUSY_WAIT_MS);
      expect((await store.notifications.list({ limit: 10 }))[0]).toMatchObject({ eventCount: 50 });
      expect((await store.settings.get()).widgetLayout.slots.seo).toBe('funding');
      expect(await store.auth.sessions.list()).toHaveLength(6);
      expect(await store.projects.list()).toHaveLength(6);
    });

    it('keeps a resolve without an open row as a resolved row of its own, and a transition without a subject as info', async () => {
      const store = await open();
      const result = await store.notifications.ingest(
        [monitor('uptime:up', 'resolve', at(0)), monitor('uptime:down', 'trigger', at(MINUTE), { subjectKey: null }), event('sentry:1', { subjectKey: 'sentry:issue-1' })],
        inWindow,
      );
      expect(result.changed).toEqual([
        expect.objectContaining({ status: 'resolved', severity: 'success', eventCount: 1, firstAt: at(0), resolvedAt: at(0), title: 'Site is up' }),
        expect.objectContaining({ status: 'info', severity: 'error', resolvedAt: null, subjectKey: null }),
        expect.objectContaining({ status: 'info', subjectKey: 'sentry:issue-1' }),
      ]);
      // Nothing is open, so a trigger now opens a row instead of joining one.
      const down = await store.notifications.ingest([monitor('uptime:down-2', 'trigger', at(HOUR))], inWindow);
      expect(down.changed).toEqual([expect.objectContaining({ status: 'open', eventCount: 1 })]);
      expect(await store.notifications.list({ limit: 10 })).toHaveLength(4);
    });

    it('writes the relay cursor with its batch, and of a batch that fails neither its events nor its cursor', async () => {
      const store = await open();
      const since = Date.parse(NOW);
      expect(await store.notifications.cursor(RELAY)).toBeUndefined();
      await store.notifications.ingest([event('github:1'), monitor('uptime:1', 'trigger', at(0))], { ...inWindow, cursor: { relayUrl: RELAY, since } });
      expect(await store.notifications.cursor(RELAY)).toBe(since);
      // An empty poll still moves the cursor; another relay has its own.
      await store.notifications.ingest([], { ...inWindow, cursor: { relayUrl: RELAY, since: since + 1 } });
      await store.notifications.ingest([], { ...inWindow, cursor: { relayUrl: 'https://other.example', since: 7 } });
      expect(await store.notifications.cursor(RELAY)).toBe(since + 1);
      expect(await store.notifications.cursor('https://other.example')).toBe(7);
      const before = await store.notifications.list({ limit: 10 });

      const failing = store.notifications.ingest(
        [event('github:2'), monitor('uptime:2', 'resolve', at(MINUTE)), event('github:3', { severity: 'fatal' as NotificationSeverity })],
        { ...inWindow, cursor: { relayUrl: RELAY, since: since + 2 } },
      );
      await expect(failing).rejects.toThrow();
      expect(await store.notifications.cursor(RELAY)).toBe(since + 1);
      expect(await store.notifications.list({ limit: 10 })).toEqual(before);
      expect(await store.notifications.unreadCount()).toBe(2);

      // Nothing of it was claimed either: the batch without the bad event stores both.
      const retry = await store.notifications.ingest([event('github:2'), monitor('uptime:2', 'resolve', at(MINUTE))], { ...inWindow, cursor: { relayUrl: RELAY, since: since + 2 } });
      expect(retry).toMatchObject({ stored: 2, duplicates: 0 });
      expect(retry.changed.map((row) => row.status)).toEqual(['info', 'resolved']);
      expect(await store.notifications.cursor(RELAY)).toBe(since + 2);
    });

    it('folds a trigger, a resolve and a trigger of one subject in ONE batch into a resolved row and a new open one', async () => {
      const store = await open();
      const result = await store.notifications.ingest(
        [
          monitor('uptime:1', 'trigger', at(0)),
          monitor('uptime:2', 'trigger', at(MINUTE), { severity: 'warning', title: 'Site is slow' }),
          monitor('uptime:3', 'resolve', at(2 * MINUTE)),
          monitor('uptime:4', 'trigger', at(3 * MINUTE), { severity: 'warning' }),
          event('github:1'),
        ],
        inWindow,
      );
      expect(result.stored).toBe(5);
      expect(result.duplicates).toBe(0);
      const [first, second, info] = result.changed;
      expect(result.changed).toHaveLength(3);
      expect(first).toMatchObject({ status: 'resolved', title: 'Site is down', severity: 'error', eventCount: 3, firstAt: at(0), lastAt: at(2 * MINUTE), resolvedAt: at(2 * MINUTE) });
      expect(second).toMatchObject({ status: 'open', severity: 'warning', eventCount: 1, firstAt: at(3 * MINUTE), resolvedAt: null });
      expect(info).toMatchObject({ status: 'info', title: 'Event github:1' });
      expect(new Set(ids(result.changed)).size).toBe(3);
      expect(await store.notifications.list({ limit: 10 })).toEqual([...result.changed].reverse());
      // Each event, and its claim, points at the row it folded into.
      const rowOf = { 'uptime:1': first?.id, 'uptime:2': first?.id, 'uptime:3': first?.id, 'uptime:4': second?.id, 'github:1': info?.id };
      expect(Object.fromEntries((await query('select source_event_id, notification_id from notification_events')).map((r) => [r.source_event_id, r.notification_id]))).toEqual(rowOf);
      expect(Object.fromEntries((await query('select source_event_id, notification_id from notification_dedup')).map((r) => [r.source_event_id, r.notification_id]))).toEqual(rowOf);
      // The next resolve closes the second occurrence, not the first.
      const up = await store.notifications.ingest([monitor('uptime:5', 'resolve', at(HOUR))], inWindow);
      expect(up.changed).toEqual([{ ...second, seq: expect.any(Number), status: 'resolved', eventCount: 2, lastAt: at(HOUR), resolvedAt: at(HOUR) }]);
    });

    it('stores a batch larger than a statement holds, with increasing seqs past every earlier one', async () => {
      const store = await open();
      const before = await store.notifications.ingest([event('before')], inWindow);
      const batch = Array.from({ length: 650 }, (_, i) => event(`github:${i}`, { occurredAt: at(i * SECOND) }));
      // One subject's occurrence across the chunks: opened early, joined mid-way, resolved near the end.
      batch[10] = monitor('uptime:down', 'trigger', at(10 * SECOND));
      batch[300] = monitor('uptime:again', 'trigger', at(300 * SECOND), { severity: 'warning' });
      batch[640] = monitor('uptime:up', 'resolve', at(640 * SECOND));
      // A copy in another chunk than its original is a duplicate too.
      batch[620] = event('github:5');
      const result = await store.notifications.ingest(batch, inWindow);
      expect(result).toMatchObject({ stored: 649, duplicates: 1 });
      expect(result.changed).toHaveLength(647);
      const seqs = result.changed.map((row) => row.seq);
      expect(seqs[0]).toBeGreaterThan(before.changed[0]?.seq ?? Infinity);
      expect(seqs.every((seq, i) => i === 0 || seq > (seqs[i - 1] as number))).toBe(true);
      expect(result.changed.filter((row) => row.subjectKey === 'uptime:site')).toEqual([
        expect.objectContaining({ status: 'resolved', eventCount: 3, severity: 'error', firstAt: at(10 * SECOND), resolvedAt: at(640 * SECOND) }),
      ]);
      // In the order of their last change: the occurrence's was its resolve, the 640th event.
      expect(result.changed.findIndex((row) => row.subjectKey === 'uptime:site')).toBe(637);
      expect(await store.notifications.changedSince(before.changed[0]?.seq ?? 0, 1000)).toEqual(result.changed);
      // The batch's 649 and the earlier one.
      expect(await query('select count(*) as n from notification_events')).toEqual([{ n: 650 }]);
      expect(await query('select count(*) as n from notification_dedup')).toEqual([{ n: 650 }]);
      expect(await query(`select hits from notification_dedup where source_event_id = 'github:5'`)).toEqual([{ hits: 2 }]);
    });

    it('counts live duplicates, claims taken over and copies within the batch, each in its claim’s hits', async () => {
      const store = await open();
      // `live` is claimed until a day after an hour ago; `expired`'s claim ended a day ago.
      await store.notifications.ingest([event('live')], { now: at(-HOUR), dedupWindowMs: DAY });
      const [old] = (await store.notifications.ingest([event('expired')], { now: at(-2 * DAY), dedupWindowMs: DAY })).changed;
      const result = await store.notifications.ingest(
        [event('new'), event('live'), event('expired'), event('new'), event('live'), event('live'), event('new')],
        inWindow,
      );
      expect(result).toMatchObject({ stored: 2, duplicates: 5 });
      expect(result.changed.map((row) => row.title)).toEqual(['Event new', 'Event expired']);
      const [fresh, again] = result.changed;
      expect(again?.id).not.toBe(old?.id);
      const claims = await query('select source_event_id, notification_id, first_seen_at, expires_at, hits from notification_dedup order by source_event_id');
      // Postgres answers instants as Dates, SQLite as the ISO text it was given.
      const instant = (value: unknown) => new Date(value as string).toISOString();
      expect(claims.map((c) => ({ ...c, first_seen_at: instant(c.first_seen_at), expires_at: instant(c.expires_at) }))).toEqual([
        // Taken over: its hits start again, and it points at the new row.
        { source_event_id: 'expired', notification_id: again?.id, first_seen_at: NOW, expires_at: at(DAY), hits: 1 },
        { source_event_id: 'live', notification_id: expect.any(String), first_seen_at: at(-HOUR), expires_at: at(DAY - HOUR), hits: 4 },
        { source_event_id: 'new', notification_id: fresh?.id, first_seen_at: NOW, expires_at: at(DAY), hits: 3 },
      ]);
      expect(await store.notifications.list({ limit: 10 })).toHaveLength(4);

      // With no window, a copy in the same batch is still a duplicate; the next batch's is not.
      const zero = { now: NOW, dedupWindowMs: 0 };
      expect(await store.notifications.ingest([event('once'), event('once')], zero)).toMatchObject({ stored: 1, duplicates: 1 });
      expect(await store.notifications.ingest([event('once')], zero)).toMatchObject({ stored: 1, duplicates: 0 });
    });

    it('folds the events after a live duplicate as if it was not there, pointing their claims at the rows they joined', async () => {
      const store = await open();
      // A recovery with nothing open (a row of its own, its claim live), then an outage.
      await store.notifications.ingest([monitor('uptime:up', 'resolve', at(0))], inWindow);
      const [down] = (await store.notifications.ingest([monitor('uptime:down', 'trigger', at(MINUTE))], inWindow)).changed;
      // The recovery again does not close the outage: the next trigger joins it instead of opening a row.
      const result = await store.notifications.ingest([monitor('uptime:up', 'resolve', at(0)), monitor('uptime:down-2', 'trigger', at(2 * MINUTE))], inWindow);
      expect(result).toEqual({
        stored: 1,
        duplicates: 1,
        sent: [],
        events: [
          { sourceEventId: 'uptime:up', effect: 'duplicate', notificationId: null, eventId: null },
          { sourceEventId: 'uptime:down-2', effect: 'joined', notificationId: down?.id, eventId: expect.any(String) },
        ],
        changed: [{ ...down, seq: expect.any(Number), eventCount: 2, lastAt: at(2 * MINUTE) }],
      });
      expect(await query(`select notification_id from notification_dedup where source_event_id = 'uptime:down-2'`)).toEqual([{ notification_id: down?.id }]);
      expect(await query(`select notification_id from notification_events where source_event_id = 'uptime:down-2'`)).toEqual([{ notification_id: down?.id }]);
      expect(await query(`select hits from notification_dedup where source_event_id = 'uptime:up'`)).toEqual([{ hits: 2 }]);
      expect(await store.notifications.list({ limit: 10 })).toHaveLength(2);
    });

    it('keeps a read row read when a batch joins and then resolves it', async () => {
      const store = await open();
      const [opened] = (await store.notifications.ingest([monitor('uptime:1', 'trigger', at(0))], inWindow)).changed;
      const [read] = await store.notifications.markRead({ ids: [opened?.id ?? ''] }, at(MINUTE));
      expect(read?.readAt).toBe(at(MINUTE));
      const joined = await store.notifications.ingest([event('github:1'), monitor('uptime:2', 'trigger', at(2 * MINUTE))], inWindow);
      expect(joined.changed).toEqual([
        expect.objectContaining({ status: 'info', readAt: null }),
        { ...read, seq: expect.any(Number), eventCount: 2, lastAt: at(2 * MINUTE) },
      ]);
      expect(joined.changed[1]?.seq).toBeGreaterThan(read?.seq ?? Infinity);
      expect(await store.notifications.unreadCount()).toBe(1);
      const resolved = await store.notifications.ingest([monitor('uptime:3', 'resolve', at(3 * MINUTE))], inWindow);
      expect(resolved.changed).toEqual([{ ...read, seq: expect.any(Number), status: 'resolved', eventCount: 3, lastAt: at(3 * MINUTE), resolvedAt: at(3 * MINUTE) }]);
      expect(await store.notifications.list({ limit: 10, unread: true })).toEqual([joined.changed[0]]);
    });

    it('answers each changed row once, as the batch left it, in seq order (the order of their last change)', async () => {
      const store = await open();
      const [earlier] = (await store.notifications.ingest([event('earlier')], inWindow)).changed;
      const result = await store.notifications.ingest(
        [
          monitor('a:1', 'trigger', at(0), { subjectKey: 'monitor:a' }),
          event('x'),
          monitor('b:1', 'trigger', at(0), { subjectKey: 'monitor:b' }),
          monitor('a:2', 'trigger', at(MINUTE), { subjectKey: 'monitor:a' }),
          monitor('b:2', 'resolve', at(MINUTE), { subjectKey: 'monitor:b' }),
          event('y'),
        ],
        inWindow,
      );
      expect(result.changed.map((row) => [row.title, row.subjectKey, row.status, row.eventCount])).toEqual([
        ['Event x', null, 'info', 1],
        ['Site is down', 'monitor:a', 'open', 2],
        ['Site is down', 'monitor:b', 'resolved', 2],
        ['Event y', null, 'info', 1],
      ]);
      const seqs = result.changed.map((row) => row.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(4);
      expect(await store.notifications.changedSince(earlier?.seq ?? 0, 10)).toEqual(result.changed);
    });
  });
});
