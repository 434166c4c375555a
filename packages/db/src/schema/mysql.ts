// Over 400 lines for a reason: this is the dialect's whole schema, one table after another, which drizzle-kit reads
// from this one path (drizzle/mysql.config.ts's `schema`) to write the migrations, and which transfer.ts dumps whole.
import { sql, type Column } from 'drizzle-orm';
import { bigint, boolean, check, double, index, int, json, mediumtext, mysqlTable, primaryKey, text, uniqueIndex, varchar } from 'drizzle-orm/mysql-core';
import { deliverySourceSchema, metricAlertSeverities, notificationSeverities, pointSources, webhookOutcomeNames, type DeliverySource, type Integrations } from '@dash/contracts';

/**
 * The MySQL (PlanetScale) schema: the same tables, property names and column names as the SQLite and Postgres ones.
 * Instants are ISO 8601 text, as on SQLite (`varchar(30)`): the store writes them normalised, so they compare and
 * sort as text, and they round-trip exactly without a DATETIME conversion at every boundary. MySQL indexes no
 * TEXT without a length, so keys are `varchar` sized for what they hold (utf8mb4: 4 bytes a character, 3,072 bytes
 * an index): 768 characters for the longest (a cache key is a route and its query). No foreign keys: PlanetScale
 * refuses them by default.
 */
const instant = (name: string) => varchar(name, { length: 30 });
/** The longest key an index takes in utf8mb4. */
const KEY = 768;
const ID = 64;

export const userSettings = mysqlTable('user_settings', {
  key: varchar('key', { length: 255 }).primaryKey(),
  /** JSON; `null` marks a slot or config the user cleared, so its default does not come back. */
  value: json('value').$type<unknown>(),
  updatedAt: instant('updated_at').notNull(),
});

export const apiCache = mysqlTable(
  'api_cache',
  {
    key: varchar('key', { length: KEY }).primaryKey(),
    route: varchar('route', { length: 64 }).notNull(),
    value: json('value').$type<unknown>().notNull(),
    fetchedAt: instant('fetched_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [index('api_cache_route_idx').on(t.route)],
);

export const projects = mysqlTable('projects', {
  slug: varchar('slug', { length: ID }).primaryKey(),
  name: text('name').notNull(),
  color: varchar('color', { length: 32 }),
  integrations: json('integrations').$type<Partial<Integrations>>().notNull(),
  /** Tab order: `projectOrder` is the slugs sorted by position. */
  position: int('position').notNull(),
  /** Bumped by every update; a patch applies only to the version it read. */
  version: int('version').notNull().default(1),
  createdAt: instant('created_at').notNull(),
  updatedAt: instant('updated_at').notNull(),
});

export const credentials = mysqlTable('credentials', {
  key: varchar('key', { length: 128 }).primaryKey(),
  /** AES-256-GCM sealed values; never the values themselves. */
  sealed: text('sealed').notNull(),
  updatedAt: instant('updated_at').notNull(),
});

/** The dashboard's owner: at most one row, whose id is always 1, so a first-run setup is one `insert ignore`. */
export const authOwner = mysqlTable(
  'auth_owner',
  {
    id: int('id').primaryKey(),
    /** An argon2id PHC string. */
    passwordHash: text('password_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [check('auth_owner_single_row', sql`${t.id} = 1`)],
);

/** Signed-in browsers; only SHA-256 of each session's secret. */
export const authSession = mysqlTable('auth_session', {
  id: varchar('id', { length: ID }).primaryKey(),
  secretHash: varchar('secret_hash', { length: 128 }).notNull(),
  createdAt: instant('created_at').notNull(),
  lastSeenAt: instant('last_seen_at').notNull(),
  userAgent: text('user_agent'),
  ip: varchar('ip', { length: 64 }),
});

/** API tokens for scripts and the typed client; only SHA-256 of each token's secret. */
export const apiToken = mysqlTable(
  'api_token',
  {
    id: varchar('id', { length: ID }).primaryKey(),
    name: varchar('name', { length: 200 }).notNull(),
    secretHash: varchar('secret_hash', { length: 128 }).notNull(),
    scope: varchar('scope', { length: 8, enum: ['read', 'write'] }).notNull(),
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
export const notificationDedup = mysqlTable(
  'notification_dedup',
  {
    sourceEventId: varchar('source_event_id', { length: 512 }).primaryKey(),
    /** The inbox row the event folded into. */
    notificationId: varchar('notification_id', { length: ID }).notNull(),
    firstSeenAt: instant('first_seen_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
    hits: int('hits').notNull(),
  },
  (t) => [index('notification_dedup_expires_idx').on(t.expiresAt)],
);

/** Every stored event, pointing at the inbox row it folded into. */
export const notificationEvents = mysqlTable(
  'notification_events',
  {
    id: varchar('id', { length: ID }).primaryKey(),
    notificationId: varchar('notification_id', { length: ID }).notNull(),
    sourceEventId: varchar('source_event_id', { length: 512 }).notNull(),
    integration: varchar('integration', { length: 64 }).notNull(),
    type: varchar('type', { length: 128 }).notNull(),
    subjectKey: varchar('subject_key', { length: 512 }),
    transition: varchar('transition', { length: 8, enum: ['trigger', 'resolve'] }),
    severity: varchar('severity', { length: 8, enum: severities }).notNull(),
    title: text('title').notNull(),
    url: text('url'),
    projectSlug: varchar('project_slug', { length: ID }),
    occurredAt: instant('occurred_at').notNull(),
    receivedAt: instant('received_at').notNull(),
    relayEventId: varchar('relay_event_id', { length: 128 }),
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
 * was created with. MySQL has no partial index, so "at most one open row per subject" is a unique index on a stored
 * generated column that holds the subject key while the row is open and NULL otherwise (NULLs never collide).
 */
export const notifications = mysqlTable(
  'notifications',
  {
    id: varchar('id', { length: ID }).primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    createdSeq: bigint('created_seq', { mode: 'number' }).notNull(),
    integration: varchar('integration', { length: 64 }).notNull(),
    type: varchar('type', { length: 128 }).notNull(),
    subjectKey: varchar('subject_key', { length: 512 }),
    status: varchar('status', { length: 8, enum: ['open', 'resolved', 'info'] }).notNull(),
    severity: varchar('severity', { length: 8, enum: severities }).notNull(),
    title: text('title').notNull(),
    url: text('url'),
    projectSlug: varchar('project_slug', { length: ID }),
    eventCount: int('event_count').notNull(),
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
    openSubject: varchar('open_subject', { length: 512 }).generatedAlwaysAs(sql`case when status = 'open' then subject_key end`, { mode: 'stored' }),
  },
  (t) => [
    uniqueIndex('notifications_seq_idx').on(t.seq),
    uniqueIndex('notifications_open_subject_idx').on(t.openSubject),
    uniqueIndex('notifications_created_seq_idx').on(t.createdSeq),
    index('notifications_read_idx').on(t.readAt, t.createdSeq),
    index('notifications_snoozed_idx').on(t.snoozedUntil),
    index('notifications_subject_idx').on(t.subjectKey),
    check('notifications_status', sql`${t.status} in ('open', 'resolved', 'info')`),
    severityCheck('notifications_severity', t.severity),
  ],
);

/**
 * MySQL has no sequences: this one row is `notifications.seq`'s, the last value given out. Its row lock (`select …
 * for update`) is also the notifications' write lock (see mysql.ts).
 */
export const notificationSeq = mysqlTable(
  'notification_seq',
  {
    id: int('id').primaryKey(),
    last: bigint('last', { mode: 'number' }).notNull(),
  },
  (t) => [check('notification_seq_single_row', sql`${t.id} = 1`)],
);

/** Where each relay's poll got to (`since`, its ms cursor), written with the batch it fetched. */
export const relayCursor = mysqlTable('relay_cursor', {
  relayUrl: varchar('relay_url', { length: KEY }).primaryKey(),
  since: bigint('since', { mode: 'number' }).notNull(),
  updatedAt: instant('updated_at').notNull(),
});

/** Named leases: who does a job (the relay poller) until when. */
export const leases = mysqlTable('leases', {
  name: varchar('name', { length: 128 }).primaryKey(),
  holder: varchar('holder', { length: 128 }).notNull(),
  expiresAt: instant('expires_at').notNull(),
});

/** Upstream rate windows shared by the dashboard processes on this database (see the Postgres schema). */
export const rateLimits = mysqlTable('rate_limits', {
  key: varchar('key', { length: 64 }).primaryKey(),
  pausedUntil: bigint('paused_until', { mode: 'number' }).notNull(),
});

/** The calls in each account's window (see the Postgres schema). */
export const rateCalls = mysqlTable(
  'rate_calls',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().autoincrement(),
    key: varchar('key', { length: 64 }).notNull(),
    at: bigint('at', { mode: 'number' }).notNull(),
  },
  (t) => [index('rate_calls_key_at_idx').on(t.key, t.at)],
);

/** The durable outbox of interruptions (see the SQLite schema). Instants are ms UTC. */
export const notificationDeliveries = mysqlTable(
  'notification_deliveries',
  {
    id: varchar('id', { length: ID }).primaryKey(),
    /** The inbox row it is about; null for a digest. */
    notificationId: varchar('notification_id', { length: ID }),
    /** The event whose interruption it is: the scheduler adds a line to that event's trace when it releases, sends or drops it. Null for a digest and the scheduler's own notices. */
    eventId: varchar('event_id', { length: ID }),
    subjectKey: varchar('subject_key', { length: 512 }),
    channel: varchar('channel', { length: 8, enum: ['browser', 'email', 'push', 'chat'] }).notNull(),
    purpose: varchar('purpose', { length: 16, enum: ['first', 'resolve', 'repeat', 'flap_start', 'flap_end', 'digest'] }).notNull(),
    status: varchar('status', { length: 16, enum: ['held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty'] }).notNull(),
    /** Why it has its status, as the trace says it. */
    reason: text('reason').notNull(),
    /** Why it was held or deferred, as a value: the flap hold, quiet hours or a pause (null: never held). */
    heldFor: varchar('held_for', { length: 16, enum: ['flap_hold', 'quiet_hours', 'pause'] }),
    /** When a held one goes out; when a deferred one's quiet period ends (null: when the settings change). */
    dueAt: bigint('due_at', { mode: 'number' }),
    /** JSON: title, body, severity, tag, url, renotify, requireInteraction. */
    message: text('message').notNull(),
    seq: bigint('seq', { mode: 'number' }),
    digestId: varchar('digest_id', { length: ID }),
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

/** What the flap detection remembers per subject with state (a monitor). ms UTC. */
export const notificationSubjects = mysqlTable('notification_subjects', {
  subjectKey: varchar('subject_key', { length: 512 }).primaryKey(),
  /** JSON: the start of each outage within the flap window, oldest first. */
  outages: text('outages').notNull(),
  flappingSince: bigint('flapping_since', { mode: 'number' }),
  lastChangeAt: bigint('last_change_at', { mode: 'number' }).notNull(),
});

/**
 * Email interruptions on their way to SendGrid: one row per email delivery of the outbox once it is `sent` (released
 * by the policy), with the same id. A sender claims due rows with a lease (one process sends each), tries 429, 5xx
 * and an unreachable SendGrid again at growing intervals, and fails any other refusal at once. Instants are ms UTC.
 */
export const emailSends = mysqlTable(
  'email_sends',
  {
    id: varchar('id', { length: ID }).primaryKey(),
    state: varchar('state', { length: 16, enum: ['queued', 'delivered', 'failed'] }).notNull(),
    attempts: int('attempts').notNull(),
    dueAt: bigint('due_at', { mode: 'number' }).notNull(),
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    leaseHolder: varchar('lease_holder', { length: 64 }),
    providerId: varchar('provider_id', { length: 128 }),
    error: text('error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    sentAt: bigint('sent_at', { mode: 'number' }),
  },
  (t) => [index('email_sends_state_idx').on(t.state, t.dueAt)],
);

/** Subjects muted until a time (ms UTC): their events are stored, never interrupting. */
export const notificationMutes = mysqlTable('notification_mutes', {
  subjectKey: varchar('subject_key', { length: 512 }).primaryKey(),
  until: bigint('until', { mode: 'number' }).notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

/** Web Push devices; see the SQLite schema. The endpoint is text (push services' URLs run long), so it has no unique index. */
export const pushSubscriptions = mysqlTable(
  'push_subscriptions',
  {
    id: varchar('id', { length: ID }).primaryKey(),
    name: varchar('name', { length: 80 }).notNull(),
    browser: varchar('browser', { length: 80 }),
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

/** A push interruption to one device; see the SQLite schema. Its id is two ids and a colon. */
export const pushSends = mysqlTable(
  'push_sends',
  {
    id: varchar('id', { length: 2 * ID + 1 }).primaryKey(),
    deliveryId: varchar('delivery_id', { length: ID }).notNull(),
    subscriptionId: varchar('subscription_id', { length: ID }).notNull(),
    state: varchar('state', { length: 16, enum: ['queued', 'delivered', 'failed', 'gone'] }).notNull(),
    attempts: int('attempts').notNull(),
    dueAt: bigint('due_at', { mode: 'number' }).notNull(),
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    leaseHolder: varchar('lease_holder', { length: ID }),
    status: int('status'),
    error: text('error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    sentAt: bigint('sent_at', { mode: 'number' }),
  },
  (t) => [index('push_sends_state_idx').on(t.state, t.dueAt), index('push_sends_delivery_idx').on(t.deliveryId)],
);

/** Chat and webhook connections; see the SQLite schema. */
export const channelConnections = mysqlTable(
  'channel_connections',
  {
    id: varchar('id', { length: ID }).primaryKey(),
    kind: varchar('kind', { length: 16, enum: ['slack', 'discord', 'telegram', 'ntfy', 'webhook'] }).notNull(),
    name: varchar('name', { length: 80 }).notNull(),
    minSeverity: varchar('min_severity', { length: 16, enum: ['error', 'warning', 'info'] }).notNull(),
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

/** A chat interruption to one connection; see the SQLite schema. Its id is two ids and a colon. */
export const channelSends = mysqlTable(
  'channel_sends',
  {
    id: varchar('id', { length: 2 * ID + 1 }).primaryKey(),
    deliveryId: varchar('delivery_id', { length: ID }).notNull(),
    connectionId: varchar('connection_id', { length: ID }).notNull(),
    state: varchar('state', { length: 16, enum: ['queued', 'delivered', 'failed', 'gone', 'skipped'] }).notNull(),
    attempts: int('attempts').notNull(),
    dueAt: bigint('due_at', { mode: 'number' }).notNull(),
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    leaseHolder: varchar('lease_holder', { length: ID }),
    status: int('status'),
    error: text('error'),
    providerId: varchar('provider_id', { length: 64 }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    sentAt: bigint('sent_at', { mode: 'number' }),
  },
  (t) => [index('channel_sends_state_idx').on(t.state, t.dueAt), index('channel_sends_connection_idx').on(t.connectionId)],
);

/** The metric history; see the SQLite schema. `late` is MySQL's boolean, a tinyint(1). */
export const metricPoints = mysqlTable(
  'metric_points',
  {
    project: varchar('project', { length: ID }).notNull(),
    metric: varchar('metric', { length: 64 }).notNull(),
    date: varchar('date', { length: 10 }).notNull(),
    value: double('value').notNull(),
    currency: varchar('currency', { length: 3 }),
    late: boolean('late').notNull(),
    source: varchar('source', { length: 16, enum: pointSources }).notNull(),
    takenAt: bigint('taken_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.project, t.metric, t.date] }), check('metric_points_source', sql`${t.source} in (${sql.raw(pointSources.map((source) => `'${source}'`).join(', '))})`)],
);

/**
 * The metric alert rules; see the SQLite schema. The id holds a UUID or `default:<project>:<metric>` (contracts'
 * `metricAlertIdSchema`: at most 200 characters); `enabled` is MySQL's boolean, a tinyint(1).
 */
export const metricAlertRules = mysqlTable(
  'metric_alert_rules',
  {
    id: varchar('id', { length: 200 }).primaryKey(),
    projectSlug: varchar('project_slug', { length: ID }).notNull(),
    metric: varchar('metric', { length: 64 }).notNull(),
    params: text('params').notNull(),
    severity: varchar('severity', { length: 8, enum: metricAlertSeverities }).notNull(),
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

/**
 * The webhook deliveries log; see the SQLite schema. `body` is a mediumtext (16 MB; a text's 64 KB is less than the
 * relay's 256 KB), and so is `event`, so that no parsed event too long for a text can fail its ingest. MySQL has no
 * partial index: `replay_of`'s holds the NULLs too. A replay request id is at most 100 characters (contracts).
 */
export const webhookDeliveries = mysqlTable(
  'webhook_deliveries',
  {
    id: varchar('id', { length: ID }).primaryKey(),
    receivedAt: bigint('received_at', { mode: 'number' }).notNull(),
    source: varchar('source', { length: 8, enum: deliverySources }).notNull(),
    integration: varchar('integration', { length: 64 }).notNull(),
    eventType: varchar('event_type', { length: 128 }),
    deliveryId: varchar('delivery_id', { length: 200 }),
    sourceEventId: varchar('source_event_id', { length: 512 }),
    outcome: varchar('outcome', { length: 16, enum: webhookOutcomeNames }).notNull(),
    detail: text('detail'),
    title: text('title'),
    projectSlug: varchar('project_slug', { length: ID }),
    notificationId: varchar('notification_id', { length: ID }),
    eventId: varchar('event_id', { length: ID }),
    duplicateOf: varchar('duplicate_of', { length: ID }),
    replayOf: varchar('replay_of', { length: ID }),
    replayRequest: varchar('replay_request', { length: 100 }),
    bodyUntil: bigint('body_until', { mode: 'number' }),
    event: mediumtext('event'),
    body: mediumtext('body'),
  },
  (t) => [
    index('webhook_deliveries_received_idx').on(t.receivedAt, t.id),
    index('webhook_deliveries_integration_idx').on(t.integration, t.receivedAt, t.id),
    index('webhook_deliveries_outcome_idx').on(t.outcome, t.receivedAt, t.id),
    index('webhook_deliveries_notification_idx').on(t.notificationId),
    index('webhook_deliveries_source_event_idx').on(t.sourceEventId, t.receivedAt),
    uniqueIndex('webhook_deliveries_replay_idx').on(t.replayRequest, t.replayOf),
    index('webhook_deliveries_replay_of_idx').on(t.replayOf),
    check('webhook_deliveries_source', sql`${t.source} in (${sql.raw(deliverySources.map((source) => `'${source}'`).join(', '))})`),
    check('webhook_deliveries_outcome', sql`${t.outcome} in (${sql.raw(webhookOutcomeNames.map((outcome) => `'${outcome}'`).join(', '))})`),
  ],
);

/** The refusal counts per hour; see the SQLite schema. */
export const webhookRefusals = mysqlTable(
  'webhook_refusals',
  {
    hour: bigint('hour', { mode: 'number' }).notNull(),
    source: varchar('source', { length: 8, enum: ['relay', 'local'] }).notNull(),
    integration: varchar('integration', { length: 64 }).notNull(),
    reason: varchar('reason', { length: 32 }).notNull(),
    count: int('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.hour, t.source, t.integration, t.reason] })],
);
