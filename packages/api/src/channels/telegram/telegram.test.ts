import { createServer } from 'node:net';
import { startSandbox, type Exchange, type FakeTelegram, type Sandbox } from '@dash/sandbox';
import { testClock } from '@dash/connectors/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_MS, type ChannelOutcome } from '../channel.ts';
import { channelMessage, HOSTILE_TEXT, recoveryMessage } from '../testing.ts';
import { TelegramAdapter, type TelegramAdapterOptions } from './index.ts';

// The adapter against the fake Bot API, which parses the HTML as Telegram does and keeps what the chat shows. The
// sandbox and the adapter share a clock that only a wait moves, so the pace tests are exact and instant.

const clock = testClock(Date.UTC(2026, 10, 28, 10, 0));
const exchanges: Exchange[] = [];
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => clock.now(), observe: (exchange) => exchanges.push(exchange) });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
  exchanges.length = 0;
});

const telegram = () => sandbox.services.telegram.harness.service as FakeTelegram;
const adapter = (options: Partial<TelegramAdapterOptions> = {}) => new TelegramAdapter({ fetch, clock, baseUrl: sandbox.services.telegram.url, ...options });
const providerIdOf = (outcome: ChannelOutcome) => (outcome.kind === 'sent' ? outcome.providerId : null);
const shownText = () => sandbox.telegramMessages().map((message) => message.text);
const sendRaw = (token: string, params: Record<string, unknown>) =>
  fetch(`${sandbox.services.telegram.url}/bot${token}/sendMessage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });

const recovery = recoveryMessage;

describe('Telegram through a bot', () => {
  it('calls sendMessage as the Bot API documents it: POST /bot<token>/sendMessage, JSON, HTML, no link preview', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const outcome = await adapter().send({ botToken: bot.token, chatId: String(chat.id) }, channelMessage());
    const [message] = sandbox.telegramMessages();
    expect(outcome).toEqual({ kind: 'sent', status: 200, providerId: String(message?.message_id) });
    expect(exchanges.map((exchange) => `${exchange.method} ${exchange.path}`)).toEqual([`POST /bot${bot.token}/sendMessage`]);
    expect(exchanges[0]?.headers['content-type']).toBe('application/json');
    expect(exchanges[0]?.body).toEqual({
      chat_id: String(chat.id),
      text: [
        '<b>Monitor down: api.formfox.app</b>',
        'Better Stack: the monitor api.formfox.app is down (connection timeout).',
        'Project: formfox',
        '<a href="https://dash.example.com/?notification=n_1">Open in the dashboard</a>',
      ].join('\n'),
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    });
    expect(message).toMatchObject({ parseMode: 'HTML', linkPreviewDisabled: true, replyTo: undefined });
    expect(message?.text).toBe('Monitor down: api.formfox.app\nBetter Stack: the monitor api.formfox.app is down (connection timeout).\nProject: formfox\nOpen in the dashboard');
  });

  it('shows strangers’ text exactly as written: no tag, entity or link in it becomes formatting', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const outcome = await adapter().send({ botToken: bot.token, chatId: String(chat.id) }, channelMessage({ title: HOSTILE_TEXT, body: HOSTILE_TEXT, project: HOSTILE_TEXT }));
    expect(outcome.kind).toBe('sent');
    expect(shownText()).toEqual([`${HOSTILE_TEXT}\n${HOSTILE_TEXT}\nProject: ${HOSTILE_TEXT}\nOpen in the dashboard`]);
    // The only tags Telegram received are the adapter's own bold title and link.
    expect(sandbox.telegramMessages()[0]?.sentText.match(/<[^>]*>/g)).toEqual(['<b>', '</b>', '<a href="https://dash.example.com/?notification=n_1">', '</a>']);
  });

  it('cuts a long body to fit 4096 characters as shown, never inside an entity, keeping the project and the link', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const outcome = await adapter().send({ botToken: bot.token, chatId: String(chat.id) }, channelMessage({ body: 'a < b & "c" > d '.repeat(1_000) }));
    expect(outcome.kind).toBe('sent');
    const [text = ''] = shownText();
    expect(text.length).toBe(4_096);
    expect(text).toMatch(/…\nProject: formfox\nOpen in the dashboard$/);
  });

  it('replies to the outage’s message when it recovers, naming what it ends and how long it lasted', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const telegramAdapter = adapter();
    const destination = { botToken: bot.token, chatId: String(chat.id) };
    const providerId = providerIdOf(await telegramAdapter.send(destination, channelMessage()));
    expect(providerId).toMatch(/^\d+$/);
    const outcome = await telegramAdapter.send(destination, recovery(providerId));
    const reply = sandbox.telegramMessages()[1];
    expect(outcome).toEqual({ kind: 'sent', status: 200, providerId: String(reply?.message_id) });
    expect(exchanges[1]?.body).toMatchObject({ reply_parameters: { message_id: Number(providerId), allow_sending_without_reply: true } });
    expect(reply?.replyTo).toBe(Number(providerId));
    expect(reply?.text).toContain('Better Stack: the monitor api.formfox.app is up again.\nEnds: Monitor down: api.formfox.app (down 4 min)');
    // A recovery whose outage message was deleted is sent all the same.
    expect((await telegramAdapter.send(destination, recovery('987654'))).kind).toBe('sent');
  });

  it('retries a 429 after Telegram’s retry_after', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    // Three messages from elsewhere spend the chat's short burst.
    for (let i = 0; i < 3; i++) expect((await sendRaw(bot.token, { chat_id: chat.id, text: `other ${i}` })).status).toBe(200);
    expect(await adapter().send({ botToken: bot.token, chatId: String(chat.id) }, channelMessage())).toEqual({
      kind: 'retry',
      status: 429,
      afterMs: 3_000,
      reason: 'Telegram answered 429: Too Many Requests: retry after 3',
    });
  });

  it('refuses a revoked, a wrong or a malformed token with no token in the outcome', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const unauthorized = { kind: 'refused', status: 401, reason: 'Telegram answered 401: Unauthorized' };
    const wrongToken = `${bot.id}:AA${'x'.repeat(33)}`;
    const wrong = await adapter().send({ botToken: wrongToken, chatId: String(chat.id) }, channelMessage());
    expect(wrong).toEqual(unauthorized);
    telegram().revokeToken(bot.token);
    const revoked = await adapter().send({ botToken: bot.token, chatId: String(chat.id) }, channelMessage());
    expect(revoked).toEqual(unauthorized);
    const malformedToken = `${bot.token}/../getMe?x=`;
    const malformed = await adapter().send({ botToken: malformedToken, chatId: String(chat.id) }, channelMessage());
    expect(malformed).toMatchObject({ kind: 'refused', status: null });
    expect(exchanges).toHaveLength(2);
    for (const [outcome, token] of [[wrong, wrongToken], [revoked, bot.token], [malformed, malformedToken]] as const) {
      expect(JSON.stringify(outcome)).not.toContain(token);
      expect(JSON.stringify(outcome)).not.toContain(token.split(':')[1]);
    }
  });

  it('refuses a blocked bot, an unknown chat and a 404 with Telegram’s description, and retries a 5xx', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const telegramAdapter = adapter();
    expect(await telegramAdapter.send({ botToken: bot.token, chatId: '7' }, channelMessage())).toEqual({ kind: 'refused', status: 400, reason: 'Telegram answered 400: Bad Request: chat not found' });
    telegram().blockBot(chat.id);
    expect(await telegramAdapter.send({ botToken: bot.token, chatId: String(chat.id) }, channelMessage())).toEqual({
      kind: 'refused',
      status: 403,
      reason: 'Telegram answered 403: Forbidden: bot was blocked by the user',
    });
    const other = sandbox.createTelegramChat('supergroup');
    sandbox.inject('telegram', { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' }, times: 1 });
    expect(await telegramAdapter.send({ botToken: bot.token, chatId: String(other.id) }, channelMessage())).toEqual({ kind: 'refused', status: 404, reason: 'Telegram answered 404: Not Found' });
    sandbox.inject('telegram', {
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: group chat was upgraded to a supergroup chat', parameters: { migrate_to_chat_id: -1001234567890 } },
      times: 1,
    });
    expect(await telegramAdapter.send({ botToken: bot.token, chatId: String(other.id) }, channelMessage())).toMatchObject({
      kind: 'refused',
      reason: 'Telegram answered 400: Bad Request: group chat was upgraded to a supergroup chat (the group is now the supergroup -1001234567890)',
    });
    sandbox.inject('telegram', { status: 502, body: '<html>Bad Gateway</html>', times: 1 });
    expect(await telegramAdapter.send({ botToken: bot.token, chatId: String(other.id) }, channelMessage())).toMatchObject({ kind: 'retry', status: 502, afterMs: DEFAULT_RETRY_MS });
  });

  it('retries when Telegram cannot be reached', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const bot = sandbox.createTelegramBot();
    const outcome = await adapter({ baseUrl: `http://127.0.0.1:${port}` }).send({ botToken: bot.token, chatId: '1' }, channelMessage());
    expect(outcome).toEqual({ kind: 'retry', status: null, afterMs: DEFAULT_RETRY_MS, reason: 'Telegram could not be reached' });
  });

  it('keeps a private chat to about a message a second', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const telegramAdapter = adapter();
    const before = clock.now();
    const outcomes: ChannelOutcome[] = [];
    for (let i = 0; i < 4; i++) outcomes.push(await telegramAdapter.send({ botToken: bot.token, chatId: String(chat.id) }, channelMessage({ id: `dlv_${i}` })));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(sandbox.requestsTo('telegram').map((request) => request.status)).toEqual([200, 200, 200, 200]);
    expect(clock.now() - before).toBe(3_000);
  });

  it('keeps a group to 20 messages a minute: the 21st answers retry without reaching Telegram, and goes a minute later', async () => {
    const bot = sandbox.createTelegramBot();
    const group = sandbox.createTelegramChat('group', 'Founders');
    const destination = { botToken: bot.token, chatId: String(group.id) };
    const telegramAdapter = adapter();
    for (let i = 0; i < 20; i++) expect((await telegramAdapter.send(destination, channelMessage({ id: `dlv_${i}` }))).kind).toBe('sent');
    expect(await telegramAdapter.send(destination, channelMessage())).toEqual({
      kind: 'retry',
      status: null,
      afterMs: 60_000,
      reason: "Telegram's pace for this chat allows the next message in 1 min",
    });
    expect(sandbox.requestsTo('telegram')).toHaveLength(20);
    clock.advance(60_000);
    expect((await telegramAdapter.send(destination, channelMessage())).kind).toBe('sent');
    expect(sandbox.requestsTo('telegram').map((request) => request.status)).toEqual(Array(21).fill(200));
  });
});
