import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
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
