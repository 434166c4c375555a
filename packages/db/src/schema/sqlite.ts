import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { Integrations } from '@dash/contracts';

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
