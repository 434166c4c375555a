import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { chatDeliveryTests, MINUTE, t0 } from './delivery-testing.ts';

// A flapping monitor told to each connection: "stable again" naming its "flapping", and a "still down" kept off a
// connection whose floor kept the "flapping" off.

const { dashboard, receiver, received } = chatDeliveryTests();

describe('chat and webhook connections as a channel of the policy', () => {
  it('tells a connection "stable again" after a flap that had another outage, naming its "flapping" (issue 48)', async () => {
    const dash = await dashboard(t0);
    // The signed webhook: a receiver that takes every message at once (the fake Slack keeps to one a second, on its own clock).
    await dash.add({ name: 'Zapier', destination: { kind: 'webhook', url: receiver.url } });
    // Down and up at 10:00/10:03, 10:05/10:08 and 10:10/10:13 (the third outage starts the flap), down at 10:15, up at 10:17.
    const changes: [number, 'down' | 'up', string][] = [
      [0, 'down', 'i1'], [3, 'up', 'i1'], [5, 'down', 'i2'], [8, 'up', 'i2'], [10, 'down', 'i3'], [13, 'up', 'i3'], [15, 'down', 'i4'], [17, 'up', 'i4'],
    ];
    for (const [minute, change, incident] of changes) {
      const at = t0 + minute * MINUTE;
      await dash.at(at);
      await dash.ingest(change === 'down' ? events.down('api', incident, at) : events.up('api', incident, at));
      await dash.at(at + 2 * MINUTE);
    }
    type Body = { type: string; data: { title: string; recovers: { title: string } | null } };
    const bodies = () => received.map((request) => JSON.parse(request.body) as Body);
    expect(bodies().at(-1)?.data.title).toBe('Monitor down: api: flapping');
    // Stable for 15 minutes from 10:17: the flap's end goes where its start went, and names it.
    await dash.at(t0 + 33 * MINUTE);
    expect(bodies().at(-1)).toMatchObject({ type: 'notification.resolve', data: { title: 'Monitor down: api: stable again', recovers: { title: 'Monitor down: api: flapping' } } });
  });

  it('keeps a flap’s "still down" off a connection whose floor kept its "flapping" off (issue 48)', async () => {
    const dash = await dashboard(t0);
    await dash.add({ name: 'ops', minSeverity: 'error', destination: { kind: 'webhook', url: `${receiver.url}?to=ops` } });
    await dash.add({ name: 'team', minSeverity: 'warning', destination: { kind: 'webhook', url: `${receiver.url}?to=team` } });
    // Down and up at 10:00/10:03 and 10:05/10:08; down at 10:10 (the third outage: flapping, a warning), and it stays down.
    const changes: [number, 'down' | 'up', string][] = [[0, 'down', 'i1'], [3, 'up', 'i1'], [5, 'down', 'i2'], [8, 'up', 'i2'], [10, 'down', 'i3']];
    for (const [minute, change, incident] of changes) {
      const at = t0 + minute * MINUTE;
      await dash.at(at);
      await dash.ingest(change === 'down' ? events.down('api', incident, at) : events.up('api', incident, at));
      await dash.at(at + 2 * MINUTE);
    }
    // Quiet for 15 minutes from 10:10: the flap ends, still down.
    await dash.at(t0 + 26 * MINUTE);
    const titlesTo = (to: string) => received.filter((request) => request.url.endsWith(`to=${to}`)).map((request) => (JSON.parse(request.body) as { data: { title: string } }).data.title);
    expect(titlesTo('team')).toEqual(['Monitor down: api', 'Monitor up: api', 'Monitor down: api', 'Monitor up: api', 'Monitor down: api: flapping', 'Monitor down: api: still down']);
    expect(titlesTo('ops')).toEqual(['Monitor down: api', 'Monitor up: api', 'Monitor down: api', 'Monitor up: api']);
  });
});
