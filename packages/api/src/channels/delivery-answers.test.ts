import type { ChannelConnection } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { chatDeliveryTests, deployFailed, iso, MINUTE, t0 } from './delivery-testing.ts';

// What a connection's service answers: a 429 tried again after its hint (a recovery still after its outage), a 404
// marking the connection "needs attention" until fixed, a signed webhook's 410 ending its sends.

const { sandbox, dashboard, slackHook, receiver, received } = chatDeliveryTests();

describe('chat and webhook connections as a channel of the policy', () => {
  it('tries a 429 again no sooner than the service’s own hint, then sends it once', async () => {
    const dash = await dashboard(t0);
    await dash.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    sandbox.inject('slack', { status: 429, headers: { 'retry-after': '90' }, body: 'rate_limited', times: 1 });
    await dash.ingest(deployFailed(t0));
    await dash.at(t0 + 1_000);
    const [waiting] = await dash.sends();
    expect(waiting).toMatchObject({ state: 'queued', attempts: 1, status: 429, dueAt: t0 + 1_000 + 90_000 });
    expect((await dash.connections())[0]).toMatchObject({ lastFailure: expect.stringContaining('Slack answered 429'), needsAttention: null });
    await dash.at(t0 + 60_000);
    expect(sandbox.slackMessages()).toEqual([]);
    await dash.at(t0 + 91_000);
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Deploy failed: web']);
    expect((await dash.sends())[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('sends a recovery after its outage when the outage waits for a retry, so Slack’s last word is "up" (issue 48)', async () => {
    const dash = await dashboard(t0);
    await dash.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    await dash.ingest(events.down('api', 'inc1', t0));
    // The hold ends at 10:02 and Slack answers the outage 429, Retry-After 120: it is tried again at 10:04.
    sandbox.inject('slack', { status: 429, headers: { 'retry-after': '120' }, body: 'rate_limited', times: 1 });
    await dash.at(t0 + 2 * MINUTE);
    // Recovered two seconds later: the recovery waits behind its outage instead of going first (or not at all).
    await dash.ingest(events.up('api', 'inc1', t0 + 2 * MINUTE + 2_000));
    await dash.at(t0 + 2 * MINUTE + 2_000);
    expect(sandbox.slackMessages()).toEqual([]);
    expect((await dash.sends()).map((send) => [send.delivery.purpose, send.state, send.attempts]).sort()).toEqual([
      ['first', 'queued', 1],
      ['resolve', 'queued', 0],
    ]);
    await dash.at(t0 + 5 * MINUTE);
    await dash.at(t0 + 6 * MINUTE);
    const texts = sandbox.slackMessages().map((message) => JSON.stringify(message.body));
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('Monitor down: api');
    expect(texts[1]).toContain('Monitor up: api');
    expect(texts[1]).toContain('Ends: Monitor down: api');
  });

  it('marks a connection whose webhook was deleted (404) “needs attention”, sends it nothing more until it is fixed, and keeps the others going', async () => {
    const dash = await dashboard(t0);
    const gone = slackHook('#old');
    const ops = (await dash.add({ name: '#old', destination: { kind: 'slack', webhookUrl: gone.pasted } })).connection;
    await dash.add({ name: '#team', destination: { kind: 'slack', webhookUrl: slackHook('#team').pasted } });
    sandbox.deleteSlackWebhook(gone.id);
    await dash.ingest(deployFailed(t0, 'dpl_1'));
    await dash.at(t0 + 1_000);
    expect(sandbox.slackMessages().map((message) => message.channel)).toEqual(['#team']);
    const marked = (await dash.connections()).find((connection) => connection.id === ops.id);
    expect(marked).toMatchObject({ needsAttention: expect.stringContaining('Slack answered 404'), lastFailureAt: iso(t0 + 1_000) });
    expect(JSON.stringify(marked)).not.toContain(gone.pasted.split('/').pop());
    // Nothing more is queued for it; the policy's view counts only the connection that works.
    expect((await dash.caller.notifications.policy()).chat.connections).toBe(1);
    await dash.ingest(deployFailed(t0 + MINUTE, 'dpl_2'));
    await dash.at(t0 + MINUTE + 1_000);
    expect((await dash.sends()).filter((send) => send.connectionId === ops.id).map((send) => send.state)).toEqual(['gone']);
    expect(sandbox.requestsTo('slack', `/services/${gone.team}/${gone.id}`)).toHaveLength(1);
    // Fixed with a new webhook: cleared, and the next one reaches it.
    const fresh = slackHook('#old');
    const fixed = await dash.call('PATCH', `/api/channels/${ops.id}`, { destination: { kind: 'slack', webhookUrl: fresh.pasted } });
    expect(fixed.status).toBe(200);
    expect((fixed.json as { connection: ChannelConnection }).connection.needsAttention).toBeNull();
    await dash.ingest(deployFailed(t0 + 2 * MINUTE, 'dpl_3'));
    await dash.at(t0 + 2 * MINUTE + 1_000);
    expect(sandbox.slackMessages().filter((message) => message.webhookId === fresh.id)).toHaveLength(1);
  });

  it('sends a signed webhook whose receiver answers 410 nothing more, and says why in Settings', async () => {
    const dash = await dashboard(t0);
    const hook = (await dash.add({ name: 'Receiver', destination: { kind: 'webhook', url: receiver.url } })).connection;
    receiver.status = 410;
    await dash.ingest(deployFailed(t0));
    await dash.at(t0 + 1_000);
    expect((await dash.connections())[0]).toMatchObject({ id: hook.id, needsAttention: expect.stringContaining('answered 410') });
    await dash.ingest(deployFailed(t0 + MINUTE, 'dpl_2'));
    await dash.at(t0 + 2 * MINUTE);
    expect(received).toHaveLength(1);
  });
});
