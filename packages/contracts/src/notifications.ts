import { z } from 'zod';

/** The five integrations that send webhooks (the relay's and the local route's `:integration`). */
export const webhookIntegrationSchema = z.enum(['code_host', 'deploy_host', 'error_tracker', 'issue_tracker', 'uptime_monitor']);
export type WebhookIntegration = z.infer<typeof webhookIntegrationSchema>;

/**
 * Where a notification comes from: the five webhook integrations, and `metrics`, the dashboard's own change alerts on
 * the metric history (metric-alerts.ts). Preferences and rules match on these.
 */
export const notificationSourceSchema = z.enum([...webhookIntegrationSchema.options, 'metrics']);
export type NotificationSource = z.infer<typeof notificationSourceSchema>;


export const notificationSeverities = ['info', 'success', 'warning', 'error'] as const;
export type NotificationSeverity = (typeof notificationSeverities)[number];

/** Where a notification shows: the in-app inbox and toast (always), a browser notification, an email, a Web Push to each device, a message to each chat or webhook connection. */
export const notificationChannels = ['inApp', 'browser', 'email', 'push', 'chat'] as const;
export type NotificationChannel = (typeof notificationChannels)[number];

/**
 * One step of a decision: which preference, rule, mute, flap hold, quiet window or thread state decided
 * what, and why. The first stages (`preference`, `rule`) are the pure policy; the others are what the
 * pipeline added when it stored the event.
 */
export const decisionTraceEntrySchema = z.object({
  /**
   * `context`: what else happened to the project around a metric alert (deploys, errors, outages…), one line each;
   * `replay`: the event is a replay of a webhook taken in earlier (the deliveries log's), and says of which.
   */
  stage: z.enum(['preference', 'rule', 'thread', 'mute', 'flap', 'quiet_hours', 'pause', 'delivery', 'context', 'replay']),
  /** The rule's id, `integration/type` of a preference, `default` for the built-in preference, or the stage's own name. */
  id: z.string(),
  name: z.string(),
  /**
   * `applied`; a preference may be `disabled` or `below_min_severity`; the pipeline's stages say what
   * became of the interruption: `sent`, `held`, `deferred`, `suppressed`, `cancelled`, `none`; a `context` line is `noted`.
   */
  verdict: z.enum(['applied', 'disabled', 'below_min_severity', 'sent', 'held', 'deferred', 'suppressed', 'cancelled', 'none', 'noted']),
  why: z.string(),
  /**
   * ISO 8601, on the lines added after the event was stored: when the scheduler (or a later event, such as the
   * recovery that cancels a held outage) released, sent or dropped what this event's decision held back.
   */
  decidedAt: z.string().optional(),
});
export type DecisionTraceEntry = z.infer<typeof decisionTraceEntrySchema>;

/** The decision as stored with an inbox row (its latest event's), shown in the inbox. */
export const storedDecisionSchema = z.object({
  severity: z.enum(notificationSeverities),
  channels: z.array(z.enum(notificationChannels)),
  /** Critical, or a rule said so: quiet hours and a pause do not hold it back. */
  bypassQuietHours: z.boolean(),
  trace: z.array(decisionTraceEntrySchema),
});
export type StoredDecision = z.infer<typeof storedDecisionSchema>;

/** One row of the inbox: an event, or a subject's story from trouble to recovery (an outage and its end). */
export const notificationSchema = z.object({
  id: z.string(),
  /** Increases on every change of the row (a new event folded in, a read): the live stream's event id. */
  seq: z.number().int(),
  /** Its place in the list, newest first: the seq it was created with, which reading or folding never moves. */
  createdSeq: z.number().int(),
  /** `code_host`, `deploy_host`, `error_tracker`, `issue_tracker`, `uptime_monitor`, or `metrics` (a change alert). */
  integration: z.string(),
  /** The opening event's type: `pr.merged`, `deploy.error`, `monitor.down`, … */
  type: z.string(),
  title: z.string(),
  url: z.string().nullable(),
  /** The dashboard project it belongs to; null when none of the projects' integrations matched. */
  project: z.string().nullable(),
  severity: z.enum(notificationSeverities),
  /** For a subject with state (an outage, a failed deploy, a Sentry issue): whether it is over; null otherwise. */
  resolved: z.boolean().nullable(),
  /** ISO 8601: when it happened upstream, its latest event, when it was resolved, received here, read. */
  occurredAt: z.string(),
  lastAt: z.string(),
  resolvedAt: z.string().nullable(),
  receivedAt: z.string(),
  readAt: z.string().nullable(),
  /** How many events folded into it (an outage and its recovery: 2). */
  eventCount: z.number().int(),
  /** What changes state (a monitor, a deploy target, a Sentry issue): what a mute names; null for stateless events. */
  subjectKey: z.string().nullable(),
  /** ISO 8601: hidden (and not counted) until then, when it comes back unread; null when not snoozed. */
  snoozedUntil: z.string().nullable(),
  /** ISO 8601: its subject is muted until then; null when not. */
  mutedUntil: z.string().nullable(),
  /** How the policy decided its latest event: severity, channels and the trace (which rule, preference or window). */
  decision: storedDecisionSchema.nullable(),
});
export type Notification = z.infer<typeof notificationSchema>;

const text = z.string().trim().min(1).max(200).optional();

export const notificationListQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'limit is a number' })
    .int('limit is a whole number')
    .min(1, 'limit is at least 1')
    .max(100, 'limit is at most 100')
    .default(30),
  /** The `nextBefore` of the previous page. */
  before: z.coerce.number({ error: 'before is a number' }).int().positive().optional(),
  unread: z
    .union([z.boolean(), z.enum(['1', 'true', '0', 'false'])])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === true || value === '1' || value === 'true')),
  project: text,
  integration: text,
});
export type NotificationListQuery = z.infer<typeof notificationListQuerySchema>;

export const notificationListSchema = z.object({
  /** Newest first. */
  notifications: z.array(notificationSchema),
  unreadCount: z.number().int(),
  /** Pass as `before` for the next page; null on the last. */
  nextBefore: z.number().int().nullable(),
});

export const markReadSchema = z.union([
  z.strictObject({ ids: z.array(z.string().min(1).max(64)).min(1, 'List at least one id').max(500) }),
  z.strictObject({ all: z.literal(true) }),
]);

/** Which thread's events: `GET /api/notifications/:id/events`. */
export const notificationEventsQuerySchema = z.strictObject({ id: z.string().trim().min(1, 'id is the notification id').max(64) });

/** One event of a thread (an outage, its recovery, a repeat that joined it) with its own decision and trace. */
export const notificationEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  title: z.string(),
  url: z.string().nullable(),
  severity: z.enum(notificationSeverities),
  /** `trigger` opened or joined the thread, `resolve` closed it; null for an event without state. */
  transition: z.enum(['trigger', 'resolve']).nullable(),
  /** ISO 8601: upstream, and when it reached the dashboard. */
  occurredAt: z.string(),
  receivedAt: z.string(),
  /** How the policy and the pipeline decided about it, with the lines added when what it held was later released, sent or dropped; null before rules existed. */
  decision: storedDecisionSchema.nullable(),
});
export type NotificationEvent = z.infer<typeof notificationEventSchema>;

export const notificationEventsSchema = z.object({
  /** In the order they happened. */
  events: z.array(notificationEventSchema),
});

export const markReadResultSchema = z.object({ ok: z.literal(true), marked: z.number().int(), unreadCount: z.number().int() });

/**
 * An interruption to show now: a browser notification when the dashboard is hidden, a toast when it is
 * visible. `tag` is one per thread, so a recovery replaces its outage's notification.
 */
export const interruptionSchema = z.object({
  id: z.string(),
  /** The inbox row it is about; a digest has none. */
  notificationId: z.string().nullable(),
  /** `first`: a new thread; `resolve`: its recovery; `repeat`: still down when a mute ended; `flap_start`/`flap_end`; `digest`: what quiet hours held. */
  purpose: z.enum(['first', 'resolve', 'repeat', 'flap_start', 'flap_end', 'digest']),
  title: z.string(),
  body: z.string(),
  severity: z.enum(notificationSeverities),
  tag: z.string(),
  url: z.string().nullable(),
  /** An update of a notification already shown (a recovery): replace it without a sound. */
  renotify: z.boolean(),
  /** Critical: stays until clicked. */
  requireInteraction: z.boolean(),
  /** ISO 8601, when it was sent. */
  at: z.string(),
});
export type Interruption = z.infer<typeof interruptionSchema>;

/** What the live stream sends: a row that is new or changed (with the unread count after it), an interruption, or "refetch". */
export const notificationStreamEventSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('notification'), notification: notificationSchema, unreadCount: z.number().int() }),
  /** `replayed`: sent while this client was away (a reconnect's replay): for the record, not to pop up now. */
  z.object({ kind: z.literal('interrupt'), interrupt: interruptionSchema, replayed: z.boolean() }),
  /** More changed while the client was away than the stream replays: load the list again. */
  z.object({ kind: z.literal('reset'), unreadCount: z.number().int() }),
]);
export type NotificationStreamEvent = z.infer<typeof notificationStreamEventSchema>;

export const relayPollResultSchema = z.union([
  z.object({ configured: z.literal(false) }),
  z.object({ configured: z.literal(true), eventCount: z.number().int(), relayTimestamp: z.number().int() }),
]);

export const relayStatusSchema = z.object({
  /** Both a URL and a secret are set: the dashboard polls. */
  configured: z.boolean(),
  url: z.string().nullable(),
  /** Where the URL comes from: settings (`relayUrl`), the environment (`WEBHOOK_RELAY_URL`), or nowhere. */
  urlSource: z.enum(['settings', 'env']).nullable(),
  /** Whether a poll secret for the URL's host is set, and where; the secret itself is never shown. */
  secretSource: z.enum(['settings', 'env']).nullable(),
  /** A poll secret is stored, but for another host than the URL's (it is only ever sent to its own): what to do. */
  secretNote: z.string().nullable(),
  poller: z.object({
    state: z.enum(['stopped', 'polling', 'standby', 'backing_off']),
    longPoll: z.boolean(),
    lastPollAt: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    lastError: z.string().nullable(),
    eventsToday: z.number().int(),
    relayTimestamp: z.number().int().nullable(),
  }),
  /** The dashboard's own webhook route per integration, with whether a signing secret is set for it. */
  localWebhooks: z.array(z.object({ integration: webhookIntegrationSchema, provider: z.string(), path: z.string(), secretSet: z.boolean(), secretSource: z.enum(['settings', 'env']).nullable() })),
});
export type RelayStatus = z.infer<typeof relayStatusSchema>;

export const relaySecretSchema = z.object({
  /** The relay's RELAY_POLL_SECRET; null removes the one saved in settings (the environment's applies again). */
  secret: z.string().trim().min(16, 'A poll secret is at least 16 characters (openssl rand -hex 32)').max(512).nullable(),
  /**
   * The relay URL this secret is for, saved as `relayUrl` with it; absent, the relay URL in effect. A secret is only
   * ever sent to the host it was saved for, so moving to another host means entering it again here.
   */
  url: z
    .url({ protocol: /^https?$/, error: 'url is an http(s) URL such as https://relay.example.com/api' })
    .max(2000)
    .refine((url) => !/[?#]/.test(url), 'url is a base address, without a query or a fragment')
    .optional(),
});

export const webhookSecretSchema = z.object({
  integration: webhookIntegrationSchema,
  /** The signing secret (or Better Stack's token), comma-separated for rotation; null removes the saved one. */
  secret: z.string().trim().min(1).max(1024).nullable(),
});

export const relayTestSchema = z.object({
  /**
   * Test these instead of the saved ones (the settings form before saving). A `url` on another host than the stored
   * secret's is tested only with the `secret` given with it (without one: 400).
   */
  url: z.url({ protocol: /^https?$/, error: 'The relay URL is an http(s) URL' }).optional(),
  secret: z.string().trim().min(1).max(512).optional(),
});

export const relayTestResultSchema = z.union([
  z.object({ ok: z.literal(true), eventCount: z.number().int() }),
  z.object({ ok: z.literal(false), step: z.enum(['health', 'poll']), error: z.string() }),
]);
