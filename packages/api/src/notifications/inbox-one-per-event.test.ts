import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import { fixtureProjects, incident, inboxTests, relayEvent, signed } from './inbox-testing.ts';

// One notification per real-world event, however it comes: through the relay and at the local route in either order,
// and many times at once, in one process or two on one database.

const { dashboard } = inboxTests();

describe('one notification per real-world event', () => {
  const RELAY = 'https://relay.example/api';

  it('stores an event that arrives through the relay and then at the local route once, with the relay cursor', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    const delivery = signed.github(github.pullRequest('closed', true));
    const fromRelay = await dash.inboxOf.ingest(dash.relayEvents(delivery), { relayUrl: RELAY, since: 1_700 });
    expect([fromRelay.stored, fromRelay.duplicates]).toEqual([1, 0]);
    await dash.deliver(delivery);

    const inbox = await dash.inbox();
    expect(inbox).toEqual([expect.objectContaining({ integration: 'code_host', type: 'pr.merged', project: 'web', eventCount: 1 })]);
    expect(await dash.unread()).toBe(1);
    expect(await dash.store.notifications.cursor(RELAY)).toBe(1_700);
  });

  it('stores an event that arrives at the local route and then through the relay once, and still moves the cursor', async () => {
    const dash = await dashboard();
    await fixtureProjects(dash);
    const delivery = signed.betterstack(incident('started'));
    await dash.deliver(delivery);
    const before = await dash.inbox();
    const fromRelay = await dash.inboxOf.ingest(dash.relayEvents(delivery), { relayUrl: RELAY, since: 1_800 });
    expect(fromRelay).toEqual({ stored: 0, duplicates: 1, changed: [], sent: [], events: [expect.objectContaining({ effect: 'duplicate', notificationId: null, eventId: null })] });
    expect(await dash.inbox()).toEqual(before);
    expect(before).toEqual([expect.objectContaining({ integration: 'uptime_monitor', project: 'ops', eventCount: 1, resolved: false })]);
    expect(await dash.store.notifications.cursor(RELAY)).toBe(1_800);
  });

  it('stores one row for 20 concurrent ingests of one event', async () => {
    const dash = await dashboard();
    const event = relayEvent({ sourceEventId: 'github:acme/app:pr:9:merged' });
    const results = await Promise.all(Array.from({ length: 20 }, () => dash.inboxOf.ingest([{ ...event, id: randomUUID() }])));
    expect(results.reduce((sum, r) => sum + r.stored, 0)).toBe(1);
    expect(results.reduce((sum, r) => sum + r.duplicates, 0)).toBe(19);
    expect(await dash.inbox()).toEqual([expect.objectContaining({ title: event.title, eventCount: 1 })]);
    expect(await dash.unread()).toBe(1);
  });

  it('stores one row for one event ingested 10 times at once by each of two processes on one database', async () => {
    const a = await dashboard();
    const b = await dashboard({ dir: a.dir, credentialsKey: a.credentialsKey });
    const event = relayEvent({ sourceEventId: 'vercel:dpl_concurrent:error', integration: 'deploy_host', type: 'deploy.error', severity: 'error' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).inboxOf.ingest([{ ...event, id: randomUUID() }])),
    );
    expect(results.reduce((sum, r) => sum + r.stored, 0)).toBe(1);
    expect(await a.inbox()).toHaveLength(1);
    expect(await b.inbox()).toEqual(await a.inbox());
  });

  it('stores one row for 20 concurrent local deliveries of one event under different delivery ids', async () => {
    const dash = await dashboard();
    const body = github.pullRequest('closed', true);
    const answers = await Promise.all(Array.from({ length: 20 }, () => dash.deliver(signed.github(body))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await dash.inbox()).toEqual([expect.objectContaining({ type: 'pr.merged', eventCount: 1 })]);
  });
});
