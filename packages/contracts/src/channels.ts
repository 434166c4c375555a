import { z } from 'zod';
import { ownerPasswordSchema } from './auth.ts';

/**
 * The chat channels (issue 39): connections to where a team already is. Each is a destination of the policy's `chat`
 * channel, with its own severity floor; its secret (a Slack or Discord webhook URL, a Telegram bot token, an ntfy token
 * or password, the signed webhook's secret) is sealed, goes only to the host it was saved for, and is never answered.
 */
export const channelKinds = ['slack', 'discord', 'telegram', 'ntfy', 'webhook'] as const;
export const channelKindSchema = z.enum(channelKinds, { error: 'kind is one of slack, discord, telegram, ntfy or webhook' });
export type ChannelKind = z.infer<typeof channelKindSchema>;

export const channelKindNames: Record<ChannelKind, string> = {
  slack: 'Slack',
  discord: 'Discord',
  telegram: 'Telegram',
  ntfy: 'ntfy',
  webhook: 'Signed webhook',
};

/** The least severe notification a connection is sent: errors only, warnings and errors, or everything the policy sends it. */
export const channelFloors = ['error', 'warning', 'info'] as const;
export const channelFloorSchema = z.enum(channelFloors, { error: 'minSeverity is error, warning or info' });
export type ChannelFloor = z.infer<typeof channelFloorSchema>;

const url = (what: string) => z.string({ error: `${what} is required` }).trim().min(1, `${what} is required`).max(2048, `${what} is at most 2048 characters`);

/** Slack's incoming webhook URL: `https://hooks.slack.com/services/T…/B…/<secret>`. */
export const SLACK_WEBHOOK = /^https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/[A-Za-z0-9]+$/;
/** Discord's webhook URL, as "Copy Webhook URL" gives it (discord.com, its old discordapp.com, and the ptb and canary clients'). */
export const DISCORD_WEBHOOK = /^https:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com\/api(?:\/v\d+)?\/webhooks\/\d{5,25}\/[A-Za-z0-9_-]{20,100}$/;
/** @BotFather's token: the bot's numeric id, a colon and its secret. */
export const TELEGRAM_TOKEN = /^\d{5,15}:[A-Za-z0-9_-]{30,60}$/;
/** A chat's numeric id (a group's and a channel's are negative) or a public channel's `@username`. */
export const TELEGRAM_CHAT = /^(?:-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;
/** ntfy's topic: letters, digits, `_` and `-`, at most 64 (ntfy's server refuses others). */
export const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

/** Where a connection sends, by kind; the secrets in it are the fields the list never answers. */
export const channelDestinationSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      kind: z.literal('slack'),
      webhookUrl: url('webhookUrl').regex(SLACK_WEBHOOK, 'webhookUrl is a Slack incoming webhook URL: https://hooks.slack.com/services/T…/B…/…'),
    }),
    z.strictObject({
      kind: z.literal('discord'),
      webhookUrl: url('webhookUrl').regex(DISCORD_WEBHOOK, 'webhookUrl is a Discord webhook URL: https://discord.com/api/webhooks/<id>/<token>'),
    }),
    z.strictObject({
      kind: z.literal('telegram'),
      botToken: z.string().trim().regex(TELEGRAM_TOKEN, 'botToken is the token @BotFather gave: 123456789:AA…'),
      chatId: z.string().trim().regex(TELEGRAM_CHAT, 'chatId is a chat’s number (a group’s starts with -) or a channel’s @username'),
    }),
    z
      .strictObject({
        kind: z.literal('ntfy'),
        /** Empty or absent: https://ntfy.sh. */
        server: z.string().trim().max(2048).optional(),
        topic: z.string().trim().regex(NTFY_TOPIC, 'topic is 1 to 64 letters, digits, _ or -'),
        token: z.string().trim().min(1, 'token is empty: give the access token (tk_…) or leave it out').max(200, 'token is at most 200 characters').optional(),
        username: z.string().trim().min(1, 'username is empty: give the ntfy user or leave it out').max(200, 'username is at most 200 characters').optional(),
        password: z.string().min(1, 'password is empty: give the ntfy user’s password').max(200, 'password is at most 200 characters').optional(),
      })
      .superRefine((value, check) => {
        if (value.token !== undefined && (value.username !== undefined || value.password !== undefined))
          check.addIssue({ code: 'custom', path: ['token'], message: 'Give an access token or a user and password, not both' });
        if ((value.username === undefined) !== (value.password === undefined))
          check.addIssue({ code: 'custom', path: [value.username === undefined ? 'username' : 'password'], message: 'A user needs its password, and a password its user' });
      }),
    z.strictObject({ kind: z.literal('webhook'), url: url('url') }),
  ],
  { error: 'destination.kind is one of slack, discord, telegram, ntfy or webhook' },
);
export type ChannelDestination = z.infer<typeof channelDestinationSchema>;

const name = z.string({ error: 'Name the connection (“#ops”, “Phone”)' }).trim().min(1, 'Name the connection (“#ops”, “Phone”)').max(80, 'A name is at most 80 characters');

/**
 * `POST /api/channels`: a new place our data goes, so the owner's, from a signed-in browser, with the password again
 * once one is set (as a push device or an email recipient).
 */
export const channelAddSchema = z.strictObject({
  name,
  minSeverity: channelFloorSchema.default('warning'),
  destination: channelDestinationSchema,
  password: ownerPasswordSchema,
});
export type ChannelAdd = z.infer<typeof channelAddSchema>;

/**
 * `PATCH /api/channels/:id`: a new name or floor, or a new destination (of the same kind). A destination replaces the
 * old one whole, secrets included: a secret is never sent to a host it was not saved for, so a new address needs it again.
 */
export const channelUpdateSchema = z.strictObject({
  id: z.string().min(1).max(64),
  name: name.optional(),
  minSeverity: channelFloorSchema.optional(),
  destination: channelDestinationSchema.optional(),
  password: ownerPasswordSchema,
});
export type ChannelUpdate = z.infer<typeof channelUpdateSchema>;

export const channelIdInput = z.object({ id: z.string().min(1).max(64) });

const instant = z.iso.datetime().nullable();

/** A connection as Settings lists it: never its secret, and of a secret-bearing URL only its host. */
export const channelConnectionSchema = z.object({
  id: z.string(),
  kind: channelKindSchema,
  name: z.string(),
  minSeverity: channelFloorSchema,
  /** Where it sends, with nothing secret: `hooks.slack.com`, `Telegram chat -100123`, `ntfy.sh/alerts`, the webhook's URL. */
  target: z.string(),
  createdAt: z.iso.datetime(),
  lastSuccessAt: instant,
  lastFailureAt: instant,
  /** The status and a known service's own error code or description; the owner's only: null for an API token. */
  lastFailure: z.string().nullable(),
  /**
   * Set when the service refused for good (a deleted webhook, a revoked token): nothing is sent until it is fixed. Its
   * reason is the owner's only: an API token reads a plain notice instead.
   */
  needsAttention: z.string().nullable(),
});
export type ChannelConnection = z.infer<typeof channelConnectionSchema>;

export const channelConnectionsSchema = z.object({ connections: z.array(channelConnectionSchema) });

/** What adding or changing a connection answers; `secret` once, for a signed webhook whose secret is new. */
export const channelSavedSchema = z.object({ connection: channelConnectionSchema, secret: z.string().optional() });
export type ChannelSaved = z.infer<typeof channelSavedSchema>;

/** `POST /api/channels/:id/test`: what the service said to a test message. */
export const channelTestResultSchema = z.object({
  outcome: z.enum(['sent', 'retry', 'gone', 'refused']),
  status: z.number().int().nullable(),
  message: z.string(),
  at: z.iso.datetime(),
  connection: channelConnectionSchema,
});
export type ChannelTestResult = z.infer<typeof channelTestResultSchema>;
