import escapeHtml from 'escape-html';
import { z } from 'zod';
import {
  answerReason,
  jsonOrUndefined,
  recoveryLine,
  refusalOutcome,
  sendInOrder,
  sendRequest,
  PaceKeeper,
  type ChannelAdapter,
  type ChannelMessage,
  type ChannelOutcome,
  type PacedAdapterOptions,
  type SequenceOutcome,
} from '../channel.ts';

/**
 * Telegram through a bot (core.telegram.org/bots/api#sendmessage): `POST {baseUrl}/bot{token}/sendMessage` with the
 * text in HTML parse mode, answered `{ ok, result: Message }` or `{ ok: false, error_code, description, parameters }`.
 * A bot cannot edit into a chat's history what a reader already saw, so a recovery replies to its outage's message.
 */
export interface TelegramDestination {
  /** @BotFather's `<bot id>:<secret>`: it goes in the URL's path, so neither the URL nor the token is ever shown. */
  botToken: string;
  /** A user's or a group's numeric id (a group's is negative), or a public channel's `@username`. */
  chatId: string;
}

export interface TelegramAdapterOptions extends PacedAdapterOptions {
  /** The Bot API's root; a sandbox's in tests. */
  baseUrl?: string;
}

export const TELEGRAM_API = 'https://api.telegram.org';
/** Bots FAQ ("My bot is hitting limits"): "avoid sending more than one message per second" in a chat. */
export const TELEGRAM_CHAT_PACE = { limit: 1, windowMs: 1_000 };
/** Bots FAQ: "In a group, bots are not able to send more than 20 messages per minute." */
export const TELEGRAM_GROUP_PACE = { limit: 20, windowMs: 60_000 };

/** sendMessage's text: "1-4096 characters after entities parsing". */
export const TELEGRAM_TEXT_MAX = 4_096;
const TEXT_MAX = TELEGRAM_TEXT_MAX;

/**
 * Strangers' text for Telegram's HTML parse mode: `&`, `<`, `>`, `"` and `'` as entities (escape-html), which
 * Telegram parses back to the characters, so no tag in it formats or links.
 */
export const escapeTelegramHtml = (text: string): string => escapeHtml(text);

/** sendMessage's parameters besides the chat, as rendered elsewhere: the text and how to parse it. */
export interface TelegramRawPayload {
  text: string;
  parse_mode?: 'HTML';
}
/** The title, the project and what a recovery ends each keep to this, so the body always has most of the room. */
const LINE_MAX = 512;
const LINK_TEXT = 'Open in the dashboard';

/** Cut to `max` characters with an ellipsis when cut, never inside a surrogate pair; escaping comes after, so never inside an entity. */
function fit(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = '';
  for (const char of text) {
    if (cut.length + char.length > max - 1) break;
    cut += char;
  }
  return `${cut}…`;
}

/**
 * The message in Telegram's HTML: the title in bold, the body, what a recovery ends, the project, and a link to the
 * thread. Every stranger's string goes through escape-html (`&`, `<`, `>`, `"` and `'` as entities, which Telegram
 * parses back to the characters), so no tag in it formats or links.
 */
export function telegramText(message: ChannelMessage): string {
  const ends = recoveryLine(message);
  const lines = {
    title: fit(message.title, LINE_MAX),
    ends: ends === undefined ? undefined : fit(ends, LINE_MAX),
    project: message.project ? `Project: ${fit(message.project, LINE_MAX)}` : undefined,
    link: message.url ? LINK_TEXT : undefined,
  };
  const others = [lines.title, lines.ends, lines.project, lines.link].filter((line): line is string => line !== undefined);
  // What the reader is shown counts toward the limit: each line and the newline before all but the first.
  const room = TEXT_MAX - others.reduce((total, line) => total + line.length + 1, 0);
  const body = message.body ? fit(message.body, room) : undefined;
  return [
    `<b>${escapeHtml(lines.title)}</b>`,
    body === undefined ? undefined : escapeHtml(body),
    lines.ends === undefined ? undefined : escapeHtml(lines.ends),
    lines.project === undefined ? undefined : escapeHtml(lines.project),
    message.url ? `<a href="${escapeHtml(message.url)}">${LINK_TEXT}</a>` : undefined,
  ]
    .filter((line): line is string => line !== undefined)
    .join('\n');
}

/** sendMessage's parameters: HTML, no link preview (a stranger's link would unfurl), and the reply a recovery makes. */
export function telegramRequest(chatId: string, message: ChannelMessage): Record<string, unknown> {
  const replyTo = message.kind === 'resolve' ? message.recovers?.providerId : null;
  return {
    chat_id: chatId,
    text: telegramText(message),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
    // The outage's message may have been deleted since: the recovery is sent all the same, naming what it ends.
    ...(replyTo && /^\d+$/.test(replyTo) ? { reply_parameters: { message_id: Number(replyTo), allow_sending_without_reply: true } } : {}),
  };
}

const sentSchema = z.object({ ok: z.literal(true), result: z.object({ message_id: z.number().int() }) });
const failureSchema = z.object({
  ok: z.literal(false),
  description: z.string().optional(),
  parameters: z.object({ retry_after: z.number().nonnegative().optional(), migrate_to_chat_id: z.number().optional() }).optional(),
});

/** The token as @BotFather gives it; anything else would change the URL's path (`/`, `..`, `?`) if put in it. */
const TOKEN_FORM = /^\d+:[A-Za-z0-9_-]+$/;

/** Sends chat messages through a Telegram bot, keeping each chat's pace, and replies to an outage's message when it recovers. */
export class TelegramAdapter implements ChannelAdapter<TelegramDestination> {
  private readonly baseUrl: string;
  /** Each chat's pace, by bot and chat. */
  private readonly pace: PaceKeeper;

  constructor(private readonly options: TelegramAdapterOptions) {
    this.baseUrl = (options.baseUrl ?? TELEGRAM_API).replace(/\/+$/, '');
    this.pace = new PaceKeeper({ clock: options.clock, longestWindowMs: TELEGRAM_GROUP_PACE.windowMs, maxWaitMs: options.maxPaceWaitMs });
  }

  async send(destination: TelegramDestination, message: ChannelMessage): Promise<ChannelOutcome> {
    return this.call(destination, telegramRequest(destination.chatId, message));
  }

  /**
   * Sends a text rendered elsewhere (the briefing's HTML) to the destination's chat as `send` sends its own: the same
   * token check, chat pace and answers, and the message's id when sent. A stranger's link never unfurls.
   */
  sendRaw(destination: TelegramDestination, payload: TelegramRawPayload): Promise<ChannelOutcome> {
    return this.call(destination, { ...payload, chat_id: destination.chatId, link_preview_options: { is_disabled: true } });
  }

  /** Sends several texts in order, each at the chat's pace, stopping at the first that is not sent. */
  sendRawInOrder(destination: TelegramDestination, payloads: readonly TelegramRawPayload[]): Promise<SequenceOutcome> {
    return sendInOrder(payloads, (payload) => this.sendRaw(destination, payload));
  }

  /** One sendMessage with these parameters, at the chat's pace. */
  private async call(destination: TelegramDestination, params: Record<string, unknown>): Promise<ChannelOutcome> {
    const { botToken, chatId } = destination;
    if (!TOKEN_FORM.test(botToken)) return { kind: 'refused', status: null, reason: 'The Telegram bot token is not in the form @BotFather gives (<bot id>:<secret>)' };
    const pace = chatId.startsWith('-') || chatId.startsWith('@') ? TELEGRAM_GROUP_PACE : TELEGRAM_CHAT_PACE;
    const slot = await this.pace.take(`${botToken.split(':')[0] ?? ''}:${chatId}`, pace, "Telegram's pace for this chat");
    if ('kind' in slot) return slot;
    const answer = await sendRequest(
      this.options,
      `${this.baseUrl}/bot${botToken}/sendMessage`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) },
      'Telegram',
    );
    // Telegram counts the message when it answers, not when it was asked: the pace runs from then.
    slot.at = this.options.clock.now();
    if ('kind' in answer) return answer;
    const said = await answer.text().catch(() => '');
    const body = jsonOrUndefined(said);
    const { status } = answer;
    if (status >= 200 && status < 300) {
      const sent = sentSchema.safeParse(body);
      // A 200 whose body is not the Bot API's (a proxy's page) was most likely delivered: sending again would repeat it.
      return { kind: 'sent', status, providerId: sent.success ? String(sent.data.result.message_id) : null };
    }
    const failure = failureSchema.safeParse(body);
    const migratedTo = failure.data?.parameters?.migrate_to_chat_id;
    // The Bot API's documented error: `description` (never the rest of the answer, a proxy's page).
    const words = `${failure.data?.description ?? ''}${migratedTo === undefined ? '' : ` (the group is now the supergroup ${migratedTo})`}`;
    const reason = answerReason('Telegram', status, words, [botToken]);
    // A 404 is a malformed path (a token cut short), not a chat that is gone.
    if (status === 404) return { kind: 'refused', status, reason };
    const retryAfter = failure.data?.parameters?.retry_after;
    return refusalOutcome(answer, reason, this.options.clock.now(), status === 429 && retryAfter !== undefined ? retryAfter * 1000 : undefined);
  }
}
