import { sql, type Column } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgSequence, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { notificationSeverities, type Integrations } from '@dash/contracts';

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
  },
  (t) => [
    uniqueIndex('notifications_seq_idx').on(t.seq),
    uniqueIndex('notifications_open_subject_idx').on(t.subjectKey).where(sql`${t.status} = 'open'`),
    uniqueIndex('notifications_created_seq_idx').on(t.createdSeq),
    index('notifications_unread_idx').on(t.createdSeq).where(sql`${t.readAt} is null`),
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
