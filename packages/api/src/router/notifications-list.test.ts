import { describe, expect, it } from 'vitest';
import { at, errorOf, fiveEvents, inboxDashboards, seed } from './notifications-testing.ts';

// The inbox's list, GET /api/notifications: newest first with every field, paged with before/nextBefore, filtered by
// unread, project and integration; a bad query answered 400.

const { dashboard } = inboxDashboards();

describe('GET /api/notifications', () => {
  it('lists the notifications newest first, each with every field', async () => {
    const dash = await dashboard();
    const list = await seed(dash);
    expect(list.map((n) => n.title)).toEqual(fiveEvents().map((e) => e.title).reverse());
    expect(list.map((n) => n.seq)).toEqual([...list.map((n) => n.seq)].sort((a, b) => b - a));
    expect(new Set(list.map((n) => n.id)).size).toBe(5);

    const byTitle = (title: string) => list.find((n) => n.title === title);
    expect(byTitle('PR #7 merged: Faster checkout')).toEqual({
      id: expect.any(String),
      seq: expect.any(Number),
      createdSeq: expect.any(Number),
      integration: 'code_host',
      type: 'pr.merged',
      title: 'PR #7 merged: Faster checkout',
      url: 'https://github.com/acme/web/pull/7',
      project: 'web',
      severity: 'success',
      resolved: null,
      occurredAt: at(50),
      lastAt: at(50),
      resolvedAt: null,
      receivedAt: at(49),
      readAt: null,
      eventCount: 1,
      subjectKey: null,
      snoozedUntil: null,
      mutedUntil: null,
      decision: {
        severity: 'success',
        channels: ['inApp'],
        bypassQuietHours: false,
        trace: [
          { stage: 'preference', id: 'default', name: 'Built-in defaults', verdict: 'applied', why: 'a change: in-app only' },
          { stage: 'delivery', id: 'delivery', name: 'Delivery', verdict: 'none', why: 'in the inbox only' },
        ],
      },
    });
    expect(byTitle('Monitor down: API (Timeout)')).toMatchObject({ integration: 'uptime_monitor', project: 'ops', severity: 'error', resolved: false });
    expect(byTitle('Deploy failed: web (production)')).toMatchObject({ project: 'web', resolved: false });
    expect(byTitle('New issue OPS-1: TypeError')).toMatchObject({ project: 'ops', resolved: false });
    // Matched by no project: kept, with none.
    expect(byTitle('ENG-1 created: Dark mode')).toMatchObject({ project: null, resolved: null, severity: 'info' });

    expect(await dash.list()).toEqual({ notifications: list, unreadCount: 5, nextBefore: null });
  });

  it('shows an outage as resolved once its recovery came', async () => {
    const dash = await dashboard();
    await seed(dash);
    await dash.inbox.ingest([
      {
        id: 'relay-6',
        integration: 'uptime_monitor',
        type: 'monitor.up',
        sourceEventId: 'betterstack:incident:9:resolved:y',
        title: 'Monitor up: API',
        severity: 'success',
        occurredAt: at(2),
        receivedAt: at(1),
        subject: 'betterstack:monitor:101',
        transition: 'resolve',
        refs: ['uptime_monitor:101'],
      },
    ]);
    const { notifications, unreadCount } = await dash.list();
    expect(notifications).toHaveLength(5);
    expect(notifications[0]).toMatchObject({ title: 'Monitor down: API (Timeout)', resolved: true, resolvedAt: at(2), lastAt: at(2), eventCount: 2 });
    expect(unreadCount).toBe(5);
  });

  it('pages with before and nextBefore, without gaps or repeats', async () => {
    const dash = await dashboard();
    const all = await seed(dash);
    const first = await dash.list('?limit=2');
    expect(first.notifications).toEqual(all.slice(0, 2));
    expect(first.nextBefore).toBe(all[1]!.seq);
    const second = await dash.list(`?limit=2&before=${first.nextBefore}`);
    expect(second.notifications).toEqual(all.slice(2, 4));
    expect(second.nextBefore).toBe(all[3]!.seq);
    const last = await dash.list(`?limit=2&before=${second.nextBefore}`);
    expect(last).toEqual({ notifications: all.slice(4), unreadCount: 5, nextBefore: null });

    // A page that ends exactly at the last row says "ask again"; the next is empty and final.
    const exact = await dash.list(`?limit=4&before=${all[0]!.seq}`);
    expect(exact.notifications).toEqual(all.slice(1));
    expect(await dash.list(`?limit=4&before=${exact.nextBefore}`)).toEqual({ notifications: [], unreadCount: 5, nextBefore: null });
  });

  it('keeps its newest-first order when an older notification is read', async () => {
    const dash = await dashboard();
    const all = await seed(dash);
    // The founder opens the oldest one from the bell.
    await dash.call('POST', '/api/notifications/read', { ids: [all[4]!.id] });
    expect((await dash.list()).notifications.map((n) => n.title)).toEqual(all.map((n) => n.title));
  });

  it('pages through every notification once even when one not yet paged to is read meanwhile', async () => {
    const dash = await dashboard();
    const all = await seed(dash);
    const first = await dash.list('?limit=2');
    // Another tab reads the oldest notification while this one pages.
    await dash.call('POST', '/api/notifications/read', { ids: [all[4]!.id] });
    const rest = await dash.list(`?limit=10&before=${first.nextBefore}`);
    expect([...first.notifications, ...rest.notifications].map((n) => n.id).sort()).toEqual(all.map((n) => n.id).sort());
  });

  it('filters by unread, project and integration, alone and together', async () => {
    const dash = await dashboard();
    const all = await seed(dash);
    const titles = async (query: string) => (await dash.list(query)).notifications.map((n) => n.title);
    expect(await titles('?project=web')).toEqual(['Deploy failed: web (production)', 'PR #7 merged: Faster checkout']);
    expect(await titles('?project=ops')).toEqual(['Monitor down: API (Timeout)', 'New issue OPS-1: TypeError']);
    expect(await titles('?project=nobody')).toEqual([]);
    expect(await titles('?integration=uptime_monitor')).toEqual(['Monitor down: API (Timeout)']);
    expect(await titles('?integration=issue_tracker&project=web')).toEqual([]);

    const read = all.filter((n) => ['PR #7 merged: Faster checkout', 'Monitor down: API (Timeout)'].includes(n.title));
    await dash.caller.notifications.markRead({ ids: read.map((n) => n.id) });
    const unreadTitles = ['New issue OPS-1: TypeError', 'ENG-1 created: Dark mode', 'Deploy failed: web (production)'];
    expect(await titles('?unread=1')).toEqual(unreadTitles);
    expect(await titles('?unread=true')).toEqual(unreadTitles);
    expect((await titles('?unread=false')).sort()).toEqual(all.map((n) => n.title).sort());
    expect(await titles('?project=web&unread=1')).toEqual(['Deploy failed: web (production)']);
    expect(await titles('?project=ops&integration=error_tracker&unread=1')).toEqual(['New issue OPS-1: TypeError']);
    expect(await titles('?project=ops&integration=uptime_monitor&unread=1')).toEqual([]);
    // The count is the inbox's, whatever the filter.
    expect((await dash.list('?project=web')).unreadCount).toBe(3);
  });

  it('answers 400 JSON naming the field for a bad query, and changes nothing', async () => {
    const dash = await dashboard();
    const before = await seed(dash);
    const bad: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=101', 'limit'],
      ['limit=2.5', 'limit'],
      ['before=0', 'before'],
      ['before=soon', 'before'],
      ['unread=maybe', 'unread'],
      ['project=', 'project'],
      [`integration=${'x'.repeat(201)}`, 'integration'],
    ];
    for (const [query, field] of bad) {
      const res = await dash.call('GET', `/api/notifications?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toMatch(/^application\/json/);
      expect(errorOf(res), query).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining(field), issues: [expect.objectContaining({ path: [field] })] });
    }
    expect(errorOf(await dash.call('GET', '/api/notifications?limit=0')).issues).toEqual([{ path: ['limit'], message: 'limit is at least 1' }]);
    expect((await dash.list()).notifications).toEqual(before);
    expect(await dash.unread()).toBe(5);
  });
});
