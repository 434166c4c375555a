import { guardedFetch, systemClock } from '@dash/connectors';
import { startSandbox, type FakeDiscord, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordAdapter } from './discord/index.ts';
import { NtfyAdapter } from './ntfy/index.ts';
import { SlackAdapter } from './slack/index.ts';
import { TelegramAdapter } from './telegram/index.ts';
import { channelMessage } from './testing.ts';

// Each adapter through the fetch the dashboard gives them: the upstream address guard's, which answers undici's own
// Response class, not the global one (an adapter that told an answer from an outcome by `instanceof Response` took
// every answer for an outcome there).

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const options = { fetch: guardedFetch(), clock: systemClock };

describe('the chat channels through the guarded fetch', () => {
  it('sends to Slack, Discord, Telegram and ntfy, and reads their answers', async () => {
    const slackHook = sandbox.createSlackWebhook();
    expect(await new SlackAdapter(options).send({ webhookUrl: slackHook.url }, channelMessage())).toEqual({ kind: 'sent', status: 200, providerId: null });

    const discordHook = (sandbox.services.discord.harness.service as FakeDiscord).createWebhook(sandbox.services.discord.url);
    const discord = await new DiscordAdapter(options).send({ webhookUrl: discordHook.url }, channelMessage());
    expect(discord).toMatchObject({ kind: 'sent', status: 200, providerId: expect.stringMatching(/^\d+$/) });

    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const telegram = await new TelegramAdapter({ ...options, baseUrl: sandbox.services.telegram.url }).send({ botToken: bot.token, chatId: String(chat.id) }, channelMessage());
    expect(telegram).toMatchObject({ kind: 'sent', status: 200, providerId: expect.stringMatching(/^\d+$/) });

    const ntfy = await new NtfyAdapter(options).send({ server: sandbox.services.ntfy.url, topic: 'guarded' }, channelMessage());
    expect(ntfy).toMatchObject({ kind: 'sent', status: 200, providerId: expect.any(String) });
    expect(sandbox.ntfyMessages('guarded')).toHaveLength(1);
  });

  it('turns a refusal into its outcome through it too', async () => {
    const hook = sandbox.createSlackWebhook();
    sandbox.deleteSlackWebhook(hook.id);
    expect(await new SlackAdapter(options).send({ webhookUrl: hook.url }, channelMessage())).toEqual({ kind: 'gone', status: 404, reason: 'Slack answered 404: no_service' });
  });
});
