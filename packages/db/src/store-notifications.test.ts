import { describe, expect, it } from 'vitest';
import type { IncomingEvent, NotificationQuery, Store } from './index.ts';
import { at, DAY, event, HOUR, ids, inWindow, MINUTE, monitor, NOW } from './testing/store-fixtures.ts';
import { describeStores } from './testing/store-suite.ts';

/** The notifications once stored, on every engine: lists and pages, marking read and what changed since, pruning, removing and assigning them to projects. */

await describeStores('the notifications\' reads', ({ open }) => {
  describe('notifications', () => {
    /** Ingests one stateless event per id, one batch each, answering their rows in order. */
    async function ingestEach(store: Store, events: IncomingEvent[]) {
      const rows = [];
      for (const e of events) rows.push(...(await store.notifications.ingest([e], inWindow)).changed);
      return rows;
    }

    it('lists newest first with filters and pages with beforeSeq', async () => {
      const store = await open();
      const [e1, e2, e3, e4, e5] = await ingestEach(store, [
        event('e1', { projectSlug: 'app' }),
        event('e2', { integration: 'vercel', projectSlug: 'app' }),
        event('e3', { projectSlug: 'other' }),
        event('e4'),
        event('e5', { integration: 'vercel', projectSlug: 'app' }),
      ]);
      if (!e1 || !e2 || !e3 || !e4 || !e5) throw new Error('expected five rows');
      const list = (query: NotificationQuery) => store.notifications.list(query);
      expect(await list({ limit: 10 })).toEqual([e5, e4, e3, e2, e1]);
      expect(await list({ limit: 2 })).toEqual([e5, e4]);
      expect(await list({ limit: 2, beforeSeq: e4.seq })).toEqual([e3, e2]);
      expect(await list({ limit: 2, beforeSeq: e2.seq })).toEqual([e1]);
      expect(await list({ limit: 2, beforeSeq: e1.seq })).toEqual([]);
      expect(ids(await list({ limit: 10, integration: 'github' }))).toEqual(ids([e4, e3, e1]));
      expect(ids(await list({ limit: 10, projectSlug: 'app' }))).toEqual(ids([e5, e2, e1]));
      expect(ids(await list({ limit: 10, projectSlug: 'app', integration: 'github' }))).toEqual(ids([e1]));
      expect(ids(await list({ limit: 1, projectSlug: 'app', beforeSeq: e5.seq }))).toEqual(ids([e2]));

      await store.notifications.markRead({ ids: [e3.id] }, at(HOUR));
      expect(ids(await list({ limit: 10, unread: true }))).toEqual(ids([e5, e4, e2, e1]));
      expect(ids(await list({ limit: 10, unread: true, integration: 'github' }))).toEqual(ids([e4, e1]));
      // Reading moved e3's seq past the others, but not its place in the list, nor any page's contents.
      expect(ids(await list({ limit: 10 }))).toEqual(ids([e5, e4, e3, e2, e1]));
      expect(ids(await list({ limit: 2, beforeSeq: e4.createdSeq }))).toEqual(ids([e3, e2]));
      const [read] = await list({ limit: 1, beforeSeq: e4.createdSeq });
      expect(read?.seq).toBeGreaterThan(e5.seq);
      expect(read?.createdSeq).toBe(e3.createdSeq);
    });

    it('marks rows read with a bigger seq, which changedSince replays, and counts the unread', async () => {
      const store = await open();
      const { changed } = await store.notifications.ingest([event('a'), event('b'), event('c')], inWindow);
      const [a, b, c] = changed;
      if (!a || !b || !c) throw new Error('expected three rows');
      expect(await store.notifications.changedSince(0, 10)).toEqual(changed);
      expect(await store.notifications.changedSince(a.seq, 10)).toEqual([b, c]);
      expect(await store.notifications.changedSince(c.seq, 10)).toEqual([]);
      expect(await store.notifications.unreadCount()).toBe(3);

      const read = await store.notifications.markRead({ ids: [c.id, b.id, 'ghost'] }, '2026-11-23T12:00:00+01:00');
      expect(read).toEqual([
        { ...b, seq: expect.any(Number), readAt: at(HOUR) },
        { ...c, seq: expect.any(Number), readAt: at(HOUR) },
      ]);
      expect(read[0]?.seq).toBeGreaterThan(c.seq);
      expect(read[1]?.seq).toBeGreaterThan(read[0]?.seq ?? Infinity);
      expect(await store.notifications.changedSince(c.seq, 10)).toEqual(read);
      expect(await store.notifications.changedSince(c.seq, 1)).toEqual(read.slice(0, 1));
      expect(await store.notifications.unreadCount()).toBe(1);

      // Already read: nothing changes, not even the seq.
      expect(await store.notifications.markRead({ ids: [b.id] }, at(2 * HOUR))).toEqual([]);
      expect(await store.notifications.markRead({ ids: [] }, at(2 * HOUR))).toEqual([]);
      const lastSeen = read[1]?.seq ?? 0;
      expect(await store.notifications.changedSince(lastSeen, 10)).toEqual([]);

      const all = await store.notifications.markRead({ all: true }, at(3 * HOUR));
      expect(all).toEqual([{ ...a, seq: expect.any(Number), readAt: at(3 * HOUR) }]);
      expect(all[0]?.seq).toBeGreaterThan(lastSeen);
      expect(await store.notifications.changedSince(lastSeen, 10)).toEqual(all);
      expect(await store.notifications.unreadCount()).toBe(0);
      expect(await store.notifications.markRead({ all: true }, at(4 * HOUR))).toEqual([]);
    });

    it('prunes rows read before the one cut-off and unread rows received before the other, never reusing a seq', async () => {
      const store = await open();
      const old = { now: at(-40 * DAY), dedupWindowMs: 60 * DAY };
      const received = (ms: number) => ({ occurredAt: at(ms), receivedAt: at(ms) });
      const { changed } = await store.notifications.ingest(
        [event('old-read', received(-40 * DAY)), event('recent-read', received(-40 * DAY)), event('old-unread', received(-40 * DAY)), event('recent-unread', received(-10 * DAY))],
        old,
      );
      const [oldRead, recentRead, oldUnread, recentUnread] = changed;
      if (!oldRead || !recentRead || !oldUnread || !recentUnread) throw new Error('expected four rows');
      await store.notifications.markRead({ ids: [recentRead.id] }, at(-DAY));
      // Read last, so it holds the highest seq when it is pruned.
      const [lastRead] = await store.notifications.markRead({ ids: [oldRead.id] }, at(-20 * DAY));

      expect(await store.notifications.prune(at(-7 * DAY), at(-30 * DAY))).toBe(2);
      expect(ids(await store.notifications.list({ limit: 10 }))).toEqual(ids([recentUnread, recentRead]));
      expect(await store.notifications.unreadCount()).toBe(1);
      expect(await store.notifications.prune(at(-7 * DAY), at(-30 * DAY))).toBe(0);

      // The pruned rows' claims are still live: a late copy of their events is a duplicate.
      expect(await store.notifications.ingest([event('old-unread')], inWindow)).toMatchObject({ stored: 0, duplicates: 1 });
      // The next row's seq is past the pruned one's, so a reader who saw that misses nothing.
      const next = await store.notifications.ingest([event('new')], inWindow);
      expect(next.changed[0]?.seq).toBeGreaterThan(lastRead?.seq ?? Infinity);
      expect(await store.notifications.changedSince(lastRead?.seq ?? 0, 10)).toEqual(next.changed);

      // Cut-offs at NOW take every read row and every unread one received before it.
      expect(await store.notifications.prune(NOW, NOW)).toBe(2);
      expect(ids(await store.notifications.list({ limit: 10 }))).toEqual(ids(next.changed));
    });
  });

  describe('notifications of removed projects', () => {
    it('removes the rows of the named projects with their events and claims, leaving the others', async () => {
      const store = await open();
      await store.notifications.ingest(
        [event('a-1', { projectSlug: 'a' }), event('a-2', { projectSlug: 'a' }), event('b-1', { projectSlug: 'b' }), event('none')],
        inWindow,
      );
      expect(await store.notifications.removeForProjects([])).toBe(0);
      expect(await store.notifications.removeForProjects(['a', 'gone'])).toBe(2);
      expect((await store.notifications.list({ limit: 10 })).map((row) => row.projectSlug).sort()).toEqual(['b', null]);
      // Their events may come again (the demo added back) and are new rows; the others' stay duplicates.
      expect(await store.notifications.ingest([event('a-1', { projectSlug: 'a' }), event('b-1', { projectSlug: 'b' })], inWindow)).toMatchObject({
        stored: 1,
        duplicates: 1,
      });
    });
  });

  describe('late assignment of notifications', () => {
    const ownsApp = (refs: readonly string[]) => (refs.some((ref) => ref.toLowerCase() === 'code_host:acme/app') ? 'app' : null);

    it('gives the unassigned rows whose refs a new project claims to it with new seqs, their events too, and moves no other row', async () => {
      const store = await open();
      await store.notifications.ingest(
        [
          event('gh-1', { refs: ['code_host:Acme/App'] }),
          event('gh-2', { refs: ['code_host:acme/other'] }),
          event('gh-3', { refs: ['code_host:acme/app'], projectSlug: 'first' }),
          // As a row stored before refs were kept.
          event('old'),
        ],
        inWindow,
      );
      await store.notifications.ingest([monitor('down', 'trigger', NOW, { refs: ['uptime_monitor:7', 'code_host:acme/app'] }), monitor('up', 'resolve', at(MINUTE))], inWindow);
      const before = await store.notifications.latestSeq();
      const bySource = async () => new Map((await store.transfer.dump()).notification_events.map((row) => [row.sourceEventId, row]));
      const seqs = new Map((await store.notifications.list({ limit: 10 })).map((row) => [row.title, row.seq]));
      await store.projects.create({ slug: 'app', name: 'App', integrations: { code_host: { repos: ['acme/app'] } } });

      const assigned = await store.notifications.outbox((ops) => ops.assign(ownsApp));
      expect(assigned.map((row) => [row.title, row.projectSlug])).toEqual([
        ['Event gh-1', 'app'],
        ['Site is down', 'app'],
      ]);
      expect(assigned.every((row) => row.seq > before)).toBe(true);
      expect(await store.notifications.changedSince(before, 10)).toEqual(assigned);
      expect((await store.notifications.list({ limit: 10, projectSlug: 'app' })).map((row) => row.title)).toEqual(['Site is down', 'Event gh-1']);
      expect((await bySource()).get('up')?.projectSlug).toBe('app');
      // The row another project has keeps it, and its seq.
      const [first] = await store.notifications.list({ limit: 10, projectSlug: 'first' });
      expect([first?.title, first?.seq]).toEqual(['Event gh-3', seqs.get('Event gh-3')]);
      // Nothing is left to assign; then any project's claim takes only the rows without a project that have refs.
      expect(await store.notifications.outbox((ops) => ops.assign(ownsApp))).toEqual([]);
      expect((await store.notifications.outbox((ops) => ops.assign(() => 'other'))).map((row) => row.title)).toEqual(['Event gh-2']);
      expect((await store.notifications.list({ limit: 10 })).map((row) => [row.title, row.projectSlug])).toEqual([
        ['Site is down', 'app'],
        ['Event old', null],
        ['Event gh-3', 'first'],
        ['Event gh-2', 'other'],
        ['Event gh-1', 'app'],
      ]);
      expect((await store.transfer.dump()).notifications.find((row) => row.title === 'Event gh-1')?.refs).toBe('["code_host:Acme/App"]');
    });
  });
});
