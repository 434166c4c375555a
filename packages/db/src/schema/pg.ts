import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { Integrations } from '@dash/contracts';

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
