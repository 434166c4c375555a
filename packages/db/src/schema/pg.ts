// Over 400 lines for a reason: this is the dialect's whole schema, one table after another, which drizzle-kit reads
// from this one path (drizzle/pg.config.ts's `schema`) to write the migrations, and which transfer.ts dumps whole.
import { sql, type Column } from 'drizzle-orm';
import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgSequence, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { deliverySourceSchema, metricAlertSeverities, notificationSeverities, pointSources, webhookOutcomeNames, type DeliverySource, type Integrations } from '@dash/contracts';

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });

/** One row per setting leaf (`projectOrder` lives in `projects.position`), so writes to different leaves never collide. */
export const userSettings = pgTable('user_settings', {
  key: text('key').primaryKey(),
  /** JSON; `null` marks a slot or config the user cleared, so its default does not come back. */
  value: jsonb('value').$type<unknown>(),
  updatedAt: instant('updated_at').notNull(),
});

export const apiCache = pgTable(
  'api_cache',
  {
    key: text('key').primaryKey(),
    route: text('route').notNull(),
    value: jsonb('value').$type<unknown>().notNull(),
    fetchedAt: instant('fetched_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [index('api_cache_route_idx').on(t.route)],
);

export const projects = pgTable('projects', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  color: text('color'),
  integrations: jsonb('integrations').$type<Partial<Integrations>>().notNull(),
  /** Tab order: `projectOrder` is the slugs sorted by position. */
  position: integer('position').notNull(),
  /** Bumped by every update; a patch applies only to the version it read. */
  version: integer('version').notNull().default(1),
  createdAt: instant('created_at').notNull(),
  updatedAt: instant('updated_at').notNull(),
});

export const credentials = pgTable('credentials', {
  key: text('key').primaryKey(),
  /** AES-256-GCM sealed values; never the values themselves. */
  sealed: text('sealed').notNull(),
  updatedAt: instant('updated_at').notNull(),
});

/** The dashboard's owner: at most one row, whose id is always 1, so a first-run setup is one `insert … on conflict do nothing`. */
export const authOwner = pgTable(
  'auth_owner',
  {
    id: integer('id').primaryKey(),
    /** An argon2id PHC string. */
    passwordHash: text('password_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [check('auth_owner_single_row', sql`${t.id} = 1`)],
);

/** Signed-in browsers; only SHA-256 of each session's secret. */
export const authSession = pgTable('auth_session', {
  id: text('id').primaryKey(),
  secretHash: text('secret_hash').notNull(),
  createdAt: instant('created_at').notNull(),
  lastSeenAt: instant('last_seen_at').notNull(),
  userAgent: text('user_agent'),
  ip: text('ip'),
});

/** API tokens for scripts and the typed client; only SHA-256 of each token's secret. */
export const apiToken = pgTable(
  'api_token',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    secretHash: text('secret_hash').notNull(),
    scope: text('scope', { enum: ['read', 'write'] }).notNull(),
    createdAt: instant('created_at').notNull(),
    lastUsedAt: instant('last_used_at'),
    /** Null for a token that does not expire. */
    expiresAt: instant('expires_at'),
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
export const notificationDedup = pgTable(
  'notification_dedup',
  {
    sourceEventId: text('source_event_id').primaryKey(),
    /** The inbox row the event folded into. */
    notificationId: text('notification_id').notNull(),
    firstSeenAt: instant('first_seen_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    hits: integer('hits').notNull(),
  },
  (t) => [index('notification_dedup_expires_idx').on(t.expiresAt)],
);

/** Every stored event, pointing at the inbox row it folded into. */
export const notificationEvents = pgTable(
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
    occurredAt: instant('occurred_at').notNull(),
    receivedAt: instant('received_at').notNull(),
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
 * `notifications.seq`. A sequence alone hands out values in call order, not commit order; every write that takes
 * values from it holds the store's notifications advisory lock until it commits (see pg.ts), so seqs become
 * visible in increasing order.
 */
export const notificationSeq = pgSequence('notification_seq');

/**
 * The inbox. `seq` comes from `notification_seq` and is bumped on every change of a row; `created_seq` is the seq it
 * was created with, its place in the list, which reading or folding does not move; at most one row per
 * subject is open (the partial unique index).
 */
export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    createdSeq: bigint('created_seq', { mode: 'number' }).notNull(),
    integration: text('integration').notNull(),
    type: text('type').notNull(),
    subjectKey: text('subject_key'),
    status: text('status', { enum: ['open', 'resolved', 'info'] }).notNull(),
    severity: text('severity', { enum: severities }).notNull(),
    title: text('title').notNull(),
    url: text('url'),
    projectSlug: text('project_slug'),
    eventCount: integer('event_count').notNull(),
    firstAt: instant('first_at').notNull(),
    lastAt: instant('last_at').notNull(),
    resolvedAt: instant('resolved_at'),
    receivedAt: instant('received_at').notNull(),
    readAt: instant('read_at'),
    /** Hidden (not listed, not counted) until then, ms UTC; null when not snoozed. */
    snoozedUntil: bigint('snoozed_until', { mode: 'number' }),
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

/** Where each relay's poll got to (`since`, its ms cursor), written with the batch it fetched. */
export const relayCursor = pgTable('relay_cursor', {
  relayUrl: text('relay_url').primaryKey(),
  since: bigint('since', { mode: 'number' }).notNull(),
  updatedAt: instant('updated_at').notNull(),
});

/** Named leases: who does a job (the relay poller) until when. */
export const leases = pgTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: instant('expires_at').notNull(),
});

/**
 * Upstream rate windows shared by the dashboard processes on this database (`Store.rateWindows`). One row per upstream
 * account (its key is a digest of the credential's name): when a 429 said to wait until, and the row a take locks.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  pausedUntil: bigint('paused_until', { mode: 'number' }).notNull(),
});

/** The calls in each account's window: one row per call sent, ms UTC; a take deletes those that left the window. */
export const rateCalls = pgTable(
  'rate_calls',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    key: text('key').notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
  },
  (t) => [index('rate_calls_key_at_idx').on(t.key, t.at)],
);

/**
 * The durable outbox of interruptions (browser notifications; email later). A row is `held` by a flap hold until
 * `due_at`, `deferred` by quiet hours or a pause into the next digest, `sent` (it then has a `seq` from the
 * notifications' sequence: the live stream's event id), `cancelled` (its recovery came within the hold, or it was
 * read in the app before its digest, which left it out), `suppressed` (a mute or a flap kept it quiet), `digested`
 * (told in the digest `digest_id`) or `empty` (a digest that had nothing left to say). Instants are ms UTC.
 */
export const notificationDeliveries = pgTable(
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
    dueAt: bigint('due_at', { mode: 'number' }),
    /** JSON: title, body, severity, tag, url, renotify, requireInteraction. */
    message: text('message').notNull(),
    seq: bigint('seq', { mode: 'number' }),
    digestId: text('digest_id'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    sentAt: bigint('sent_at', { mode: 'number' }),
  },
  (t) => [
    index('notification_deliveries_status_idx').on(t.status, t.dueAt),
    index('notification_deliveries_notification_idx').on(t.notificationId),
    uniqueIndex('notification_deliveries_seq_idx').on(t.seq),
    check('notification_deliveries_status', sql`${t.status} in ('held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty')`),
  ],
);

/** What the flap detection remembers per subject with state (a monitor): its recent outages and whether it flaps. ms UTC. */
export const notificationSubjects = pgTable('notification_subjects', {
  subjectKey: text('subject_key').primaryKey(),
  /** JSON: the start of each outage within the flap window, oldest first. */
  outages: text('outages').notNull(),
  /** When it started flapping; null when it does not. */
  flappingSince: bigint('flapping_since', { mode: 'number' }),
  /** Its latest trigger or resolve. */
  lastChangeAt: bigint('last_change_at', { mode: 'number' }).notNull(),
});

/**
 * Email interruptions on their way to SendGrid: one row per email delivery of the outbox once it is `sent` (released
 * by the policy), with the same id. A sender claims due rows with a lease (one process sends each), tries 429, 5xx
 * and an unreachable SendGrid again at growing intervals, and fails any other refusal at once. Instants are ms UTC.
 */
export const emailSends = pgTable(
  'email_sends',
  {
    id: text('id').primaryKey(),
    state: text('state', { enum: ['queued', 'delivered', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull(),
    dueAt: bigint('due_at', { mode: 'number' }).notNull(),
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    leaseHolder: text('lease_holder'),
    providerId: text('provider_id'),
    error: text('error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    sentAt: bigint('sent_at', { mode: 'number' }),
  },
  (t) => [index('email_sends_state_idx').on(t.state, t.dueAt)],
);

/** Subjects muted until a time (ms UTC): their events are stored, never interrupting. */
export const notificationMutes = pgTable('notification_mutes', {
  subjectKey: text('subject_key').primaryKey(),
  until: bigint('until', { mode: 'number' }).notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

/** Web Push devices; see the SQLite schema. */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    browser: text('browser'),
    endpoint: text('endpoint').notNull(),
    sealedKeys: text('sealed_keys').notNull(),
    expirationTime: bigint('expiration_time', { mode: 'number' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastSuccessAt: bigint('last_success_at', { mode: 'number' }),
    lastFailureAt: bigint('last_failure_at', { mode: 'number' }),
    lastFailure: text('last_failure'),
    removedAt: bigint('removed_at', { mode: 'number' }),
  },
  (t) => [index('push_subscriptions_created_idx').on(t.createdAt)],
);

/** A push interruption to one device; see the SQLite schema. */
export const pushSends = pgTable(
  'push_sends',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    state: text('state', { enum: ['queued', 'delivered', 'failed', 'gone'] }).notNull(),
    attempts: integer('attempts').notNull(),
    dueAt: bigint('due_at', { mode: 'number' }).notNull(),
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    leaseHolder: text('lease_holder'),
    status: integer('status'),
    error: text('error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    sentAt: bigint('sent_at', { mode: 'number' }),
  },
  (t) => [index('push_sends_state_idx').on(t.state, t.dueAt), index('push_sends_delivery_idx').on(t.deliveryId)],
);

/** Chat and webhook connections; see the SQLite schema. */
export const channelConnections = pgTable(
  'channel_connections',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['slack', 'discord', 'telegram', 'ntfy', 'webhook'] }).notNull(),
    name: text('name').notNull(),
    minSeverity: text('min_severity', { enum: ['error', 'warning', 'info'] }).notNull(),
    settings: text('settings').notNull(),
    sealedSecret: text('sealed_secret').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastSuccessAt: bigint('last_success_at', { mode: 'number' }),
    lastFailureAt: bigint('last_failure_at', { mode: 'number' }),
    lastFailure: text('last_failure'),
    attentionAt: bigint('attention_at', { mode: 'number' }),
    attention: text('attention'),
  },
  (t) => [index('channel_connections_created_idx').on(t.createdAt)],
);

/** A chat interruption to one connection; see the SQLite schema. */
export const channelSends = pgTable(
  'channel_sends',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id').notNull(),
    connectionId: text('connection_id').notNull(),
    state: text('state', { enum: ['queued', 'delivered', 'failed', 'gone', 'skipped'] }).notNull(),
    attempts: integer('attempts').notNull(),
    dueAt: bigint('due_at', { mode: 'number' }).notNull(),
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    leaseHolder: text('lease_holder'),
    status: integer('status'),
    error: text('error'),
    providerId: text('provider_id'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    sentAt: bigint('sent_at', { mode: 'number' }),
  },
  (t) => [index('channel_sends_state_idx').on(t.state, t.dueAt), index('channel_sends_connection_idx').on(t.connectionId)],
);

/** The metric history; see the SQLite schema. */
export const metricPoints = pgTable(
  'metric_points',
  {
    project: text('project').notNull(),
    metric: text('metric').notNull(),
    date: text('date').notNull(),
    value: doublePrecision('value').notNull(),
    currency: text('currency'),
    late: boolean('late').notNull(),
    source: text('source', { enum: pointSources }).notNull(),
    takenAt: bigint('taken_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.project, t.metric, t.date] }), check('metric_points_source', sql`${t.source} in (${sql.raw(pointSources.map((source) => `'${source}'`).join(', '))})`)],
);

/** The metric alert rules; see the SQLite schema. `params` is JSON text, as the store wrote it. */
export const metricAlertRules = pgTable(
  'metric_alert_rules',
  {
    id: text('id').primaryKey(),
    projectSlug: text('project_slug').notNull(),
    metric: text('metric').notNull(),
    params: text('params').notNull(),
    severity: text('severity', { enum: metricAlertSeverities }).notNull(),
    enabled: boolean('enabled').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('metric_alert_rules_project_idx').on(t.projectSlug),
    check('metric_alert_rules_severity', sql`${t.severity} in (${sql.raw(metricAlertSeverities.map((severity) => `'${severity}'`).join(', '))})`),
  ],
);

const deliverySources = deliverySourceSchema.options as [DeliverySource, ...DeliverySource[]];

/** The webhook deliveries log; see the SQLite schema. Postgres keeps a long body out of line (TOAST) on its own. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    receivedAt: bigint('received_at', { mode: 'number' }).notNull(),
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
    eventId: text('event_id'),
    duplicateOf: text('duplicate_of'),
    replayOf: text('replay_of'),
    replayRequest: text('replay_request'),
    bodyUntil: bigint('body_until', { mode: 'number' }),
    event: text('event'),
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

/** The refusal counts per hour; see the SQLite schema. */
export const webhookRefusals = pgTable(
  'webhook_refusals',
  {
    hour: bigint('hour', { mode: 'number' }).notNull(),
    source: text('source', { enum: ['relay', 'local'] }).notNull(),
    integration: text('integration').notNull(),
    reason: text('reason').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.hour, t.source, t.integration, t.reason] })],
);
