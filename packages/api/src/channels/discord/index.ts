import type { NotificationSeverity } from '@dash/contracts';
import { parseRetryAfter } from '@dash/connectors';
import { z } from 'zod';
import {
  answerReason,
  jsonOrUndefined,
  destinationUrl,
  paceRetry,
  recoveryLine,
  MAX_PACE_WAIT_MS,
  refusalOutcome,
  sendInOrder,
  sendRequest,
  type ChannelAdapter,
  type ChannelMessage,
  type ChannelOutcome,
  type PacedAdapterOptions,
  type SequenceOutcome,
} from '../channel.ts';

/**
 * Discord through an incoming webhook (API v10, discord.com/developers/docs/resources/webhook): `POST {url}?wait=true`
 * with one embed, answered with the message, whose id a recovery later edits in place with
 * `PATCH {url}/messages/{id}`. Each webhook has its own rate-limit bucket, told in `X-RateLimit-*` headers; the
 * adapter keeps to it so that a burst of alerts waits instead of meeting a 429.
 */
export interface DiscordDestination {
  /** `https://discord.com/api/webhooks/{id}/{token}` ("Copy Webhook URL"): the token is its last segment, so it is never shown. */
  webhookUrl: string;
}

/** An execute's body as Discord takes it: up to 10 embeds (and `content`); `allowed_mentions` is always set to none. */
export interface DiscordRawPayload {
  content?: string;
  embeds: readonly Record<string, unknown>[];
}

/** Discord's pace is its own bucket per webhook, told in each answer's headers, so its adapter keeps it itself. */
export type DiscordAdapterOptions = PacedAdapterOptions;

export const DISCORD_COLORS: Record<NotificationSeverity, number> = { error: 0xd93025, warning: 0xf29900, success: 0x188038, info: 0x1a73e8 };

// Discord's embed limits (…/resources/message#embed-object-embed-limits): 256 + 4096 + 7 ("Project") + 1024 = 5383,
// so an embed made within them is always under the 6000 characters one may hold in all.
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 4_096;
const FIELD_VALUE_MAX = 1_024;
const RECOVERY_LINE_MAX = 512;
/** Discord's JSON error codes the adapter tells apart (…/topics/opcodes-and-status-codes#json). */
const UNKNOWN_MESSAGE = 10_008;

/**
 * Strangers' text for Discord's Markdown: a backslash before each character that could start formatting, a masked
 * link, a heading, a list, a quote, a spoiler or a mention (`<@id>`), which Discord draws as the character itself.
 */
export function escapeDiscordMarkdown(text: string): string {
  return text.replace(/[\\*_~`|<>[\]()#-]/g, '\\$&');
}

/** Escaped and cut to `max` characters with an ellipsis when cut, never between a backslash and what it escapes. */
export function fitMarkdown(text: string, max: number): string {
  const escaped = escapeDiscordMarkdown(text);
  if (escaped.length <= max) return escaped;
  let cut = '';
  for (const char of text) {
    const piece = escapeDiscordMarkdown(char);
    if (cut.length + piece.length > max - 1) break;
    cut += piece;
  }
  return `${cut}…`;
}

/** The message as one embed: its title, the body (and what a recovery ends), the severity's colour, the project. */
export function discordEmbed(message: ChannelMessage, color = DISCORD_COLORS[message.severity]): Record<string, unknown> {
  const ends = recoveryLine(message);
  const endsText = ends === undefined ? '' : fitMarkdown(ends, RECOVERY_LINE_MAX);
  const room = DESCRIPTION_MAX - (endsText ? endsText.length + 2 : 0);
  const description = [message.body ? fitMarkdown(message.body, room) : '', endsText].filter(Boolean).join('\n\n');
  return {
    title: fitMarkdown(message.title, TITLE_MAX),
    ...(description ? { description } : {}),
    color,
    ...(message.url ? { url: message.url } : {}),
    timestamp: new Date(message.at).toISOString(),
    ...(message.project ? { fields: [{ name: 'Project', value: fitMarkdown(message.project, FIELD_VALUE_MAX), inline: true }] } : {}),
  };
}

/**
 * The body of an execute or an edit. Nothing in it can ping: mentions inside an embed never notify, and
 * `allowed_mentions: { parse: [] }` turns off any a later `content` might hold, so no zero-width space is put
 * after an `@` (which would also change what a reader copies); Discord still draws `<@id>` as a pill, which the
 * Markdown escape prevents.
 */
export function discordPayload(message: ChannelMessage, color?: number): Record<string, unknown> {
  return { embeds: [discordEmbed(message, color)], allowed_mentions: { parse: [] } };
}

const discordMessageSchema = z.object({ id: z.string().regex(/^\d+$/) });
const discordErrorSchema = z.object({ code: z.number().optional(), message: z.string().optional(), retry_after: z.number().nonnegative().optional() });
type DiscordError = z.infer<typeof discordErrorSchema>;

type Answer = { status: number; response: Response; error: DiscordError; said: string; body: unknown };

/** Sends chat messages through Discord incoming webhooks, editing an outage's message when it recovers. */
export class DiscordAdapter implements ChannelAdapter<DiscordDestination> {
  /** Each webhook's bucket as Discord last told it, by the webhook's URL (held in memory only). */
  private readonly buckets = new Map<string, { remaining: number; resetAt: number }>();

  constructor(private readonly options: DiscordAdapterOptions) {}

  async send(destination: DiscordDestination, message: ChannelMessage): Promise<ChannelOutcome> {
    const target = destinationUrl(destination.webhookUrl, 'The Discord webhook URL');
    if ('refused' in target) return { kind: 'refused', status: null, reason: target.refused };
    const webhook = target.url;
    const token = webhook.pathname.split('/').filter(Boolean).at(-1) ?? '';
    const editId = message.kind === 'resolve' ? message.recovers?.providerId : null;
    // An id that is not a snowflake was never Discord's (another channel's): there is nothing to edit.
    if (editId && /^\d+$/.test(editId)) {
      const edited = await this.call(webhook, 'PATCH', `/messages/${editId}`, discordPayload(message, DISCORD_COLORS.success));
      if (!('response' in edited)) return edited;
      if (edited.status >= 200 && edited.status < 300) return { kind: 'sent', status: edited.status, providerId: editId };
      // Someone deleted the outage's message: the recovery is told in a new one.
      if (!(edited.status === 404 && edited.error.code === UNKNOWN_MESSAGE)) return this.refusal(edited, token);
    }
    return this.post(webhook, token, discordPayload(message));
  }

  /**
   * Executes the webhook with a payload rendered elsewhere (the briefing's embeds) as `send` posts its own: the same
   * address check, bucket and answers, and the message's id when sent. Nothing in it may ping, whatever it says.
   */
  async sendRaw(destination: DiscordDestination, payload: DiscordRawPayload): Promise<ChannelOutcome> {
    const target = destinationUrl(destination.webhookUrl, 'The Discord webhook URL');
    if ('refused' in target) return { kind: 'refused', status: null, reason: target.refused };
    const token = target.url.pathname.split('/').filter(Boolean).at(-1) ?? '';
    return this.post(target.url, token, { ...payload, allowed_mentions: { parse: [] } });
  }

  /** Executes several payloads in order, each within the webhook's bucket, stopping at the first that is not sent. */
  sendRawInOrder(destination: DiscordDestination, payloads: readonly DiscordRawPayload[]): Promise<SequenceOutcome> {
    return sendInOrder(payloads, (payload) => this.sendRaw(destination, payload));
  }

  /** One execute of the webhook, answered with the message's id (`?wait=true`). */
  private async post(webhook: URL, token: string, payload: Record<string, unknown>): Promise<ChannelOutcome> {
    const posted = await this.call(webhook, 'POST', '', payload);
    if (!('response' in posted)) return posted;
    if (posted.status >= 200 && posted.status < 300) {
      const sent = discordMessageSchema.safeParse(posted.body);
      return { kind: 'sent', status: posted.status, providerId: sent.success ? sent.data.id : null };
    }
    return this.refusal(posted, token);
  }

  /** One request to the webhook, after its bucket allows it; the answer read, or the outcome when there is none. */
  private async call(webhook: URL, method: 'POST' | 'PATCH', suffix: string, payload: Record<string, unknown>): Promise<Answer | ChannelOutcome> {
    const bucketKey = webhook.origin + webhook.pathname;
    const waitMs = await this.keepPace(bucketKey);
    if (waitMs !== undefined) return paceRetry("Discord's rate limit for this webhook", waitMs);
    const url = new URL(webhook);
    url.pathname = url.pathname.replace(/\/+$/, '') + suffix;
    // With wait=true Discord answers the message (and its id, for the edit); without, an empty 204.
    if (method === 'POST') url.searchParams.set('wait', 'true');
    const answer = await sendRequest(this.options, url.href, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) }, 'Discord');
    if ('kind' in answer) return answer;
    this.notePace(bucketKey, answer.headers);
    const said = await answer.text().catch(() => '');
    const body = jsonOrUndefined(said);
    const error = discordErrorSchema.safeParse(body);
    return { status: answer.status, response: answer, error: error.success ? error.data : {}, said, body };
  }

  private refusal(answer: Answer, token: string): ChannelOutcome {
    const { error, response } = answer;
    // Discord's documented error: its JSON `message` and `code` (never the rest of the answer, a proxy's page).
    const words = error.message === undefined ? (error.code === undefined ? undefined : `code ${error.code}`) : `${error.message}${error.code ? ` (code ${error.code})` : ''}`;
    const reason = answerReason('Discord', answer.status, words, [token]);
    const now = this.options.clock.now();
    const resetAfter = Number(response.headers.get('x-ratelimit-reset-after') ?? Number.NaN);
    const hintMs =
      error.retry_after !== undefined
        ? Math.ceil(error.retry_after * 1000)
        : (parseRetryAfter(response.headers.get('retry-after'), now) ?? (Number.isFinite(resetAfter) ? Math.ceil(resetAfter * 1000) : undefined));
    return refusalOutcome(response, reason, now, answer.status === 429 ? hintMs : undefined);
  }

  /** Waits while the webhook's bucket is spent; answers the wait instead when it is longer than the cap. */
  private async keepPace(bucketKey: string): Promise<number | undefined> {
    for (;;) {
      const bucket = this.buckets.get(bucketKey);
      const now = this.options.clock.now();
      if (!bucket || now >= bucket.resetAt) return undefined;
      if (bucket.remaining > 0) {
        // Taken now, so sends running side by side do not all count the same place in the bucket.
        bucket.remaining -= 1;
        return undefined;
      }
      const waitMs = bucket.resetAt - now;
      if (waitMs > (this.options.maxPaceWaitMs ?? MAX_PACE_WAIT_MS)) return waitMs;
      await this.options.clock.sleep(waitMs);
      // Reset by now; a newer answer that came in meanwhile is kept and read again.
      if (this.buckets.get(bucketKey) === bucket) this.buckets.delete(bucketKey);
    }
  }

  private notePace(bucketKey: string, headers: Headers) {
    const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
    const resetAfter = Number(headers.get('x-ratelimit-reset-after') ?? Number.NaN);
    if (!Number.isFinite(remaining) || !Number.isFinite(resetAfter)) return;
    const now = this.options.clock.now();
    for (const [key, bucket] of this.buckets) if (bucket.resetAt <= now) this.buckets.delete(key);
    this.buckets.set(bucketKey, { remaining, resetAt: now + Math.ceil(resetAfter * 1000) });
  }
}
