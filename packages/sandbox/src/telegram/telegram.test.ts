import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import type { FakeTelegram } from './index.ts';

// What a Telegram channel's connector relies on from the fake Bot API beyond the printed text.

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const telegram = () => sandbox.services.telegram.harness.service as FakeTelegram;
const send = async (token: string, params: Record<string, unknown>) => {
  const response = await fetch(`${sandbox.services.telegram.url}/bot${token}/sendMessage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('the fake Telegram (sendMessage)', () => {
  it('replies to an earlier message with reply_parameters, and keeps link previews off when asked', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const outage = await send(bot.token, { chat_id: chat.id, text: '<b>Down</b>: api', parse_mode: 'HTML' });
    const id = (outage.body.result as { message_id: number }).message_id;
    const recovery = await send(bot.token, { chat_id: chat.id, text: 'Up again after 4 min', reply_parameters: { message_id: id }, link_preview_options: { is_disabled: true } });
    expect(recovery.body).toMatchObject({ ok: true, result: { reply_to_message: { message_id: id, text: 'Down: api' }, link_preview_options: { is_disabled: true } } });
    expect(sandbox.telegramMessages().map((m) => [m.replyTo, m.linkPreviewDisabled])).toEqual([[undefined, false], [id, true]]);
    expect((await send(bot.token, { chat_id: chat.id, text: 'x', disable_web_page_preview: true })).status).toBe(200);
    expect(sandbox.telegramMessages().at(-1)?.linkPreviewDisabled).toBe(true);
    const missing = await send(bot.token, { chat_id: chat.id, text: 'x', reply_parameters: { message_id: 999 } });
    expect(missing.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: message to be replied not found' });
  });

  it('answers a wrong or revoked token 401, an unknown chat 400 and a blocked bot 403', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    expect((await send('123:wrong', { chat_id: chat.id, text: 'x' })).body).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    expect((await send(bot.token, { chat_id: 7, text: 'x' })).body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    telegram().blockBot(chat.id);
    expect((await send(bot.token, { chat_id: chat.id, text: 'x' })).body).toEqual({ ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    telegram().revokeToken(bot.token);
    expect((await send(bot.token, { chat_id: chat.id, text: 'x' })).status).toBe(401);
    expect(sandbox.telegramMessages()).toEqual([]);
  });

  it('refuses an empty or too long text, and names the byte offset of a bad tag', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    expect((await send(bot.token, { chat_id: chat.id, text: '' })).body.description).toBe('Bad Request: message text is empty');
    expect((await send(bot.token, { chat_id: chat.id, text: 'x'.repeat(4097) })).body.description).toBe('Bad Request: message is too long');
    expect((await send(bot.token, { chat_id: chat.id, text: 'é <script>', parse_mode: 'HTML' })).body.description).toBe(
      'Bad Request: can\'t parse entities: Unsupported start tag "script" at byte offset 3',
    );
  });

  it('paces a private chat at about one message a second after a short burst', async () => {
    const bot = sandbox.createTelegramBot();
    const chat = sandbox.createTelegramChat();
    const other = sandbox.createTelegramChat();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(bot.token, { chat_id: chat.id, text: `m${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await send(bot.token, { chat_id: other.id, text: 'another chat' })).status).toBe(200);
  });
});
