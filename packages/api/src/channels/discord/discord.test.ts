import { createServer } from 'node:net';
import { startSandbox, type Exchange, type FakeDiscord, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { systemClock } from '@dash/connectors';
import { testClock } from '@dash/connectors/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_MS, type ChannelOutcome } from '../channel.ts';
import { channelMessage, HOSTILE_TEXT, recoveryMessage } from '../testing.ts';
import { DISCORD_COLORS, DiscordAdapter, discordEmbed, type DiscordAdapterOptions } from './index.ts';

// The adapter against the fake Discord, every request and answer held to Discord's own OpenAPI description. The
// sandbox and the adapter share a clock that only a wait moves, so the rate-limit tests are exact and instant.

const clock = testClock(Date.UTC(2026, 10, 28, 10, 0));
const exchanges: Exchange[] = [];
const guard = holdToDescriptions();
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    now: () => clock.now(),
    observe: (exchange) => {
      exchanges.push(exchange);
      guard(exchange);
    },
  });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
  exchanges.length = 0;
});

const discord = () => sandbox.services.discord.harness.service as FakeDiscord;
const webhook = () => discord().createWebhook(sandbox.services.discord.url);
const adapter = (options: Partial<DiscordAdapterOptions> = {}) => new DiscordAdapter({ fetch, clock, ...options });
const requests = () => exchanges.map((exchange) => `${exchange.method} ${exchange.path} → ${exchange.status}`);
const providerIdOf = (outcome: ChannelOutcome) => (outcome.kind === 'sent' ? outcome.providerId : null);
type Embed = { title: string; description: string; color: number; fields?: { value: string }[] };
const embedOf = (index = 0) => discord().messages[index]?.embeds[0] as Embed;

/** What Discord draws of escaped Markdown: each backslash-escaped punctuation character as itself. */
const shown = (text: string) => text.replace(/\\([^A-Za-z0-9\s])/g, '$1');
/** The characters in `text` that would format, link, quote or mention because no backslash escapes them. */
function unescapedMarkdown(text: string): string[] {
  const found: string[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at] ?? '';
    if (char === '\\') at++;
    else if ('*_~`|<>[]()#'.includes(char)) found.push(char);
  }
  return found;
}

const recovery = recoveryMessage;

describe('Discord through an incoming webhook', () => {
  it('posts one embed with ?wait=true as Discord documents it, no mention allowed, and keeps the message id', async () => {
    const hook = webhook();
    const outcome = await adapter().send({ webhookUrl: hook.url }, channelMessage());
    expect(outcome).toEqual({ kind: 'sent', status: 200, providerId: discord().messages[0]?.id });
    expect(requests()).toEqual([`POST /api/v10/webhooks/${hook.id}/${hook.token}?wait=true → 200`]);
    expect(exchanges[0]?.headers['content-type']).toBe('application/json');
    expect(exchanges[0]?.body).toEqual({
      embeds: [
        {
          title: 'Monitor down: api.formfox.app',
          description: 'Better Stack: the monitor api.formfox.app is down \\(connection timeout\\).',
          color: 0xd93025,
          url: 'https://dash.example.com/?notification=n_1',
          timestamp: '2026-11-28T09:30:00.000Z',
          fields: [{ name: 'Project', value: 'formfox', inline: true }],
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it('colours the embed by severity, and leaves out the link and the project when there are none', () => {
    expect((['error', 'warning', 'success', 'info'] as const).map((severity) => discordEmbed(channelMessage({ severity })).color)).toEqual([0xd93025, 0xf29900, 0x188038, 0x1a73e8]);
    const bare = discordEmbed(channelMessage({ url: null, project: null }));
    expect(Object.keys(bare).sort()).toEqual(['color', 'description', 'timestamp', 'title']);
  });

  it('shows strangers’ text as typed: no Markdown, masked link, spoiler or mention formats or pings', async () => {
    const hook = webhook();
    const sent = await adapter().send({ webhookUrl: hook.url }, channelMessage({ title: HOSTILE_TEXT, body: HOSTILE_TEXT, project: HOSTILE_TEXT }));
    expect(sent.kind).toBe('sent');
    expect(discord().messages[0]?.allowedMentions).toEqual({ parse: [] });
    const embed = embedOf();
    const project = embed.fields?.[0]?.value ?? '';
    for (const text of [embed.title, embed.description, project]) expect(unescapedMarkdown(text)).toEqual([]);
    expect(shown(embed.description)).toBe(HOSTILE_TEXT);
    expect(shown(project)).toBe(HOSTILE_TEXT);
    // The title is over Discord's 256: cut, with what is left still shown as typed.
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(HOSTILE_TEXT.startsWith(shown(embed.title).replace(/…$/, ''))).toBe(true);
    expect(embed.description).toContain('\\*\\*bold\\*\\*');
    expect(embed.description).toContain('\\[click\\]\\(https://evil.example\\)');
    expect(embed.description).toContain('\\|\\|spoiler\\|\\|');
    expect(embed.description).toContain('\\<@&123456789012345678\\>');
  });

  it('cuts what is over the embed limits, never between a backslash and what it escapes, so Discord takes it', async () => {
    const hook = webhook();
    const outcome = await adapter().send({ webhookUrl: hook.url }, channelMessage({ title: '_'.repeat(300), body: '*'.repeat(5_000), project: '#'.repeat(2_000) }));
    expect(outcome.kind).toBe('sent');
    const embed = embedOf();
    const project = embed.fields?.[0]?.value ?? '';
    expect([embed.title.length, embed.description.length, project.length]).toEqual([255, 4095, 1023]);
    expect(embed.title.length + embed.description.length + 'Project'.length + project.length).toBeLessThan(6_000);
    for (const text of [embed.title, embed.description, project]) {
      expect(text.endsWith('…')).toBe(true);
      expect(unescapedMarkdown(text)).toEqual([]);
    }
  });

  it('edits the outage’s message in place when it recovers: green, its title, and how long it was down', async () => {
    const hook = webhook();
    const discordAdapter = adapter();
    const providerId = providerIdOf(await discordAdapter.send({ webhookUrl: hook.url }, channelMessage()));
    expect(providerId).toMatch(/^\d+$/);
    const outcome = await discordAdapter.send({ webhookUrl: hook.url }, recovery(providerId));
    expect(outcome).toEqual({ kind: 'sent', status: 200, providerId });
    expect(requests()).toEqual([
      `POST /api/v10/webhooks/${hook.id}/${hook.token}?wait=true → 200`,
      `PATCH /api/v10/webhooks/${hook.id}/${hook.token}/messages/${providerId} → 200`,
    ]);
    expect(exchanges[1]?.body).toMatchObject({ allowed_mentions: { parse: [] } });
    expect(discord().messages).toHaveLength(1);
    expect(discord().messages[0]?.editedAt).not.toBeNull();
    const embed = embedOf();
    expect(embed).toMatchObject({ title: 'Monitor up: api.formfox.app', color: DISCORD_COLORS.success });
    expect(shown(embed.description)).toBe('Better Stack: the monitor api.formfox.app is up again.\n\nEnds: Monitor down: api.formfox.app (down 4 min)');
  });

  it('posts the recovery as a new message when the outage’s message was deleted', async () => {
    const hook = webhook();
    const outcome = await adapter().send({ webhookUrl: hook.url }, recovery('1234567890123456789'));
    expect(requests()).toEqual([
      `PATCH /api/v10/webhooks/${hook.id}/${hook.token}/messages/1234567890123456789 → 404`,
      `POST /api/v10/webhooks/${hook.id}/${hook.token}?wait=true → 200`,
    ]);
    const [message] = discord().messages;
    expect(outcome).toEqual({ kind: 'sent', status: 200, providerId: message?.id });
    expect(message?.editedAt).toBeNull();
    expect(shown(embedOf().description)).toContain('Ends: Monitor down: api.formfox.app (down 4 min)');
  });

  it('answers gone for a deleted webhook, whether posting or editing, with no token in the reason', async () => {
    const hook = webhook();
    const discordAdapter = adapter();
    const providerId = providerIdOf(await discordAdapter.send({ webhookUrl: hook.url }, channelMessage()));
    discord().deleteWebhook(hook.id);
    const gone = { kind: 'gone', status: 404, reason: 'Discord answered 404: Unknown Webhook (code 10015)' };
    expect(await discordAdapter.send({ webhookUrl: hook.url }, channelMessage())).toEqual(gone);
    expect(await discordAdapter.send({ webhookUrl: hook.url }, recovery(providerId))).toEqual(gone);
    // The edit's 404 is the webhook's, not the message's: nothing is posted after it.
    expect(requests().at(-1)).toMatch(/^PATCH .* → 404$/);
  });

  it('refuses a wrong token and says so without the token', async () => {
    const hook = webhook();
    const wrongToken = 'W'.repeat(hook.token.length);
    const outcome = await adapter().send({ webhookUrl: hook.url.replace(hook.token, wrongToken) }, channelMessage());
    expect(outcome).toEqual({ kind: 'refused', status: 401, reason: 'Discord answered 401: Invalid Webhook Token (code 50027)' });
    expect(JSON.stringify(outcome)).not.toContain(wrongToken);
    expect(JSON.stringify(outcome)).not.toContain(hook.token);
  });

  it('refuses another 4xx with Discord’s words and code, and a webhook URL that is not a URL', async () => {
    const hook = webhook();
    sandbox.inject('discord', { status: 400, body: { code: 50035, message: 'Invalid Form Body' }, times: 1 });
    expect(await adapter().send({ webhookUrl: hook.url }, channelMessage())).toEqual({ kind: 'refused', status: 400, reason: 'Discord answered 400: Invalid Form Body (code 50035)' });
    expect(await adapter().send({ webhookUrl: 'discord.com/api/webhooks/1/secret' }, channelMessage())).toEqual({
      kind: 'refused',
      status: null,
      reason: 'The Discord webhook URL is not a URL',
    });
  });

  it('retries a 429 after the body’s retry_after (seconds, with a fraction), over the Retry-After header', async () => {
    const hook = webhook();
    // Five posts from elsewhere spend the webhook's bucket before the adapter's first.
    for (let i = 0; i < 5; i++) await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: `other ${i}` }) });
    const discordAdapter = adapter();
    expect(await discordAdapter.send({ webhookUrl: hook.url }, channelMessage())).toEqual({ kind: 'retry', status: 429, afterMs: 2_000, reason: 'Discord answered 429: You are being rate limited.' });
    // The 429's headers told the bucket: the next send waits for its reset instead of meeting another.
    const before = clock.now();
    expect((await discordAdapter.send({ webhookUrl: hook.url }, channelMessage())).kind).toBe('sent');
    expect(clock.now() - before).toBe(2_000);

    const other = webhook();
    sandbox.inject('discord', { status: 429, headers: { 'retry-after': '2' }, body: { code: 0, message: 'You are being rate limited.', retry_after: 1.234, global: false }, times: 1 });
    expect(await adapter().send({ webhookUrl: other.url }, channelMessage())).toMatchObject({ kind: 'retry', status: 429, afterMs: 1_234 });
  });

  it('retries a 5xx after its Retry-After, else a minute', async () => {
    const hook = webhook();
    sandbox.inject('discord', { status: 502, body: 'Bad Gateway', times: 1 });
    expect(await adapter().send({ webhookUrl: hook.url }, channelMessage())).toEqual({ kind: 'retry', status: 502, afterMs: DEFAULT_RETRY_MS, reason: 'Discord answered 502' });
    sandbox.inject('discord', { status: 503, headers: { 'retry-after': '30' }, body: { code: 0, message: 'Service Unavailable' }, times: 1 });
    expect(await adapter().send({ webhookUrl: hook.url }, channelMessage())).toMatchObject({ kind: 'retry', status: 503, afterMs: 30_000 });
  });

  it('retries when Discord cannot be reached, naming Discord and not the URL', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const outcome = await adapter().send({ webhookUrl: `http://127.0.0.1:${port}/api/v10/webhooks/1/secret-token` }, channelMessage());
    expect(outcome).toEqual({ kind: 'retry', status: null, afterMs: DEFAULT_RETRY_MS, reason: 'Discord could not be reached' });
  });

  it('keeps the webhook’s pace: seven sends in a row all go, the sixth after the bucket resets, and none meets a 429', async () => {
    const hook = webhook();
    const discordAdapter = adapter();
    const before = clock.now();
    const outcomes: ChannelOutcome[] = [];
    for (let i = 0; i < 7; i++) outcomes.push(await discordAdapter.send({ webhookUrl: hook.url }, channelMessage({ id: `dlv_${i}` })));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(7).fill('sent'));
    expect(sandbox.requestsTo('discord').map((request) => request.status)).toEqual(Array(7).fill(200));
    expect(clock.now() - before).toBe(2_000);
  });

  it('answers retry instead of waiting longer than its cap for the bucket, and sends nothing', async () => {
    const hook = webhook();
    const discordAdapter = adapter({ maxPaceWaitMs: 1_000 });
    for (let i = 0; i < 5; i++) expect((await discordAdapter.send({ webhookUrl: hook.url }, channelMessage())).kind).toBe('sent');
    expect(await discordAdapter.send({ webhookUrl: hook.url }, channelMessage())).toEqual({
      kind: 'retry',
      status: null,
      afterMs: 2_000,
      reason: "Discord's rate limit for this webhook allows the next message in 2 s",
    });
    expect(sandbox.requestsTo('discord')).toHaveLength(5);
  });
});

describe('Discord’s pace on a real clock', () => {
  it('waits out the five-in-two-seconds bucket with its own timer', async () => {
    const realSandbox = await startSandbox();
    try {
      const hook = (realSandbox.services.discord.harness.service as FakeDiscord).createWebhook(realSandbox.services.discord.url);
      const discordAdapter = new DiscordAdapter({ fetch, clock: systemClock });
      const outcomes: ChannelOutcome[] = [];
      for (let i = 0; i < 7; i++) outcomes.push(await discordAdapter.send({ webhookUrl: hook.url }, channelMessage({ id: `dlv_${i}` })));
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(7).fill('sent'));
      expect(realSandbox.requestsTo('discord').map((request) => request.status)).toEqual(Array(7).fill(200));
    } finally {
      await realSandbox.close();
    }
  });
});
