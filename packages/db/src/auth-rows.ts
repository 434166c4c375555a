import { isoOf, isoOrNull } from './instants.ts';
import type { ApiTokenRow, OwnerRow, SessionRow } from './store.ts';

/** The owner, session and API token rows as every dialect reads and writes them (their instants normalised). */

// The row mappers below also serve on the way in: written instants are normalised too, so SQLite's text
// comparisons and orderings are those of the instants, and an unparseable one throws instead of being stored.

export const toOwner = (row: OwnerRow): OwnerRow => ({
  passwordHash: row.passwordHash,
  createdAt: isoOf(row.createdAt),
  updatedAt: isoOf(row.updatedAt),
});

export const toSession = (row: SessionRow): SessionRow => ({
  id: row.id,
  secretHash: row.secretHash,
  createdAt: isoOf(row.createdAt),
  lastSeenAt: isoOf(row.lastSeenAt),
  userAgent: row.userAgent,
  ip: row.ip,
});

export const toApiToken = (row: ApiTokenRow): ApiTokenRow => ({
  id: row.id,
  name: row.name,
  secretHash: row.secretHash,
  scope: row.scope,
  createdAt: isoOf(row.createdAt),
  lastUsedAt: isoOrNull(row.lastUsedAt),
  expiresAt: isoOrNull(row.expiresAt),
});
