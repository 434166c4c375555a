import { describe, expect, it } from 'vitest';
import { errorOf, inboxDashboards, NOW, seed } from './notifications-testing.ts';

// Reading the inbox: POST /api/notifications/read (ids or all) and the unread count, GET /api/notifications/unread.

const { dashboard } = inboxDashboards();

describe('POST /api/notifications/read and GET /api/notifications/unread', () => {
  it('marks the listed ids read, then all, updating the unread count', async () => {
    const dash = await dashboard();
    const all = await seed(dash);
    expect((await dash.call('GET', '/api/notifications/unread')).json).toEqual({ unreadCount: 5, seq: expect.any(Number) });

    const two = [all[0]!.id, all[3]!.id];
    const res = await dash.call('POST', '/api/notifications/read', { ids: two });
    expect([res.status, res.json]).toEqual([200, { ok: true, marked: 2, unreadCount: 3 }]);
    expect(await dash.unread()).toBe(3);
    const after = await dash.list();
    expect(after.unreadCount).toBe(3);
    const readAt = new Date(NOW).toISOString();
    expect(after.notifications.filter((n) => n.readAt !== null).map((n) => [n.id, n.readAt])).toEqual(
      expect.arrayContaining(two.map((id) => [id, readAt])),
    );
    expect(after.notifications.filter((n) => n.readAt !== null)).toHaveLength(2);

    // Again, or an id that does not exist: nothing more to mark.
    expect((await dash.call('POST', '/api/notifications/read', { ids: [...two, 'no-such-id'] })).json).toEqual({ ok: true, marked: 0, unreadCount: 3 });

    dash.clock.advance(60_000);
    expect((await dash.call('POST', '/api/notifications/read', { all: true })).json).toEqual({ ok: true, marked: 3, unreadCount: 0 });
    expect(await dash.unread()).toBe(0);
    const final = await dash.list();
    expect(final.notifications.every((n) => n.readAt !== null)).toBe(true);
    // The first two keep the time they were read.
    expect(final.notifications.filter((n) => two.includes(n.id)).map((n) => n.readAt)).toEqual([readAt, readAt]);
    expect((await dash.list('?unread=1')).notifications).toEqual([]);
    expect((await dash.call('POST', '/api/notifications/read', { all: true })).json).toEqual({ ok: true, marked: 0, unreadCount: 0 });
  });

  it('answers 400 (or 415) JSON to a bad body and marks nothing', async () => {
    const dash = await dashboard();
    const all = await seed(dash);
    const bodies: unknown[] = [
      {},
      { ids: [] },
      { ids: 'abc' },
      { ids: [''] },
      { ids: [1, 2] },
      { all: false },
      { all: 'true' },
      { ids: [all[0]!.id], all: true },
      { ids: [all[0]!.id], extra: 1 },
      { ids: Array.from({ length: 501 }, (_, i) => `id-${i}`) },
      [all[0]!.id],
      '{"ids": [',
    ];
    for (const body of bodies) {
      const res = await dash.call('POST', '/api/notifications/read', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(res).code, JSON.stringify(body)).toBe('BAD_REQUEST');
    }
    const form = await dash.call('POST', '/api/notifications/read', 'all=true', { 'content-type': 'application/x-www-form-urlencoded' });
    expect([form.status, errorOf(form).code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect(await dash.unread()).toBe(5);
    expect((await dash.list()).notifications).toEqual(all);
  });

  it('answers 405 to the wrong method', async () => {
    const dash = await dashboard();
    const res = await dash.call('GET', '/api/notifications/read');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
