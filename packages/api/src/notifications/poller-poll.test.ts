import { githubDelivery, POLL_SECRET } from '@dash/relay/testing';
import { describe, expect, it } from 'vitest';
import * as betterstack from '../../../webhooks/src/betterstack/fixtures.ts';
import { clockAtNoon, createProjects, pollerTests, post, relayEnv, relayPage, signed, sixDeliveries, sixExpected } from './poller-testing.ts';

// POST /api/relay/poll against the real relay: nothing asked while it is not configured; each provider-signed webhook
// stored once, with its project, and the relay's timestamp kept as the cursor, resumed from after a restart; every page.

const { startRelay, dashboard } = pollerTests();

describe('POST /api/relay/poll with the real relay', () => {
  it('answers { configured: false } while the relay URL or the poll secret is missing, and asks the relay nothing', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);

    const urlOnly = await dashboard({ relay: relayEnv(relay.url(), undefined) });
    const secretOnly = await dashboard({ relay: relayEnv(undefined, POLL_SECRET) });
    const none = await dashboard();
    for (const dash of [urlOnly, secretOnly, none]) {
      const res = await dash.call('POST', '/api/relay/poll');
      expect([res.status, res.json]).toEqual([200, { configured: false }]);
    }

    // Settings alone: a URL without a secret, then a secret without a URL.
    expect((await none.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    expect((await none.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });
    expect((await none.call('POST', '/api/settings', { relayUrl: null })).status).toBe(200);
    await none.caller.relay.saveSecret({ secret: POLL_SECRET });
    expect((await none.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });

    expect(relay.polls()).toEqual([]);
    for (const dash of [urlOnly, secretOnly, none]) expect(await dash.inbox()).toEqual([]);
  });

  it("stores provider-signed webhooks exactly once, each with its project (none when unmatched), and keeps the relay's timestamp as the cursor", async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    await createProjects(dash);
    await post(relay, sixDeliveries());
    const { timestamp } = await relayPage(relay);
    expect(timestamp).toBeGreaterThan(0);

    const res = await dash.call('POST', '/api/relay/poll');
    expect([res.status, res.json]).toEqual([200, { configured: true, eventCount: 6, relayTimestamp: timestamp }]);
    expect(await dash.cursor(relay.url())).toBe(timestamp);

    const inbox = await dash.inbox();
    expect(inbox).toHaveLength(6);
    // Newest first: the reverse of the order they were posted in.
    expect([...inbox].reverse()).toEqual(sixExpected.map((expected): unknown => expect.objectContaining(expected)));
    expect(new Set(inbox.map((n) => n.id)).size).toBe(6);
    expect(inbox.every((n) => n.readAt === null && n.eventCount === 1)).toBe(true);
    expect((await dash.call('GET', '/api/notifications/unread')).json).toMatchObject({ unreadCount: 6 });

    // Polling again finds nothing new and stores nothing.
    const again = await dash.call('POST', '/api/relay/poll');
    expect(again.json).toEqual({ configured: true, eventCount: 0, relayTimestamp: timestamp });
    expect(await dash.inbox()).toEqual(inbox);
    expect(await dash.cursor(relay.url())).toBe(timestamp);

    // The first poll started from nothing, the second from the cursor; both for pages of 500.
    expect(relay.polls()).toEqual([
      expect.objectContaining({ status: 200, query: { since: '0', limit: '500' } }),
      expect.objectContaining({ status: 200, query: { since: String(timestamp), limit: '500' } }),
    ]);
  });

  it('resumes from the stored cursor after a restart: nothing twice, later events arrive', async () => {
    const relay = await startRelay();
    const first = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    await createProjects(first);
    await post(relay, sixDeliveries().slice(0, 3));
    expect((await first.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 3 });
    const before = await first.inbox();
    const cursor = await first.cursor(relay.url());
    await first.dispose();

    // While the dashboard is down: two more webhooks.
    await post(relay, [signed.unmatched(7), signed.betterstack(betterstack.incident('started', { id: '99' }))]);
    const { timestamp } = await relayPage(relay);
    expect(timestamp).toBeGreaterThan(cursor!);

    const restarted = await dashboard({ dir: first.dir, credentialsKey: first.credentialsKey, relay: relayEnv(relay.url(), POLL_SECRET) });
    expect(await restarted.cursor(relay.url())).toBe(cursor);
    const res = await restarted.call('POST', '/api/relay/poll');
    // Only the two that came after the cursor were read.
    expect(res.json).toEqual({ configured: true, eventCount: 2, relayTimestamp: timestamp });
    expect(relay.polls().at(-1)?.query.since).toBe(String(cursor));
    const inbox = await restarted.inbox();
    expect(inbox).toHaveLength(5);
    expect(inbox.slice(2)).toEqual(before);
    expect(inbox.slice(0, 2)).toEqual([
      expect.objectContaining({ integration: 'uptime_monitor', project: 'ops' }),
      expect.objectContaining({ integration: 'code_host', project: null, url: 'https://github.com/acme/app/pull/7' }),
    ]);
    expect(await restarted.cursor(relay.url())).toBe(timestamp);
  });

  it('reads every page: 1,200 events buffered in the relay are all stored by one call', async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET), clock: clockAtNoon() });
    // Through the relay's own webhook path (in-process, to keep it quick), from enough addresses to stay
    // within its 100 webhooks a minute per address.
    for (let i = 0; i < 1_200; i++) {
      expect(await relay.accept(githubDelivery({ number: i + 1, ip: `203.0.113.${Math.floor(i / 60)}` }))).toBe(200);
    }
    const { events, timestamp } = await relayPage(relay);
    expect(events).toHaveLength(1_000); // the relay's own largest page
    const last = await relayPage(relay, timestamp);
    expect(last.events).toHaveLength(200);

    const res = await dash.call('POST', '/api/relay/poll');
    expect(res.json).toEqual({ configured: true, eventCount: 1_200, relayTimestamp: last.timestamp });
    // 500 + 500 + 200, each page asked for after the last one's timestamp.
    expect(relay.polls().map((p) => [p.status, p.query.limit])).toEqual([
      [200, '500'],
      [200, '500'],
      [200, '500'],
    ]);
    expect(relay.polls()[0]!.query.since).toBe('0');
    expect(Number(relay.polls()[1]!.query.since)).toBeLessThan(Number(relay.polls()[2]!.query.since));
    expect((await dash.call('GET', '/api/notifications/unread')).json).toMatchObject({ unreadCount: 1_200 });
    const stored = await dash.store.notifications.list({ limit: 5_000 });
    expect(new Set(stored.map((row) => row.url)).size).toBe(1_200);
    expect(await dash.cursor(relay.url())).toBe(last.timestamp);
    expect(dash.poller.status()).toMatchObject({ eventsToday: 1_200, relayTimestamp: last.timestamp, lastError: null });
  });
});
