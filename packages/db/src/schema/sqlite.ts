// Over 400 lines for a reason: this is the dialect's whole schema, one table after another, which drizzle-kit reads
// from this one path (drizzle/sqlite.config.ts's `schema`) to write the migrations, and which transfer.ts dumps whole.
import { sql, type Column } from 'drizzle-orm';
import { check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { deliverySourceSchema, metricAlertSeverities, notificationSeverities, pointSources, webhookOutcomeNames, type DeliverySource, type Integrations } from '@dash/contracts';

/** One row per setting leaf (`projectOrder` lives in `projects.position`), so writes to different leaves never collide. */
export const userSettings = sqliteTable('user_settings', {
  key: text('key').primaryKey(),
  /** JSON; `null` marks a slot or config the user cleared, so its default does not come back. */
  value: text('value', { mode: 'json' }).$type<unknown>(),
  updatedAt: text('updated_at').notNull(),
});

export const apiCache = sqliteTable(
  'api_cache',
  {
    key: text('key').primaryKey(),
    route: text('route').notNull(),
    value: text('value', { mode: 'json' }).$type<unknown>().notNull(),
    fetchedAt: text('fetched_at').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [index('api_cache_route_idx').on(t.route)],
);

export const projects = sqliteTable('projects', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  color: text('color'),
  integrations: text('integrations', { mode: 'json' }).$type<Partial<Integrations>>().notNull(),
  /** Tab order: `projectOrder` is the slugs sorted by position. */
  position: integer('position').notNull(),
  /** Bumped by every update; a patch applies only to the version it read. */
  version: integer('version').notNull().default(1),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export const credentials = sqliteTable('credentials', {
  key: text('key').primaryKey(),
  /** AES-256-GCM sealed values; never the values themselves. */
  sealed: text('sealed').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/**
 * The dashboard's owner: at most one row, whose id is always 1, so a first-run setup is one
 * `insert … on conflict do nothing`. Instants are ISO 8601 text, so they compare as text.
 */
export const authOwner = sqliteTable(
  'auth_owner',
  {
    id: integer('id').primaryKey(),
    /** An argon2id PHC string. */
    passwordHash: text('password_hash').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [check('auth_owner_single_row', sql`${t.id} = 1`)],
);

/** Signed-in browsers; only SHA-256 of each session's secret. */
export const authSession = sqliteTable('auth_session', {
  id: text('id').primaryKey(),
  secretHash: text('secret_hash').notNull(),
  createdAt: text('created_at').notNull(),
  lastSeenAt: text('last_seen_at').notNull(),
  userAgent: text('user_agent'),
  ip: text('ip'),
});

/** API tokens for scripts and the typed client; only SHA-256 of each token's secret. */
export const apiToken = sqliteTable(
  'api_token',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    secretHash: text('secret_hash').notNull(),
    scope: text('scope', { enum: ['read', 'write'] }).notNull(),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at'),
    /** Null for a token that does not expire. */
    expiresAt: text('expires_at'),
  },
  (t) => [check('api_token_scope', sql`${t.scope} in ('read', 'write')`)],
);

const severities = notificationSeverities;
const severityCheck = (name: string, column: Column) =>
  check(name, sql`${column} in (${sql.raw(severities.map((severity) => `'${severity}'`).join(', '))})`);

/**
 * Dedup claims: a source event id is claimed by the first batch that stores it, until `expires_at`; a later
 * copy within the window is a duplicate (`hits` counts the copies). A claim outlives its row when that is pruned.
 */
export const notificationDedup = sqliteTable(
  'notification_dedup',
  {
    sourceEventId: text('source_event_id').primaryKey(),
    /** The inbox row the event folded into. */
    notificationId: text('notification_id').notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
    expiresAt: text('expires_at').notNull(),
    hits: integer('hits').notNull(),
  },
  (t) => [index('notification_dedup_expires_idx').on(t.expiresAt)],
);

/** Every stored event, pointing at the inbox row it folded into. */
export const notificationEvents = sqliteTable(
  'notification_events',
  {
    id: text('id').primaryKey(),
    notificationId: text('notification_id').notNull(),
    sourceEventId: text('source_event_id').notNull(),
    integration: text('integration').notNull(),
    type: text('type').notNull(),
    subjectKey: text('subject_key'),
    transition: text('transition', { enum: ['trigger', 'resolve'] }),
    severity: text('severity', { enum: severities }).notNull(),
    title: text('title').notNull(),
    url: text('url'),
    projectSlug: text('project_slug'),
    occurredAt: text('occurred_at').notNull(),
    receivedAt: text('received_at').notNull(),
    relayEventId: text('relay_event_id'),
    /** JSON (a `StoredDecision`): how the policy and the pipeline decided about this event's interruption. */
    decision: text('decision'),
  },
  (t) => [
    index('notification_events_notification_idx').on(t.notificationId),
    check('notification_events_transition', sql`${t.transition} in ('trigger', 'resolve')`),
    severityCheck('notification_events_severity', t.severity),
  ],
);

/**
 * The inbox. `seq` comes from `notification_seq` and is bumped on every change of a row; `created_seq` is the seq it
 * was created with, its place in the list, which reading or folding does not move; at most one row per
 * subject is open (the partial unique index).
 */
export const notifications = sqliteTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    seq: integer('seq').notNull(),
    createdSeq: integer('created_seq').notNull(),
    integration: text('integration').notNull(),
    type: text('type').notNull(),
    subjectKey: text('subject_key'),
    status: text('status', { enum: ['open', 'resolved', 'info'] }).notNull(),
    severity: text('severity', { enum: severities }).notNull(),
    title: text('title').notNull(),
    url: text('url'),
    projectSlug: text('project_slug'),
    eventCount: integer('event_count').notNull(),
    firstAt: text('first_at').notNull(),
    lastAt: text('last_at').notNull(),
    resolvedAt: text('resolved_at'),
    receivedAt: text('received_at').notNull(),
    readAt: text('read_at'),
    /** Hidden (not listed, not counted) until then, ms UTC; null when not snoozed. */
    snoozedUntil: integer('snoozed_until'),
    /** JSON (a `StoredDecision`): its latest event's decision. */
    decision: text('decision'),
    /** JSON (a string array): the opening event's refs (`code_host:owner/repo`, …), for a project made later to claim it; null in older rows. */
    refs: text('refs'),
  },
  (t) => [
    uniqueIndex('notifications_seq_idx').on(t.seq),
    uniqueIndex('notifications_open_subject_idx').on(t.subjectKey).where(sql`${t.status} = 'open'`),
    uniqueIndex('notifications_created_seq_idx').on(t.createdSeq),
    index('notifications_unread_idx').on(t.createdSeq).where(sql`${t.readAt} is null`),
    index('notifications_snoozed_idx').on(t.snoozedUntil).where(sql`${t.snoozedUntil} is not null`),
    check('notifications_status', sql`${t.status} in ('open', 'resolved', 'info')`),
    severityCheck('notifications_severity', t.severity),
  ],
);

/**
 * SQLite has no sequences: this one row is `notifications.seq`'s, the last value given out. A counter rather than
 * `max(seq) + 1`, so that pruning the newest row never hands its seq out again.
 */
export const notificationSeq = sqliteTable(
  'notification_seq',
  {
    id: integer('id').primaryKey(),
    last: integer('last').notNull(),
  },
  (t) => [check('notification_seq_single_row', sql`${t.id} = 1`)],
);

/** Where each relay's poll got to (`since`, its ms cursor), written with the batch it fetched. */
export const relayCursor = sqliteTable('relay_cursor', {
  relayUrl: text('relay_url').primaryKey(),
  since: integer('since').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/** Named leases: who does a job (the relay poller) until when. */
export const leases = sqliteTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: text('expires_at').notNull(),
});

/**
 * The durable outbox of interruptions (browser notifications; email later). A row is `held` by a flap hold until
 * `due_at`, `deferred` by quiet hours or a pause into the next digest, `sent` (it then has a `seq` from the
 * notifications' sequence: the live stream's event id), `cancelled` (its recovery came within the hold, or it was
 * read in the app before its digest, which left it out), `suppressed` (a mute or a flap kept it quiet), `digested`
 * (told in the digest `digest_id`) or `empty` (a digest that had nothing left to say). Instants are ms UTC.
 */
export const notificationDeliveries = sqliteTable(
  'notification_deliveries',
  {
    id: text('id').primaryKey(),
    /** The inbox row it is about; null for a digest. */
    notificationId: text('notification_id'),
    /** The event whose interruption it is: the scheduler adds a line to that event's trace when it releases, sends or drops it. Null for a digest and the scheduler's own notices. */
    eventId: text('event_id'),
    subjectKey: text('subject_key'),
    channel: text('channel', { enum: ['browser', 'email', 'push', 'chat'] }).notNull(),
    purpose: text('purpose', { enum: ['first', 'resolve', 'repeat', 'flap_start', 'flap_end', 'digest'] }).notNull(),
    status: text('status', { enum: ['held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty'] }).notNull(),
    /** Why it has its status, as the trace says it. */
    reason: text('reason').notNull(),
    /** Why it was held or deferred, as a value: the flap hold, quiet hours or a pause (null: never held). */
    heldFor: text('held_for', { enum: ['flap_hold', 'quiet_hours', 'pause'] }),
    /** When a held one goes out; when a deferred one's quiet period ends (null: when the settings change). */
    dueAt: integer('due_at'),
    /** JSON: title, body, severity, tag, url, renotify, requireInteraction. */
    message: text('message').notNull(),
    seq: integer('seq'),
    digestId: text('digest_id'),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
  },
  (t) => [
    index('notification_deliveries_status_idx').on(t.status, t.dueAt),
    index('notification_deliveries_notification_idx').on(t.notificationId),
    uniqueIndex('notification_deliveries_seq_idx').on(t.seq),
    check('notification_deliveries_status', sql`${t.status} in ('held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty')`),
  ],
);

/**
 * Email interruptions on their way to SendGrid: one row per email delivery of the outbox once it is `sent` (released
 * by the policy), with the same id. A sender claims due rows with a lease (one process sends each), tries 429, 5xx
 * and an unreachable SendGrid again at growing intervals, and fails any other refusal at once. Instants are ms UTC.
 */
export const emailSends = sqliteTable(
  'email_sends',
  {
    id: text('id').primaryKey(),
    state: text('state', { enum: ['queued', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull(),
    /** When it is next tried (queued). */
    dueAt: integer('due_at').notNull(),
    leaseUntil: integer('lease_until'),
    leaseHolder: text('lease_holder'),
    /** SendGrid's X-Message-Id once delivered. */
    providerId: text('provider_id'),
    /** The last refusal, in SendGrid's words. */
    error: text('error'),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
  },
  (t) => [index('email_sends_state_idx').on(t.state, t.dueAt)],
);

/** What the flap detection remembers per subject with state (a monitor): its recent outages and whether it flaps. ms UTC. */
export const notificationSubjects = sqliteTable('notification_subjects', {
  subjectKey: text('subject_key').primaryKey(),
  /** JSON: the start of each outage within the flap window, oldest first. */
  outages: text('outages').notNull(),
  /** When it started flapping; null when it does not. */
  flappingSince: integer('flapping_since'),
  /** Its latest trigger or resolve. */
  lastChangeAt: integer('last_change_at').notNull(),
});

/** Subjects muted until a time (ms UTC): their events are stored, never interrupting. */
export const notificationMutes = sqliteTable('notification_mutes', {
  subjectKey: text('subject_key').primaryKey(),
  until: integer('until').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * Web Push devices: a browser's `PushSubscription` (its endpoint, at the browser's push service) and how its pushes
 * went. The keys (`p256dh`, `auth`) are sealed with the credentials key, as every secret; '' once the push service
 * answered 404/410, when the row only says the device was removed. Instants are ms UTC.
 */
export const pushSubscriptions = sqliteTable(
  'push_subscriptions',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    browser: text('browser'),
    endpoint: text('endpoint').notNull(),
    sealedKeys: text('sealed_keys').notNull(),
    expirationTime: integer('expiration_time'),
    createdAt: integer('created_at').notNull(),
    lastSuccessAt: integer('last_success_at'),
    lastFailureAt: integer('last_failure_at'),
    lastFailure: text('last_failure'),
    removedAt: integer('removed_at'),
  },
  (t) => [index('push_subscriptions_created_idx').on(t.createdAt)],
);

/**
 * A push interruption to one device: one row per released push delivery and device subscribed then (`id` is the
 * delivery's id, `:`, the device's). Claimed with a lease and settled as the email sends are, so each device gets it
 * once across processes and restarts. ms UTC.
 */
export const pushSends = sqliteTable(
  'push_sends',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    state: text('state', { enum: ['queued', 'delivered', 'failed', 'gone'] }).notNull(),
    attempts: integer('attempts').notNull(),
    dueAt: integer('due_at').notNull(),
    leaseUntil: integer('lease_until'),
    leaseHolder: text('lease_holder'),
    /** The push service's last answer (its HTTP status), and its words when it refused. */
    status: integer('status'),
    error: text('error'),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
  },
  (t) => [index('push_sends_state_idx').on(t.state, t.dueAt), index('push_sends_delivery_idx').on(t.deliveryId)],
);

/**
 * Chat and webhook connections (Slack, Discord, Telegram, ntfy, a signed webhook): where the policy's `chat` channel
 * sends. `settings` is the kind's part that is not secret (JSON: an ntfy server and topic, a Telegram chat, the
 * webhook's URL); `sealed_secret` the rest, sealed with the credentials key under the connection's id and host, so it
 * opens only for the host it was saved for. `attention` is set when the service refused for good (a deleted webhook,
 * a revoked token): nothing is sent to it until it is fixed. ms UTC.
 */
export const channelConnections = sqliteTable(
  'channel_connections',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['slack', 'discord', 'telegram', 'ntfy', 'webhook'] }).notNull(),
    name: text('name').notNull(),
    minSeverity: text('min_severity', { enum: ['error', 'warning', 'info'] }).notNull(),
    settings: text('settings').notNull(),
    sealedSecret: text('sealed_secret').notNull(),
    createdAt: integer('created_at').notNull(),
    lastSuccessAt: integer('last_success_at'),
    lastFailureAt: integer('last_failure_at'),
    lastFailure: text('last_failure'),
    attentionAt: integer('attention_at'),
    attention: text('attention'),
  },
  (t) => [index('channel_connections_created_idx').on(t.createdAt)],
);

/**
 * A chat interruption to one connection: one row per released chat delivery and connection then (`id` is the
 * delivery's id, `:`, the connection's), claimed with a lease and settled as the push sends are, so each connection
 * gets it once across processes and restarts. `provider_id` is the service's id of the message it made (Discord's
 * message, Telegram's message_id), which the thread's recovery edits or replies to. ms UTC.
 */
export const channelSends = sqliteTable(
  'channel_sends',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id').notNull(),
    connectionId: text('connection_id').notNull(),
    state: text('state', { enum: ['queued', 'delivered', 'failed', 'gone', 'skipped'] }).notNull(),
    attempts: integer('attempts').notNull(),
    dueAt: integer('due_at').notNull(),
    leaseUntil: integer('lease_until'),
    leaseHolder: text('lease_holder'),
    status: integer('status'),
    error: text('error'),
    providerId: text('provider_id'),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
  },
  (t) => [index('channel_sends_state_idx').on(t.state, t.dueAt), index('channel_sends_connection_idx').on(t.connectionId)],
);

/**
 * The metric history: one value per project (its slug), metric (a key of contracts' metric catalogue) and day
 * (`YYYY-MM-DD`, the owner's calendar), from the daily snapshot, a provider's series read back, or a CSV import.
 * `currency` is the value's, for money (null otherwise); `late` marks a snapshot taken after its day's time had
 * passed. The primary key serves every read: one project's metric (or every metric) over a range of days. ms UTC.
 * Its migration makes it WITHOUT ROWID (by hand: drizzle-kit cannot say so), the rows kept in the key's b-tree.
 */
export const metricPoints = sqliteTable(
  'metric_points',
  {
    project: text('project').notNull(),
    metric: text('metric').notNull(),
    date: text('date').notNull(),
    value: real('value').notNull(),
    currency: text('currency'),
    late: integer('late', { mode: 'boolean' }).notNull(),
    source: text('source', { enum: pointSources }).notNull(),
    takenAt: integer('taken_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.project, t.metric, t.date] }), check('metric_points_source', sql`${t.source} in (${sql.raw(pointSources.map((source) => `'${source}'`).join(', '))})`)],
);

/**
 * The metric alert rules (change alerts on the metric history): one row per rule, of a project (its slug) and a metric
 * (a key of contracts' metric catalogue). `params` is contracts' `MetricAlertParams` as JSON text (the kind and what it
 * holds the metric to); `severity` is what its alerts are sent as. The id is a UUID, or `default:<project>:<metric>`
 * for the owner's change to a built-in `unusual` rule (one row per built-in rule changed). ms UTC.
 */
export const metricAlertRules = sqliteTable(
  'metric_alert_rules',
  {
    id: text('id').primaryKey(),
    projectSlug: text('project_slug').notNull(),
    metric: text('metric').notNull(),
    params: text('params').notNull(),
    severity: text('severity', { enum: metricAlertSeverities }).notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('metric_alert_rules_project_idx').on(t.projectSlug),
    check('metric_alert_rules_severity', sql`${t.severity} in (${sql.raw(metricAlertSeverities.map((severity) => `'${severity}'`).join(', '))})`),
  ],
);

const deliverySources = deliverySourceSchema.options as [DeliverySource, ...DeliverySource[]];

/**
 * The webhook deliveries log (issue 53): one row per event a webhook carried, or one for a delivery that carried none
 * (ignored, invalid), with what it became (`outcome`, `detail`, the notification and event it made or joined, the row a
 * duplicate repeats, the row a replay replays) and, for a while, its body. Instants are ms UTC. The wide columns come
 * last: SQLite reads a row's columns in order, so a list that stops before `event` and `body` never walks their
 * overflow pages. The indexes let each page be a range scan newest first: all rows, by integration, by outcome (each
 * ending in received_at, id, the list's order and cursor); a duplicate finds its first copy by source event id.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    receivedAt: integer('received_at').notNull(),
    source: text('source', { enum: deliverySources }).notNull(),
    integration: text('integration').notNull(),
    eventType: text('event_type'),
    deliveryId: text('delivery_id'),
    sourceEventId: text('source_event_id'),
    outcome: text('outcome', { enum: webhookOutcomeNames }).notNull(),
    detail: text('detail'),
    title: text('title'),
    projectSlug: text('project_slug'),
    notificationId: text('notification_id'),
    /** The `notification_events` row whose decision the detail shows. */
    eventId: text('event_id'),
    duplicateOf: text('duplicate_of'),
    replayOf: text('replay_of'),
    /** The replay request that made the row: with `replay_of`, unique (a request replays a row once). */
    replayRequest: text('replay_request'),
    bodyUntil: integer('body_until'),
    /** JSON: the parsed event (a RelayEvent without its body), what a replay ingests again. */
    event: text('event'),
    /** The body as received, until `body_until`; the prune clears it. */
    body: text('body'),
  },
  (t) => [
    index('webhook_deliveries_received_idx').on(t.receivedAt, t.id),
    index('webhook_deliveries_integration_idx').on(t.integration, t.receivedAt, t.id),
    index('webhook_deliveries_outcome_idx').on(t.outcome, t.receivedAt, t.id),
    index('webhook_deliveries_notification_idx').on(t.notificationId),
    index('webhook_deliveries_source_event_idx').on(t.sourceEventId, t.receivedAt),
    uniqueIndex('webhook_deliveries_replay_idx').on(t.replayRequest, t.replayOf),
    index('webhook_deliveries_replay_of_idx').on(t.replayOf).where(sql`${t.replayOf} is not null`),
    check('webhook_deliveries_source', sql`${t.source} in (${sql.raw(deliverySources.map((source) => `'${source}'`).join(', '))})`),
    check('webhook_deliveries_outcome', sql`${t.outcome} in (${sql.raw(webhookOutcomeNames.map((outcome) => `'${outcome}'`).join(', '))})`),
  ],
);

/**
 * What the relay and the local webhook route turned away before an event was stored, counted per hour (its start, ms
 * UTC), source, integration and reason; no bodies. The key's columns come first: a dump lists the rows in their order.
 */
export const webhookRefusals = sqliteTable(
  'webhook_refusals',
  {
    hour: integer('hour').notNull(),
    source: text('source', { enum: ['relay', 'local'] }).notNull(),
    integration: text('integration').notNull(),
    reason: text('reason').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.hour, t.source, t.integration, t.reason] })],
);
