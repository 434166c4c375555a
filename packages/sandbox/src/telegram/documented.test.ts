import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import type { FakeTelegram } from './index.ts';
import { telegramDocumented as documented, telegramDocumentedHtml as html, telegramDocumentedLimits as limits, telegramServerErrors as server } from './documented.ts';

// The fake Telegram held to what the Bot API reference and the Bots FAQ print (telegram/documented.ts).

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

/** The printed form, https://api.telegram.org/bot<token>/METHOD_NAME, on the fake's origin. */
const methodUrl = (token: string, method: string) => documented.requestForm.form.replace('https://api.telegram.org', sandbox.services.telegram.url).replace('<token>', token).replace('METHOD_NAME', method);
const call = async (token: string, method: string, params: Record<string, unknown>) => {
  const response = await fetch(methodUrl(token, method), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('the fake Telegram answers as the Bot API reference prints', () => {
  it('serves the printed request form, any case of the method name, and answers ok/result with the Message fields', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const sent = await call(bot.token, 'SENDMESSAGE', { chat_id: chat.id, text: 'Deploy failed' });
    expect(sent.status).toBe(200);
    expect(Object.keys(sent.body).sort()).toEqual([...documented.answer.success].sort());
    const result = sent.body.result as Record<string, unknown>;
    for (const field of documented.message.fields) expect(result).toHaveProperty(field);
    expect(result).toMatchObject({ chat: { id: chat.id }, text: 'Deploy failed' });
  });

  it('answers a failure with ok false, error_code and description', async () => {
    const bot = sandbox.createTelegramBot();
    const failed = await call(bot.token, 'sendMessage', { chat_id: 42, text: 'x' });
    for (const field of documented.answer.failure) expect(failed.body).toHaveProperty(field);
    expect(failed.body).toMatchObject({ ok: false, error_code: failed.status });
  });

  it('answers with the descriptions Telegram’s Bot API server writes', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const group = sandbox.createTelegramChat('group');
    const answers = [
      await call('0:malformed', 'sendMessage', { chat_id: chat.id, text: 'x' }),
      await call('123:wrong', 'sendMessage', { chat_id: chat.id, text: 'x' }),
      await call(bot.token, 'sendMessage', { text: 'x' }),
      await call(bot.token, 'sendMessage', { chat_id: 42, text: 'x' }),
      await call(bot.token, 'sendMessage', { chat_id: chat.id, text: '' }),
      await call(bot.token, 'sendMessage', { chat_id: chat.id, text: 'x', reply_parameters: { message_id: 999 } }),
      await call(bot.token, 'getUpdatez', {}),
    ];
    const telegram = sandbox.services.telegram.harness.service as FakeTelegram;
    telegram.blockBot(chat.id);
    telegram.blockBot(group.id);
    answers.push(await call(bot.token, 'sendMessage', { chat_id: chat.id, text: 'x' }), await call(bot.token, 'sendMessage', { chat_id: group.id, text: 'x' }));
    const expected = [server.malformedToken, server.unauthorized, server.chatIdEmpty, server.chatNotFound, server.textEmpty, server.replyNotFound, server.methodNotFound, server.blocked, server.kickedFromGroup];
    expect(answers.map((a) => [a.status, a.body.description])).toEqual(expected.map((e) => [e.status, e.description]));
  });

  it('accepts every line of the printed HTML style, and refuses a tag it does not list or an unescaped < or &', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat('group');
    for (const line of html.lines) {
      const sent = await call(bot.token, 'sendMessage', { chat_id: chat.id, text: line, parse_mode: 'HTML' });
      expect([line, sent.status]).toEqual([line, 200]);
    }
    expect(sandbox.telegramMessages()[0]?.text).toBe('bold, bold');
    for (const text of ['<h1>Outage</h1>', 'latency < 200ms', 'R&D deploy', '<b>unclosed']) {
      const refused = await call(bot.token, 'sendMessage', { chat_id: chat.id, text, parse_mode: 'HTML' });
      expect(refused.status).toBe(400);
      expect(refused.body.description).toMatch(/^Bad Request: can't parse entities: /);
    }
    // The escaped forms the notes name pass, and show as the characters they stand for.
    const escaped = await call(bot.token, 'sendMessage', { chat_id: chat.id, text: 'latency &lt; 200ms, R&amp;D &quot;deploy&quot; &#128640;', parse_mode: 'HTML' });
    expect((escaped.body.result as { text: string }).text).toBe('latency < 200ms, R&D "deploy" 🚀');
  });

  it('keeps the FAQ’s 20 messages a minute in a group, answering 429 with parameters.retry_after', async () => {
    const bot = sandbox.createTelegramBot();
    const group = sandbox.createTelegramChat('supergroup');
    const statuses: number[] = [];
    for (let i = 0; i <= limits.groupPerMinute; i++) statuses.push((await call(bot.token, 'sendMessage', { chat_id: group.id, text: `m${i}` })).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(limits.groupPerMinute);
    const limited = await call(bot.token, 'sendMessage', { chat_id: group.id, text: 'one more' });
    const retryAfter = (limited.body.parameters as { retry_after: number }).retry_after;
    expect(limited.status).toBe(429);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body.description).toBe(`Too Many Requests: retry after ${retryAfter}`);
  });
});
