import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { events } from '../notifications/test-events.ts';
import { chatDeliveryTests, type Dash, DAY_MS, iso, MINUTE, t0 } from './delivery-testing.ts';

// What each chat and webhook connection is sent, against the sandbox's Slack, Discord, Telegram and ntfy and a local
// signed-webhook receiver: an outage after its hold, one message per connection, its recovery editing Discord's message,
// replying on Telegram and naming the outage elsewhere; a metric alert with strangers' text inert in each medium.

const { sandbox, dashboard, slackHook, discord, discordHook, receiver, received } = chatDeliveryTests();

/** One connection of each kind. */
async function everyKind(dash: Dash) {
  const slack = slackHook();
  const hook = discordHook();
  const bot = sandbox.createTelegramBot();
  const chat = sandbox.createTelegramChat('supergroup', 'Founders');
  await dash.add({ name: '#ops', destination: { kind: 'slack', webhookUrl: slack.pasted } });
  await dash.add({ name: 'Discord #alerts', destination: { kind: 'discord', webhookUrl: hook.pasted } });
  await dash.add({ name: 'Founders group', destination: { kind: 'telegram', botToken: bot.token, chatId: String(chat.id) } });
  await dash.add({ name: 'Phone', destination: { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'founder-alerts-x7' } });
  const { secret } = await dash.add({ name: 'Zapier', destination: { kind: 'webhook', url: receiver.url } });
  return { slack, hook, bot, chat, secret: secret ?? '' };
}

describe('chat and webhook connections as a channel of the policy', () => {
  it('sends an outage once to each connection after the hold; its recovery edits Discord’s message, replies on Telegram and names the outage elsewhere', async () => {
    const dash = await dashboard(t0);
    const { secret, chat } = await everyKind(dash);
    await dash.ingest(events.down('api.formfox.app', 'inc1', t0));
    await dash.at(t0 + 30_000);
    expect(sandbox.slackMessages()).toEqual([]);
    await dash.at(t0 + 121_000);
    await dash.at(t0 + 5 * MINUTE);
    const [row] = (await dash.caller.notifications.list({})).notifications;
    expect(row?.decision?.channels).toEqual(['inApp', 'browser', 'chat']);

    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Monitor down: api.formfox.app']);
    expect(discord().messages.map((message) => message.embeds[0]?.title)).toEqual(['Monitor down: api.formfox.app']);
    const [told] = sandbox.telegramMessages();
    expect(told?.text).toContain('Monitor down: api.formfox.app');
    expect(told?.chat.id).toBe(chat.id);
    expect(sandbox.ntfyMessages('founder-alerts-x7').map((message) => [message.title, message.priority])).toEqual([['Monitor down: api.formfox.app', 5]]);
    // The signed webhook: verified by the reference implementation, its id the delivery's, the thread's link in it.
    expect(received).toHaveLength(1);
    // (It checks the timestamp against its own clock: the test's instant, for the moment of the check.)
    vi.useFakeTimers({ toFake: ['Date'], now: dash.clock.now() });
    const verified = new Webhook(secret).verify(received[0]?.body ?? '', received[0]?.headers as Record<string, string>) as { type: string; data: { title: string } };
    vi.useRealTimers();
    expect(verified).toMatchObject({ type: 'notification.alert', data: { title: 'Monitor down: api.formfox.app' } });
    // With the thread as it stood and its decision, so a receiver can act on more than the text.
    expect(JSON.parse(received[0]?.body ?? '{}')).toMatchObject({
      data: { url: null, thread: { id: row?.id, status: 'open', eventCount: 1, decision: { severity: 'error', channels: ['inApp', 'browser', 'chat'] } } },
    });

    dash.clock.advance(15 * MINUTE);
    await dash.ingest(events.up('api.formfox.app', 'inc1', t0 + 20 * MINUTE));
    await dash.at(t0 + 20 * MINUTE);
    // Discord: the same message, edited in place to the recovery.
    expect(discord().messages).toHaveLength(1);
    expect(discord().messages[0]).toMatchObject({ editedAt: expect.any(Number) });
    expect(JSON.stringify(discord().messages[0]?.embeds)).toContain('Monitor up: api.formfox.app');
    // Telegram: a reply to the outage's message.
    expect(sandbox.telegramMessages()[1]).toMatchObject({ replyTo: told?.message_id });
    // Slack and ntfy cannot edit: a new message that names the outage and how long it lasted.
    expect(JSON.stringify(sandbox.slackMessages()[1]?.body)).toContain('Ends: Monitor down: api.formfox.app (down 20 min)');
    expect(sandbox.ntfyMessages('founder-alerts-x7')[1]?.message).toContain('Ends: Monitor down: api.formfox.app (down 20 min)');
    expect(JSON.parse(received[1]?.body ?? '{}')).toMatchObject({
      type: 'notification.resolve',
      data: { recovers: { title: 'Monitor down: api.formfox.app', lastedMs: 20 * MINUTE }, thread: { id: row?.id, status: 'resolved', eventCount: 2 } },
    });

    const sends = await dash.sends();
    expect(sends).toHaveLength(10);
    expect(sends.every((send) => send.state === 'delivered' && send.attempts === 1)).toBe(true);
    expect((await dash.connections()).every((connection) => connection.lastSuccessAt === iso(t0 + 20 * MINUTE))).toBe(true);
  });

  it('sends a metric alert to every connection with what else happened, strangers’ text inert in each medium, and its return to range after it (issue 51)', async () => {
    const dash = await dashboard(t0);
    const { secret } = await everyKind(dash);
    await dash.caller.projects.create({ slug: 'shop', name: 'Shop' });
    const hostile = 'Deploy "<@U024BE7LH> *fix* <https://evil.example|click> @everyone <b>x</b>" on Mon 23 Nov';
    const alert = {
      integration: 'metrics' as const,
      subject: 'metric:shop:revenue.mrr',
      url: null,
      projectSlug: 'shop',
    };
    await dash.ctx.notifications.inbox.ingestOwn([
      { ...alert, sourceEventId: 'metric:r1:0:2026-11-25:open', type: 'metric.threshold', transition: 'trigger', severity: 'error', title: 'MRR below $10,000: $9,420', occurredAt: iso(t0), context: [hostile] },
    ]);
    await dash.at(t0 + MINUTE);
    const [row] = (await dash.caller.notifications.list({ integration: 'metrics' })).notifications;
    expect(row?.decision?.trace[0]).toMatchObject({ stage: 'context', name: 'What else happened', why: hostile });

    // Slack: plain text with its control characters escaped, so nothing formats, links or mentions.
    const [slack] = sandbox.slackMessages();
    expect(slack?.text).toBe('MRR below $10,000: $9,420');
    const section = (slack?.body as { blocks: { type: string; text?: { type: string; text: string } }[] }).blocks.find((block) => block.type === 'section' && block.text);
    expect(section?.text).toEqual({ type: 'plain_text', text: `shop · Metric alerts\n${hostile.replaceAll('<', '&lt;').replaceAll('>', '&gt;')}`, emoji: false });
    // Discord: markdown escaped, and an embed never pings.
    const embed = discord().messages[0]?.embeds[0];
    expect(embed?.title).toBe('MRR below $10,000: $9,420');
    expect(embed?.description).toContain('\\*fix\\*');
    expect(embed?.description).not.toContain(' *fix* ');
    // Telegram: HTML escaped, so the chat shows the tags as text (the fake parses the HTML as Telegram does).
    const [telegram] = sandbox.telegramMessages();
    expect(telegram?.text).toContain(hostile);
    expect(telegram?.sentText).toContain('&lt;b&gt;x&lt;/b&gt;');
    // ntfy: plain text with the line; the signed webhook: the line in the body's text, verified.
    expect(sandbox.ntfyMessages('founder-alerts-x7')[0]?.message).toContain(hostile);
    vi.useFakeTimers({ toFake: ['Date'], now: dash.clock.now() });
    const verified = new Webhook(secret).verify(received[0]?.body ?? '', received[0]?.headers as Record<string, string>) as { type: string; data: { title: string; body: string } };
    vi.useRealTimers();
    expect(verified).toMatchObject({ type: 'notification.alert', data: { title: 'MRR below $10,000: $9,420', body: `shop · Metric alerts\n${hostile}` } });

    // Back in range: each connection is told after the alert, Discord's message edited, Telegram answered.
    dash.clock.advance(DAY_MS);
    await dash.ctx.notifications.inbox.ingestOwn([
      { ...alert, sourceEventId: 'metric:metric:shop:revenue.mrr:2026-11-26:resolved', type: 'metric.resolved', transition: 'resolve', lasted: 'Out of range for', severity: 'success', title: 'MRR back above $10,000: $10,250', occurredAt: iso(dash.clock.now()) },
    ]);
    await dash.at(dash.clock.now());
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['MRR below $10,000: $9,420', 'MRR back above $10,000: $10,250']);
    expect(JSON.stringify(discord().messages[0]?.embeds)).toContain('MRR back above $10,000: $10,250');
    expect(sandbox.telegramMessages()[1]).toMatchObject({ replyTo: telegram?.message_id });
    expect(JSON.parse(received[1]?.body ?? '{}')).toMatchObject({ type: 'notification.resolve', data: { title: 'MRR back above $10,000: $10,250' } });
    expect((await dash.sends()).every((send) => send.state === 'delivered')).toBe(true);
  });
});
