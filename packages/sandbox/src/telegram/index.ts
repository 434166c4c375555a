import { randomBytes } from 'node:crypto';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';
import { parseTelegramHtml } from './html.ts';

export { parseTelegramHtml, type HtmlParse } from './html.ts';

/**
 * Telegram's Bot API as its reference page says bots call it (core.telegram.org/bots/api, "Making requests"):
 * `https://api.telegram.org/bot<token>/METHOD_NAME`, GET or POST, parameters in the query string, a form or JSON,
 * method names case-insensitive. The fake serves `sendMessage` (chat_id, text, parse_mode "HTML",
 * link_preview_options / disable_web_page_preview, reply_parameters { message_id }) and answers
 * `{ ok: true, result: Message }` or `{ ok: false, error_code, description, parameters? }`. HTML is checked as
 * "Formatting options" lists it (html.ts). Limits from the Bots FAQ ("My bot is hitting limits"): about one message
 * a second in a chat (short bursts allowed), 20 a minute in a group, about 30 a second in all; over them 429
 * "Too Many Requests: retry after N" with `parameters.retry_after` (ResponseParameters). The reference prints no error
 * descriptions: the fake's are the ones Telegram's own Bot API server writes (tdlib/telegram-bot-api, see
 * telegramServerErrors in documented.ts): 401 "Unauthorized" (and "Unauthorized: invalid token specified" for a token
 * not of the `<id>:<secret>` form), 400 "Bad Request: chat not found", "Bad Request: chat_id is empty", "Bad Request:
 * message text is empty", "Bad Request: message to be replied not found", 403 "Forbidden: bot was blocked by the user",
 * "Forbidden: bot was kicked from the group chat" (supergroup, channel likewise), 404 "Not Found: method not found",
 * 429 "Too Many Requests: retry after N". "Bad Request: can't parse entities: …" and "Bad Request: message is too long"
 * come from TDLib, not kept in that server's repository: bot libraries name them (tucnak/telebot errors.go), and the
 * reasons after "can't parse entities: " are as the research names them.
 */

export interface TelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
  first_name?: string;
  username?: string;
}

/** One message a bot sent, as the fake keeps it. */
export interface TelegramMessage {
  botId: number;
  message_id: number;
  chat: TelegramChat;
  /** The text as shown (entities parsed out). */
  text: string;
  /** The text as sent, with its markup. */
  sentText: string;
  parseMode: string | undefined;
  replyTo: number | undefined;
  linkPreviewDisabled: boolean;
  date: number;
}

export interface FakeTelegramBot {
  id: number;
  username: string;
  /** What @BotFather answers /newbot with: `<id>:<35 characters>`. */
  token: string;
}

export interface FakeTelegram extends SandboxService {
  messages: TelegramMessage[];
  /** Plays @BotFather's /newbot. */
  createBot(): FakeTelegramBot;
  /** A chat the bot can write to: a user who pressed Start (private) or a group it was added to. */
  createChat(type?: TelegramChat['type'], title?: string): TelegramChat;
  /**
   * Plays the user blocking the bot: 403 "Forbidden: bot was blocked by the user"; for a group, supergroup or channel,
   * removing the bot from it: 403 "Forbidden: bot was kicked from the group chat" (supergroup, channel chat).
   */
  blockBot(chatId: number): void;
  /** Plays /revoke in @BotFather: the old token answers 401 from now on. */
  revokeToken(token: string): void;
}

const TEXT_MAX = 4096;
/** Bots FAQ: "In a single chat, avoid sending more than one message per second. We may allow short bursts…". */
const PRIVATE_PACE = { limit: 3, windowMs: 3_000 };
/** Bots FAQ: "In a group, bots are not be able to send more than 20 messages per minute." */
const GROUP_PACE = { limit: 20, windowMs: 60_000 };

/** The Bot API's failure: "ok equals false and the error is explained in the description". */
export const telegramError = (errorCode: number, description: string, parameters?: Record<string, unknown>): SandboxReply => ({
  status: errorCode,
  body: { ok: false, error_code: errorCode, description, ...(parameters && { parameters }) },
});

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A form or query value that is JSON-serialized (reply_parameters, link_preview_options), or the object itself. */
function objectParam(value: unknown): Record<string, unknown> | undefined {
  if (isRecord(value)) return value;
  if (typeof value !== 'string') return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Bot API server's own test of a token before it tries it (ClientManager::send): not starting with 0, at most 80
 * characters, no `/`, a `:` after a user id above 0 and below 2^54. Any other token is "Unauthorized: invalid token specified".
 */
function wellFormedToken(token: string): boolean {
  const colon = token.indexOf(':');
  if (token.startsWith('0') || token.length > 80 || token.includes('/') || colon < 0) return false;
  const id = token.slice(0, colon);
  return /^\d+$/.test(id) && Number(id) > 0 && Number(id) < 2 ** 54;
}

export function telegramService(now: number): FakeTelegram {
  void now;
  const messages: TelegramMessage[] = [];
  const bots = new Map<string, FakeTelegramBot>();
  const revoked = new Set<string>();
  const chats = new Map<number, TelegramChat>();
  const blocked = new Set<number>();
  const sent = new Map<string, number[]>();
  let nextMessageId = 1;

  const sendMessage = (request: SandboxRequest, bot: FakeTelegramBot): SandboxReply => {
    // "We support four ways of passing parameters": the query string, a form, JSON (multipart is for files).
    const params: Record<string, unknown> = { ...Object.fromEntries(request.query), ...(isRecord(request.body) ? request.body : {}) };
    const chatParam = params.chat_id;
    if (chatParam === undefined || chatParam === '') return telegramError(400, 'Bad Request: chat_id is empty');
    const chat =
      typeof chatParam === 'string' && chatParam.startsWith('@')
        ? [...chats.values()].find((candidate) => `@${candidate.username ?? ''}` === chatParam)
        : chats.get(Number(chatParam));
    if (!chat) return telegramError(400, 'Bad Request: chat not found');
    if (blocked.has(chat.id)) return telegramError(403, chat.type === 'private' ? 'Forbidden: bot was blocked by the user' : `Forbidden: bot was kicked from the ${chat.type} chat`);
    const sentText = typeof params.text === 'string' ? params.text : typeof params.text === 'number' ? String(params.text) : '';
    if (sentText === '') return telegramError(400, 'Bad Request: message text is empty');
    const parseMode = typeof params.parse_mode === 'string' && params.parse_mode !== '' ? params.parse_mode : undefined;
    let text = sentText;
    if (parseMode !== undefined) {
      if (parseMode.toLowerCase() !== 'html' && !['markdown', 'markdownv2'].includes(parseMode.toLowerCase())) return telegramError(400, `Bad Request: unsupported parse_mode`);
      if (parseMode.toLowerCase() === 'html') {
        const parsed = parseTelegramHtml(sentText);
        if (!parsed.ok) return telegramError(400, `Bad Request: can't parse entities: ${parsed.reason}`);
        text = parsed.text;
      }
    }
    if (text.trim() === '') return telegramError(400, 'Bad Request: message text is empty');
    if ([...text].length > TEXT_MAX) return telegramError(400, 'Bad Request: message is too long');
    const reply = objectParam(params.reply_parameters);
    const replyTo = reply?.message_id === undefined ? undefined : Number(reply.message_id);
    if (replyTo !== undefined && !messages.some((message) => message.chat.id === chat.id && message.message_id === replyTo)) {
      if (reply?.allow_sending_without_reply !== true) return telegramError(400, 'Bad Request: message to be replied not found');
    }
    // The chat's own pace, then the message.
    const pace = chat.type === 'private' ? PRIVATE_PACE : GROUP_PACE;
    const key = `${bot.id}:${chat.id}`;
    const times = (sent.get(key) ?? []).filter((at) => at > request.now - pace.windowMs);
    if (times.length >= pace.limit) {
      const retryAfter = Math.max(1, Math.ceil(((times[0] ?? request.now) + pace.windowMs - request.now) / 1000));
      sent.set(key, times);
      return telegramError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
    }
    sent.set(key, [...times, request.now]);
    const previewOptions = objectParam(params.link_preview_options);
    const linkPreviewDisabled = previewOptions?.is_disabled === true || params.disable_web_page_preview === true || params.disable_web_page_preview === 'true';
    const message: TelegramMessage = { botId: bot.id, message_id: nextMessageId++, chat, text, sentText, parseMode, replyTo, linkPreviewDisabled, date: Math.floor(request.now / 1000) };
    messages.push(message);
    const replied = replyTo === undefined ? undefined : messages.find((m) => m.chat.id === chat.id && m.message_id === replyTo);
    return { status: 200, body: { ok: true, result: messageBody(message, bot, replied) } };
  };

  /** A `Message` as the reference's "Message" table names its fields (those a sent text message has). */
  const messageBody = (message: TelegramMessage, bot: FakeTelegramBot, replied?: TelegramMessage): Record<string, unknown> => ({
    message_id: message.message_id,
    from: { id: bot.id, is_bot: true, first_name: 'Founder dashboard', username: bot.username },
    chat: message.chat,
    date: message.date,
    ...(replied && { reply_to_message: messageBody(replied, bot) }),
    text: message.text,
    ...(message.linkPreviewDisabled && { link_preview_options: { is_disabled: true } }),
  });

  const call = (request: SandboxRequest): SandboxReply => {
    const segment = request.params.bot_token ?? '';
    const token = segment.startsWith('bot') ? segment.slice(3) : undefined;
    if (token !== undefined && !wellFormedToken(token)) return telegramError(401, 'Unauthorized: invalid token specified');
    const bot = token === undefined || revoked.has(token) ? undefined : bots.get(token);
    if (!bot) return telegramError(401, 'Unauthorized');
    // "All methods in the Bot API are case-insensitive."
    if ((request.params.method ?? '').toLowerCase() !== 'sendmessage') return telegramError(404, 'Not Found: method not found');
    return sendMessage(request, bot);
  };

  return {
    name: 'telegram',
    basePath: '',
    messages,
    // The token is in the path: the route checks it.
    authorize: () => true,
    unauthorized: () => telegramError(401, 'Unauthorized'),
    // Bots FAQ: "not able to broadcast more than about 30 messages per second".
    rateLimit: {
      limit: 30,
      windowMs: 1_000,
      tooMany: (retryAfterMs) => {
        const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
        return telegramError(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
      },
    },
    routes: [
      { method: 'POST', path: '/:bot_token/:method', handle: call },
      { method: 'GET', path: '/:bot_token/:method', handle: call },
    ],
    createBot() {
      const id = 1_000_000_000 + bots.size + Math.floor(Math.random() * 1_000_000);
      const token = `${id}:AA${randomBytes(33).toString('base64url').slice(0, 33)}`;
      const bot = { id, username: `founder_dashboard_${bots.size + 1}_bot`, token };
      bots.set(token, bot);
      return bot;
    },
    createChat(type = 'private', title) {
      const id = type === 'private' ? 100_000_000 + chats.size + 1 : -(1_000_000_000_000 + chats.size + 1);
      const chat: TelegramChat = type === 'private' ? { id, type, first_name: title ?? 'Founder' } : { id, type, title: title ?? 'Team' };
      chats.set(id, chat);
      return chat;
    },
    blockBot(chatId) {
      blocked.add(chatId);
    },
    revokeToken(token) {
      revoked.add(token);
    },
    reset() {
      messages.length = 0;
      sent.clear();
    },
  };
}
