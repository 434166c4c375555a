import { randomBytes } from 'node:crypto';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

/**
 * Discord's incoming webhooks (API v10), as its OpenAPI description (discord/discord-api-spec) and its documentation
 * say they answer: `POST /webhooks/{id}/{token}` executes one (with `?wait=true`, 200 and the message, whose `id` a
 * later `PATCH …/messages/{message_id}` edits; without, 204), `GET`/`PATCH …/messages/{message_id}` read and edit
 * it. The token is in the path, so a wrong one is Discord's 401 `Invalid Webhook Token` (50027) and an unknown or
 * deleted webhook its 404 `Unknown Webhook` (10015). Each webhook has its own rate-limit bucket (five requests in
 * two seconds), told in `X-RateLimit-*` headers on every answer and answered over it with 429 and a
 * `RatelimitedResponse` (`retry_after` in seconds, `global: false`).
 * https://discord.com/developers/docs/resources/webhook#execute-webhook, …/topics/rate-limits
 */

/** One message a webhook posted, as Discord keeps it. */
export interface DiscordMessage {
  id: string;
  webhookId: string;
  content: string;
  embeds: Record<string, unknown>[];
  allowedMentions: unknown;
  editedAt: number | null;
  at: number;
}

export interface FakeDiscordWebhook {
  id: string;
  token: string;
  /** The URL Discord shows in the channel's Integrations → Webhooks → Copy Webhook URL. */
  url: string;
}

export interface FakeDiscord extends SandboxService {
  /** Every message each webhook posted, oldest first (edits change them in place). */
  messages: DiscordMessage[];
  /** Plays a channel's admin making a webhook (Server Settings → Integrations → Webhooks → New Webhook). */
  createWebhook(origin: string): FakeDiscordWebhook;
  /** Plays deleting it: its URL answers 404 Unknown Webhook from now on. */
  deleteWebhook(id: string): void;
}

/** A webhook's bucket: 5 requests per 2 s (Discord's documented per-route limits for webhooks). */
const BUCKET = { limit: 5, windowMs: 2_000 };
const CONTENT_MAX = 2_000;
const EMBEDS_MAX = 10;
/**
 * "Embed Limits" (discord.com/developers/docs/resources/message#embed-object-embed-limits): title 256 characters,
 * description 4096, up to 25 fields, a field's name 256 and value 1024, footer text 2048, author name 256; and "the
 * combined sum of characters in all title, description, field.name, field.value, footer.text, and author.name fields
 * across all embeds attached to a message must not exceed 6000 characters". Characters are counted as code points.
 */
const EMBED = { title: 256, description: 4_096, fields: 25, fieldName: 256, fieldValue: 1_024, footer: 2_048, author: 256, total: 6_000 };

const discordError = (status: number, code: number, message: string, headers: Record<string, string> = {}): SandboxReply => ({
  status,
  headers,
  body: { code, message },
});

const chars = (value: unknown) => (typeof value === 'string' ? [...value].length : 0);

/** Where a message's embeds break Discord's embed limits ("embeds.0.title: Must be 256 or fewer in length."), or undefined. */
function embedProblem(embeds: readonly Record<string, unknown>[]): string | undefined {
  let total = 0;
  for (const [index, embed] of embeds.entries()) {
    const at = `embeds.${index}`;
    const fields = Array.isArray(embed.fields) ? embed.fields.filter(isRecord) : [];
    const footer = isRecord(embed.footer) ? embed.footer.text : undefined;
    const author = isRecord(embed.author) ? embed.author.name : undefined;
    const checks: [string, unknown, number][] = [
      ['title', embed.title, EMBED.title],
      ['description', embed.description, EMBED.description],
      ['footer.text', footer, EMBED.footer],
      ['author.name', author, EMBED.author],
      ...fields.flatMap((field, n): [string, unknown, number][] => [
        [`fields.${n}.name`, field.name, EMBED.fieldName],
        [`fields.${n}.value`, field.value, EMBED.fieldValue],
      ]),
    ];
    for (const [name, value, max] of checks) if (chars(value) > max) return `${at}.${name}: Must be ${max} or fewer in length.`;
    if (fields.length > EMBED.fields) return `${at}.fields: Must be ${EMBED.fields} or fewer in length.`;
    total += checks.reduce((sum, [, value]) => sum + chars(value), 0);
  }
  return total > EMBED.total ? `embeds: Embed size exceeds maximum size of ${EMBED.total}` : undefined;
}

/** A snowflake: a decimal string, as Discord's ids are. */
const snowflake = () => BigInt(`0x${randomBytes(7).toString('hex')}`).toString();

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function discordService(now: number): FakeDiscord {
  void now;
  const messages: DiscordMessage[] = [];
  const webhooks = new Map<string, { token: string; channelId: string; deleted: boolean; sent: number[] }>();
  const bucketOf = (id: string) => `webhook-${id}`;

  /** The webhook the path names, its own bucket taken, or Discord's refusal. */
  const take = (request: SandboxRequest): { id: string; headers: Record<string, string> } | SandboxReply => {
    const id = request.params.webhook_id ?? '';
    const webhook = webhooks.get(id);
    if (!webhook || webhook.deleted) return discordError(404, 10015, 'Unknown Webhook');
    if (webhook.token !== request.params.webhook_token) return discordError(401, 50027, 'Invalid Webhook Token');
    webhook.sent = webhook.sent.filter((at) => at > request.now - BUCKET.windowMs);
    const resetAt = (webhook.sent[0] ?? request.now) + BUCKET.windowMs;
    const headers = (used: number) => ({
      'x-ratelimit-limit': String(BUCKET.limit),
      'x-ratelimit-remaining': String(Math.max(0, BUCKET.limit - used)),
      'x-ratelimit-reset': (resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': (Math.max(0, resetAt - request.now) / 1000).toFixed(3),
      'x-ratelimit-bucket': bucketOf(id),
    });
    if (webhook.sent.length >= BUCKET.limit) {
      const retryAfter = Math.max(0, resetAt - request.now) / 1000;
      return {
        status: 429,
        headers: { ...headers(webhook.sent.length), 'retry-after': String(Math.ceil(retryAfter)), 'x-ratelimit-scope': 'shared' },
        body: { code: 0, message: 'You are being rate limited.', retry_after: Number(retryAfter.toFixed(3)), global: false },
      };
    }
    webhook.sent.push(request.now);
    return { id, headers: headers(webhook.sent.length) };
  };

  /** What Discord answers for a message: `MessageResponse`, the webhook as its author. */
  const messageBody = (message: DiscordMessage) => ({
    type: 0,
    content: message.content,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: message.embeds.map((embed) => ({ type: 'rich', ...embed })),
    timestamp: new Date(message.at).toISOString(),
    edited_timestamp: message.editedAt === null ? null : new Date(message.editedAt).toISOString(),
    flags: 0,
    components: [],
    id: message.id,
    channel_id: webhooks.get(message.webhookId)?.channelId ?? '0',
    author: { id: message.webhookId, username: 'Founder dashboard', avatar: null, discriminator: '0000', public_flags: 0, flags: 0, bot: true, global_name: null, primary_guild: null },
    pinned: false,
    mention_everyone: false,
    tts: false,
    webhook_id: message.webhookId,
  });

  /** The body's content and embeds, as Discord checks them (50006 for an empty message, 50035 for a bad field). */
  const contentOf = (body: unknown): { content: string; embeds: Record<string, unknown>[]; allowedMentions: unknown } | SandboxReply => {
    if (!isRecord(body)) return discordError(400, 50109, 'The request body contains invalid JSON.');
    const content = typeof body.content === 'string' ? body.content : '';
    const embeds = Array.isArray(body.embeds) ? body.embeds.filter(isRecord) : [];
    if (content.length > CONTENT_MAX) return discordError(400, 50035, `Invalid Form Body: content: Must be ${CONTENT_MAX} or fewer in length.`);
    if (embeds.length > EMBEDS_MAX) return discordError(400, 50035, `Invalid Form Body: embeds: Must be ${EMBEDS_MAX} or fewer in length.`);
    const overLimit = embedProblem(embeds);
    if (overLimit) return discordError(400, 50035, `Invalid Form Body: ${overLimit}`);
    if (content === '' && embeds.length === 0) return discordError(400, 50006, 'Cannot send an empty message');
    return { content, embeds, allowedMentions: body.allowed_mentions };
  };

  const execute = (request: SandboxRequest): SandboxReply => {
    const taken = take(request);
    if (!('id' in taken)) return taken;
    const read = contentOf(request.body);
    if (!('content' in read)) return { ...read, headers: { ...taken.headers, ...read.headers } };
    const message: DiscordMessage = { id: snowflake(), webhookId: taken.id, ...read, editedAt: null, at: request.now };
    messages.push(message);
    if (request.query.get('wait') !== 'true') return { status: 204, headers: taken.headers, body: undefined };
    return { status: 200, headers: taken.headers, body: messageBody(message) };
  };

  const messageOf = (request: SandboxRequest, id: string): DiscordMessage | undefined =>
    messages.find((message) => message.id === request.params.message_id && message.webhookId === id);

  const get = (request: SandboxRequest): SandboxReply => {
    const taken = take(request);
    if (!('id' in taken)) return taken;
    const message = messageOf(request, taken.id);
    if (!message) return discordError(404, 10008, 'Unknown Message', taken.headers);
    return { status: 200, headers: taken.headers, body: messageBody(message) };
  };

  const edit = (request: SandboxRequest): SandboxReply => {
    const taken = take(request);
    if (!('id' in taken)) return taken;
    const message = messageOf(request, taken.id);
    if (!message) return discordError(404, 10008, 'Unknown Message', taken.headers);
    const read = contentOf({ content: message.content, embeds: message.embeds, ...(isRecord(request.body) ? request.body : {}) });
    if (!('content' in read)) return { ...read, headers: { ...taken.headers, ...read.headers } };
    Object.assign(message, read, { editedAt: request.now });
    return { status: 200, headers: taken.headers, body: messageBody(message) };
  };

  const path = '/webhooks/:webhook_id/:webhook_token';
  return {
    name: 'discord',
    basePath: '/api/v10',
    messages,
    // The token is part of the path: each route checks it (401 Invalid Webhook Token) after the webhook (404).
    authorize: () => true,
    unauthorized: () => discordError(401, 0, '401: Unauthorized'),
    // Discord's global limit (50 requests a second); each webhook's own bucket is checked in its routes.
    rateLimit: {
      limit: 50,
      windowMs: 1_000,
      tooMany: (retryAfterMs) => ({
        status: 429,
        headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))), 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' },
        body: { code: 0, message: 'You are being rate limited.', retry_after: Number((retryAfterMs / 1000).toFixed(3)), global: true },
      }),
    },
    routes: [
      { method: 'POST', path, handle: execute },
      { method: 'GET', path: `${path}/messages/:message_id`, handle: get },
      { method: 'PATCH', path: `${path}/messages/:message_id`, handle: edit },
    ],
    createWebhook(origin) {
      const id = snowflake();
      const token = randomBytes(34).toString('base64url');
      webhooks.set(id, { token, channelId: snowflake(), deleted: false, sent: [] });
      return { id, token, url: `${origin}/api/v10/webhooks/${id}/${token}` };
    },
    deleteWebhook(id) {
      const webhook = webhooks.get(id);
      if (webhook) webhook.deleted = true;
    },
    reset() {
      messages.length = 0;
      for (const webhook of webhooks.values()) webhook.sent = [];
    },
  };
}
