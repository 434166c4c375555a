import type { IncomingEvent, SessionRow } from '../index.ts';

/** What the store's tests (store*.test.ts, memo.test.ts) build their rows from: a clock around NOW, events, sessions. */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const session = (id: string, lastSeenAt: string, createdAt = lastSeenAt): SessionRow => ({
  id,
  secretHash: `secret-hash-${id}`,
  createdAt,
  lastSeenAt,
  userAgent: null,
  ip: null,
});

export const NOW = '2026-11-23T10:00:00.000Z';
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** NOW moved by `ms`. */
export const at = (ms: number) => new Date(Date.parse(NOW) + ms).toISOString();
export const inWindow = { now: NOW, dedupWindowMs: DAY };
export const RELAY = 'https://relay.example';

/** A stateless event (a row of its own). */
export const event = (sourceEventId: string, overrides: Partial<IncomingEvent> = {}): IncomingEvent => ({
  sourceEventId,
  integration: 'github',
  type: 'pr.merged',
  subjectKey: null,
  transition: null,
  severity: 'info',
  title: `Event ${sourceEventId}`,
  url: `https://example.com/${sourceEventId}`,
  projectSlug: null,
  occurredAt: NOW,
  receivedAt: NOW,
  relayEventId: null,
  ...overrides,
});

/** A monitor going down (trigger) or up (resolve) at `occurredAt`. */
export const monitor = (sourceEventId: string, transition: 'trigger' | 'resolve', occurredAt: string, overrides: Partial<IncomingEvent> = {}) =>
  event(sourceEventId, {
    integration: 'uptime',
    type: transition === 'trigger' ? 'monitor.down' : 'monitor.up',
    subjectKey: 'uptime:site',
    transition,
    severity: transition === 'trigger' ? 'error' : 'success',
    title: transition === 'trigger' ? 'Site is down' : 'Site is up',
    occurredAt,
    receivedAt: occurredAt,
    ...overrides,
  });

export const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);
