import { randomBytes } from 'node:crypto';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

/**
 * Slack's incoming webhooks, as Slack's pages print them (slack/documented.ts): `POST /services/T…/B…/<secret>` with
 * a JSON body (`text`, and `blocks` of Block Kit), answered `200 ok` as text/plain, or one of the plain-text errors.
 * Statuses printed by Slack (api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks):
 * `invalid_payload` 400, `action_prohibited` 403, `channel_not_found` 404, `channel_is_archived` 410 (and `user_not_found`
 * 400, which the fake never answers). Over about one message a second per webhook (bursts allowed, "Incoming webhooks | 1 per
 * second" on docs.slack.dev/apis/web-api/rate-limits) it answers 429 with `Retry-After` in seconds, as that page prints.
 * Codes the current "Handling errors" list names but prints no status for
 * (docs.slack.dev/messaging/sending-messages-using-incoming-webhooks#handling_errors): `no_service` ("the incoming webhook is
 * either disabled, removed, or invalid"), `invalid_token` ("the token used was expired, invalid, or missing"), `no_text`
 * (missing `text`); so their statuses here, 404, 403 and 400, are not Slack's printed word: they are what the research and
 * connector authors rely on, and what users report seeing (403 `invalid_token`, trufflesecurity/trufflehog#3635, though
 * trufflehog#5177 reports it under 400 for a revoked webhook; 400 for an
 * empty body, trufflehog#880, where a later report, trufflehog#2177, reads `missing_text_or_fallback_or_attachments`).
 * Not printed anywhere Slack's: the 429's body (`rate_limited` here) and `invalid_blocks`.
 */

/** One message a webhook posted, as Slack received it. */
export interface SlackMessage {
  webhookId: string;
  channel: string;
  text: string | undefined;
  blocks: unknown[] | undefined;
  /** The whole JSON body as posted (unfurl_links, attachments…). */
  body: Record<string, unknown>;
  at: number;
}

export interface FakeSlackWebhook {
  /** The B… id in the URL. */
  id: string;
  team: string;
  channel: string;
  /** What Slack shows in the app's Incoming Webhooks page → Webhook URL (Copy). */
  url: string;
}

export interface FakeSlack extends SandboxService {
  messages: SlackMessage[];
  /** Plays "Add New Webhook to Workspace" and picking a channel. */
  createWebhook(origin: string, channel?: string): FakeSlackWebhook;
  /** Plays removing the webhook (or uninstalling the app): its URL answers 404 `no_service` from now on. */
  deleteWebhook(id: string): void;
  /** Plays archiving its channel: 410 `channel_is_archived`. */
  archiveChannel(id: string): void;
}

/** "no more than one message per second … bursts over that limit for short periods": a burst of 5 within 5 s. */
const PACE = { burst: 5, windowMs: 5_000 };
/** Block Kit: at most 50 blocks in a message. */
const BLOCKS_MAX = 50;
/**
 * Block Kit's limits on what a block holds (docs.slack.dev/reference/block-kit/blocks: header-block "Maximum length for
 * the text in this field is 150 characters"; section-block "maximum length is 3000 characters" for its text, "Maximum
 * number of items is 10. Maximum length for the text in each item is 2000 characters" for its fields; context-block
 * "Maximum number of items is 10"; actions-block "a maximum of 25 elements"; button element: text 75, url 3000).
 */
const LIMITS = { header: 150, sectionText: 3_000, fields: 10, field: 2_000, contextElements: 10, actionsElements: 25, buttonText: 75, buttonUrl: 3_000 };

const text = (status: number, body: string, headers: Record<string, string> = {}): SandboxReply => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body });

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const textOf = (object: unknown): string => (isRecord(object) && typeof object.text === 'string' ? object.text : '');
const longer = (object: unknown, max: number) => [...textOf(object)].length > max;

/** A button element within its limits (its text, its url). */
const buttonValid = (element: unknown): boolean =>
  !isRecord(element) || element.type !== 'button' || (!longer(element.text, LIMITS.buttonText) && !(typeof element.url === 'string' && element.url.length > LIMITS.buttonUrl));

/** One block within Block Kit's limits for its type (the types the fake knows; others only need a `type`). */
function blockValid(block: unknown): boolean {
  if (!isRecord(block) || typeof block.type !== 'string') return false;
  switch (block.type) {
    case 'header':
      return !longer(block.text, LIMITS.header);
    case 'section': {
      const fields = block.fields;
      if (longer(block.text, LIMITS.sectionText)) return false;
      if (fields !== undefined && (!Array.isArray(fields) || fields.length > LIMITS.fields || fields.some((field) => longer(field, LIMITS.field)))) return false;
      return buttonValid(block.accessory);
    }
    case 'context':
      return Array.isArray(block.elements) && block.elements.length <= LIMITS.contextElements;
    case 'actions':
      return Array.isArray(block.elements) && block.elements.length <= LIMITS.actionsElements && block.elements.every(buttonValid);
    default:
      return true;
  }
}

/** Block Kit's shape, as far as Slack refuses a payload over it: at most 50 blocks, each within its limits. */
const blocksValid = (blocks: unknown): boolean => Array.isArray(blocks) && blocks.length <= BLOCKS_MAX && blocks.every(blockValid);

const slackId = (prefix: string) => `${prefix}${randomBytes(8).toString('hex').toUpperCase().slice(0, 10)}`;

export function slackService(now: number): FakeSlack {
  void now;
  const messages: SlackMessage[] = [];
  const webhooks = new Map<string, { team: string; secret: string; channel: string; deleted: boolean; archived: boolean; sent: number[] }>();

  const post = (request: SandboxRequest): SandboxReply => {
    const webhook = webhooks.get(request.params.bot ?? '');
    if (!webhook || webhook.deleted || webhook.team !== request.params.team) return text(404, 'no_service');
    if (webhook.secret !== request.params.secret) return text(403, 'invalid_token');
    if (webhook.archived) return text(410, 'channel_is_archived');
    webhook.sent = webhook.sent.filter((at) => at > request.now - PACE.windowMs);
    if (webhook.sent.length >= PACE.burst) {
      const retryAfter = Math.max(1, Math.ceil(((webhook.sent[0] ?? request.now) + PACE.windowMs - request.now) / 1000));
      return text(429, 'rate_limited', { 'retry-after': String(retryAfter) });
    }
    // A body that is not a JSON object (or a form field `payload` holding one) cannot be understood.
    const body = isRecord(request.body) && typeof request.body.payload === 'string' ? parseJson(request.body.payload) : request.body;
    if (!isRecord(body)) return text(400, 'invalid_payload');
    if (body.text !== undefined && typeof body.text !== 'string') return text(400, 'invalid_payload');
    if (body.blocks !== undefined && !blocksValid(body.blocks)) return text(400, 'invalid_blocks');
    const hasText = typeof body.text === 'string' && body.text !== '';
    if (!hasText && body.blocks === undefined && body.attachments === undefined) return text(400, 'no_text');
    webhook.sent.push(request.now);
    messages.push({ webhookId: request.params.bot ?? '', channel: webhook.channel, text: hasText ? body.text : undefined, blocks: body.blocks as unknown[] | undefined, body, at: request.now });
    return text(200, 'ok');
  };

  return {
    name: 'slack',
    basePath: '',
    messages,
    // The secret is the last part of the path: the route checks it (403 invalid_token).
    authorize: () => true,
    unauthorized: () => text(403, 'invalid_token'),
    // Slack's limit across its whole app, well above one webhook's pace.
    rateLimit: {
      limit: 100,
      windowMs: 1_000,
      tooMany: (retryAfterMs) => text(429, 'rate_limited', { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) }),
    },
    routes: [{ method: 'POST', path: '/services/:team/:bot/:secret', handle: post }],
    createWebhook(origin, channel = '#alerts') {
      const id = slackId('B');
      const team = slackId('T');
      const secret = randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').slice(0, 24);
      webhooks.set(id, { team, secret, channel, deleted: false, archived: false, sent: [] });
      return { id, team, channel, url: `${origin}/services/${team}/${id}/${secret}` };
    },
    deleteWebhook(id) {
      const webhook = webhooks.get(id);
      if (webhook) webhook.deleted = true;
    },
    archiveChannel(id) {
      const webhook = webhooks.get(id);
      if (webhook) webhook.archived = true;
    },
    reset() {
      messages.length = 0;
      for (const webhook of webhooks.values()) webhook.sent = [];
    },
  };
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}
