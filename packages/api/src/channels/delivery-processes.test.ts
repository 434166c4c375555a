import { describe, expect, it } from 'vitest';
import { chatDeliveryTests, deployFailed, HOUR, MINUTE, t0 } from './delivery-testing.ts';

// Two processes on one database: each message sent once per connection, when both drain, when a batch outlives its
// claim, and after a process died holding a claim.

const { sandbox, dashboard, scratchDir, slackHook, discord, discordHook, receiver, received } = chatDeliveryTests();

describe('chat and webhook connections as a channel of the policy', () => {
  it('sends each message once per connection when two processes drain the same database', async () => {
    const dir = scratchDir('dash-chat-two-');
    const first = await dashboard(t0, { dir });
    const second = await dashboard(t0, { dir });
    await first.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    await first.add({ name: 'Discord', destination: { kind: 'discord', webhookUrl: discordHook().pasted } });
    for (let i = 0; i < 5; i++) await first.ingest(deployFailed(t0 + i, `dpl_${i}`));
    first.clock.advance(2_000);
    second.clock.advance(2_000);
    await Promise.all([first.ctx.notifications.chats.drain(), second.ctx.notifications.chats.drain(), first.ctx.notifications.chats.drain()]);
    expect(sandbox.slackMessages()).toHaveLength(5);
    expect(discord().messages).toHaveLength(5);
  });

  it('sends each message once when a batch outlives its claim: a slow receiver, and another process claiming meanwhile (issue 48)', async () => {
    const dir = scratchDir('dash-chat-slow-');
    const first = await dashboard(t0, { dir });
    const second = await dashboard(t0, { dir });
    await first.add({ name: 'Zapier', destination: { kind: 'webhook', url: receiver.url } });
    // The test drains, so that nothing else wakes either sender.
    await Promise.all([first.ctx.notifications.chats.stop(), second.ctx.notifications.chats.stop()]);
    for (let i = 0; i < 20; i++) await first.ingest(deployFailed(t0 + i, `dpl_slow_${i}`));
    first.clock.advance(2_000);
    second.clock.advance(2_000);
    // A receiver that takes 8 s a message (both clocks move on by as much). The first process claims all 20 for two
    // minutes; while it is on its 16th, past the two minutes, the second process drains and claims what it can.
    const claimedAt = first.clock.now();
    let secondDrain: Promise<void> | undefined;
    receiver.beforeAnswer = async () => {
      first.clock.advance(8_000);
      second.clock.advance(8_000);
      if (secondDrain === undefined && first.clock.now() > claimedAt + 2 * MINUTE) {
        secondDrain = second.ctx.notifications.chats.drain();
        await secondDrain;
      }
    };
    await first.ctx.notifications.chats.drain();
    expect(secondDrain).toBeDefined();
    await secondDrain;
    // Each message once: the second process sent what the first no longer held, and the first did not send it again.
    const ids = received.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    const sends = await first.sends();
    expect(sends.map((send) => [send.state, send.attempts])).toEqual(Array.from({ length: 20 }, () => ['delivered', 1]));
  });

  it('sends once what a process claimed and died holding, after its claim runs out', async () => {
    const dir = scratchDir('dash-chat-crash-');
    const first = await dashboard(t0, { dir });
    await first.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    // Its sender has not come to it yet (stopped here, so the release does not wake it).
    await first.ctx.notifications.chats.stop();
    await first.ingest(deployFailed(t0));
    // The process claims the message (as its sender does first) and dies before it reaches Slack.
    const [claimed] = await first.store.channels.sends.claim('the-process-that-died', first.clock.now(), 2 * MINUTE, 10);
    expect(claimed?.delivery.message.title).toBe('Deploy failed: web');
    await first.dispose({ keepFiles: true });
    const restarted = await dashboard(t0 + MINUTE, { dir });
    await restarted.ctx.notifications.chats.drain();
    expect(sandbox.slackMessages()).toEqual([]);
    await restarted.at(t0 + 3 * MINUTE);
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Deploy failed: web']);
    // The dead process's late answer (had it lived) changes nothing: it no longer holds the claim.
    await restarted.store.channels.sends.settle(claimed?.id ?? '', 'the-process-that-died', { state: 'failed', attempts: 1, dueAt: 0, status: null, error: 'late', providerId: null, sentAt: null });
    expect((await restarted.sends())[0]).toMatchObject({ state: 'delivered', attempts: 1 });
    await restarted.at(t0 + HOUR);
    expect(sandbox.slackMessages()).toHaveLength(1);
  });
});
