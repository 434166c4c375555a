import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { testClock } from '@dash/connectors/testing';
import type { Notification, NotificationStreamEvent } from '@dash/contracts';
import type { RelayEvent } from '@dash/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApi, notificationStream, restClient } from '../testing.ts';

// The inbox's procedures and REST paths: GET /api/notifications (+ /unread), POST /api/notifications/read,
// and the live stream (notifications.stream) through a server-side caller.

const NOW = Date.parse('2026-05-02T09:00:00.000Z');

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function dashboard() {
  const clock = testClock(NOW);
  const api = await createTestApi({ clock });
  cleanup.push(() => api.dispose());
  const call = restClient(() => api.caller);
  await api.caller.projects.create({ slug: 'web', name: 'Web', integrations: { code_host: { repos: ['acme/web'] }, deploy_host: { projectId: 'prj_web' } } });
  await api.caller.projects.create({ slug: 'ops', name: 'Ops', integrations: { error_tracker: { org: 'acme', project: 'ops-api' }, uptime_monitor: { monitorIds: ['101'] } } });
  return {
    ...api,
    clock,
    call,
    inbox: api.ctx.notifications.inbox,
    async list(query = ''): Promise<{ notifications: Notification[]; unreadCount: number; nextBefore: number | null }> {
      const res = await call('GET', `/api/notifications${query}`);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      return res.json as never;
    },
    async unread(): Promise<number> {
      const res = await call('GET', '/api/notifications/unread');
      expect(res.status).toBe(200);
      return (res.json as { unreadCount: number }).unreadCount;
    },
  };
}
type Dashboard = Awaited<ReturnType<typeof dashboard>>;

const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

/** Five events of the five integrations, oldest first, as the relay serves them. */
const fiveEvents = (): RelayEvent[] => [
  {
    id: 'relay-1',
    integration: 'code_host',
    type: 'pr.merged',
    sourceEventId: 'github:acme/web:pr:7:merged',
    title: 'PR #7 merged: Faster checkout',
    url: 'https://github.com/acme/web/pull/7',
    severity: 'success',
    occurredAt: at(50),
    receivedAt: at(49),
    refs: ['code_host:acme/web'],
  },
  {
    id: 'relay-2',
    integration: 'deploy_host',
    type: 'deploy.error',
    sourceEventId: 'vercel:dpl_1:error',
    title: 'Deploy failed: web (production)',
    url: 'https://web-1.vercel.app',
    severity: 'error',
    occurredAt: at(40),
    receivedAt: at(39),
    subject: 'vercel:prj_web:production',
    transition: 'trigger',
    refs: ['deploy_host:prj_web'],
  },
  {
    id: 'relay-3',
    integration: 'issue_tracker',
    type: 'issue.created',
    sourceEventId: 'linear:issue:abc:created:1',
    title: 'ENG-1 created: Dark mode',
    url: 'https://linear.app/acme/issue/ENG-1',
    severity: 'info',
    occurredAt: at(30),
    receivedAt: at(29),
    refs: ['issue_tracker:team-nobody-has'],
  },
  {
    id: 'relay-4',
    integration: 'error_tracker',
    type: 'error.issue_created',
    sourceEventId: 'sentry:issue:42:created',
    title: 'New issue OPS-1: TypeError',
    url: 'https://sentry.io/organizations/acme/issues/42/',
    severity: 'error',
    occurredAt: at(20),
    receivedAt: at(19),
    subject: 'sentry:issue:42',
    transition: 'trigger',
    refs: ['error_tracker:ops-api'],
  },
  {
    id: 'relay-5',
    integration: 'uptime_monitor',
    type: 'monitor.down',
    sourceEventId: 'betterstack:incident:9:started:x',
    title: 'Monitor down: API (Timeout)',
    url: 'https://api.example.com',
    severity: 'error',
    occurredAt: at(10),
    receivedAt: at(9),
    subject: 'betterstack:monitor:101',
    transition: 'trigger',
    refs: ['uptime_monitor:101'],
  },
];

/** A stateless event of its own (a merged PR), for streams and volume. */
const prEvent = (n: number): RelayEvent => ({
  id: randomUUID(),
  integration: 'code_host',
  type: 'pr.merged',
  sourceEventId: `github:acme/web:pr:${1000 + n}:merged`,
  title: `PR #${1000 + n} merged`,
  url: `https://github.com/acme/web/pull/${1000 + n}`,
  severity: 'success',
  occurredAt: at(5),
  receivedAt: at(4),
  refs: ['code_host:acme/web'],
});

/** Stores the five events one after another and answers the list, newest first. */
async function seed(dash: Dashboard) {
  for (const event of fiveEvents()) await dash.inbox.ingest([event]);
  return (await dash.list()).notifications;
}

const errorOf = (res: { json: Record<string, unknown> }) => (res.json as { error: { code: string; message: string; issues?: unknown[] } }).error;

// ---------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------

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

describe('webhooks.receive input', () => {
  it('refuses a body that is not base64 and an over-long integration name, storing nothing', async () => {
    const dash = await dashboard();
    await expect(dash.caller.webhooks.receive({ integration: 'code_host', body: '{"not":"base64"}', headers: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(dash.caller.webhooks.receive({ integration: 'x'.repeat(41), body: '', headers: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await dash.unread()).toBe(0);
  });
});
