import { z } from 'zod';
import { credentialKeySchema } from './credentials.ts';
import { databaseProviderSchema, tableCountsSchema } from './database.ts';
import { deliverySourceSchema, webhookOutcomeSchema } from './deliveries.ts';
import { historyDateSchema, metricKeySchema, pointSources } from './history.ts';
import { metricAlertParamsSchema, metricAlertSeverities } from './metric-alerts.ts';
import { notificationSeverities } from './notifications.ts';
import { integrationsSchema, slugSchema } from './projects.ts';
import { settingsSchema } from './settings.ts';

/**
 * The export dump (SPEC.md): its version and size limits, every stored table's rows as an import checks them, which
 * tables and settings are sign-in state an export never carries, and what an import answers.
 */

/** The dump's format; an import of a newer one is refused. */
export const DUMP_VERSION = 1;
/** The largest dump an import takes. */
export const MAX_DUMP_BYTES = 50 * 1024 * 1024;
const MAX_ROWS = 200_000;
/** A webhook body as the deliveries log keeps it: the relay takes 256 KB at most. */
const MAX_WEBHOOK_BODY = 256 * 1024;
/** Stored JSON values (settings, integrations) nest no deeper than this. */
const MAX_JSON_DEPTH = 32;

/** An instant, normalised the way the store writes them (`toISOString`), so SQLite's text comparisons hold. */
const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString());
const ms = z.number().int().min(0).max(8.64e15);
const text = (max = 2048) => z.string().max(max);
const json = (max = 65_536) => z.string().max(max).refine(isJsonText, 'JSON text');

function isJsonText(value: string): boolean {
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

/** JSON text of an array of strings: a notification's refs, which the store reads back as one. */
const jsonStrings = (max = 65_536) => z.string().max(max).refine(isJsonStrings, 'JSON array of strings');

function isJsonStrings(value: string): boolean {
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string');
  } catch {
    return false;
  }
}

/** JSON text of a metric alert rule's params, as contracts' `MetricAlertParams` read them (the store refuses any other). */
const alertParams = (max = 4096) => z.string().max(max).refine(isAlertParams, 'JSON text of a metric alert rule’s params');

function isAlertParams(value: string): boolean {
  try {
    return metricAlertParamsSchema.safeParse(JSON.parse(value)).success;
  } catch {
    return false;
  }
}

/**
 * How deep a parsed JSON value nests, counted without recursion (a hostile dump may nest thousands deep); the count
 * stops just past `limit`.
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const inner of Object.values(item)) stack.push([inner, depth + 1]);
  }
  return deepest;
}

const shallowJson = z.unknown().refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, `Nested deeper than ${MAX_JSON_DEPTH} levels`);
const rows = <T extends z.ZodType>(row: T) => z.array(row).max(MAX_ROWS, `At most ${MAX_ROWS} rows`);
const severity = z.enum(notificationSeverities);

/**
 * Every table a dump carries, row by row as the store keeps them (instants as ISO 8601, or ms where the column
 * holds ms). Left out: `api_cache` (fetched again), `leases` (a process's, not data), the notification sequence
 * (restored past the highest seq), and, in an export, `auth_session` (a browser's sign-in stays with it).
 */
export const dumpTablesSchema = z.strictObject({
  user_settings: rows(z.strictObject({ key: text(512), value: shallowJson, updatedAt: instant })).optional(),
  projects: rows(
    z.strictObject({
      slug: slugSchema,
      name: z.string().trim().min(1).max(80),
      color: text(32).nullable(),
      integrations: integrationsSchema.partial(),
      position: z.number().int(),
      version: z.number().int().min(1),
      createdAt: instant,
      updatedAt: instant,
    }),
  ).optional(),
  credentials: rows(z.strictObject({ key: credentialKeySchema, sealed: text(65_536), updatedAt: instant })).optional(),
  auth_owner: rows(z.strictObject({ id: z.literal(1), passwordHash: text(512), createdAt: instant, updatedAt: instant }))
    .max(1)
    .optional(),
  auth_session: rows(
    z.strictObject({
      id: text(128),
      secretHash: text(128),
      createdAt: instant,
      lastSeenAt: instant,
      userAgent: text(1024).nullable(),
      ip: text(64).nullable(),
    }),
  ).optional(),
  api_token: rows(
    z.strictObject({
      id: text(128),
      name: text(200),
      secretHash: text(128),
      scope: z.enum(['read', 'write']),
      createdAt: instant,
      lastUsedAt: instant.nullable(),
      expiresAt: instant.nullable(),
    }),
  ).optional(),
  notifications: rows(
    z.strictObject({
      id: text(64),
      seq: z.number().int().positive(),
      createdSeq: z.number().int().positive(),
      integration: text(64),
      type: text(128),
      subjectKey: text(512).nullable(),
      status: z.enum(['open', 'resolved', 'info']),
      severity,
      title: text(),
      url: text().nullable(),
      projectSlug: text(64).nullable(),
      eventCount: z.number().int().positive(),
      firstAt: instant,
      lastAt: instant,
      resolvedAt: instant.nullable(),
      receivedAt: instant,
      readAt: instant.nullable(),
      snoozedUntil: ms.nullable(),
      decision: json().nullable(),
      // Absent from exports made before the column existed: restored as null (such rows are never assigned later).
      refs: jsonStrings().nullable().optional(),
    }),
  ).optional(),
  notification_events: rows(
    z.strictObject({
      id: text(64),
      notificationId: text(64),
      sourceEventId: text(512),
      integration: text(64),
      type: text(128),
      subjectKey: text(512).nullable(),
      transition: z.enum(['trigger', 'resolve']).nullable(),
      severity,
      title: text(),
      url: text().nullable(),
      projectSlug: text(64).nullable(),
      occurredAt: instant,
      receivedAt: instant,
      relayEventId: text(128).nullable(),
      decision: json().nullable(),
    }),
  ).optional(),
  notification_dedup: rows(
    z.strictObject({ sourceEventId: text(512), notificationId: text(64), firstSeenAt: instant, expiresAt: instant, hits: z.number().int().positive() }),
  ).optional(),
  notification_deliveries: rows(
    z.strictObject({
      id: text(64),
      notificationId: text(64).nullable(),
      // Absent from exports made before the column existed: restored as null.
      eventId: text(64).nullable().optional(),
      subjectKey: text(512).nullable(),
      channel: z.enum(['browser', 'email', 'push', 'chat']),
      purpose: z.enum(['first', 'resolve', 'repeat', 'flap_start', 'flap_end', 'digest']),
      status: z.enum(['held', 'deferred', 'sent', 'cancelled', 'suppressed', 'digested', 'empty']),
      reason: text(),
      heldFor: z.enum(['flap_hold', 'quiet_hours', 'pause']).nullable().optional(),
      dueAt: ms.nullable(),
      message: json(),
      seq: z.number().int().positive().nullable(),
      digestId: text(64).nullable(),
      createdAt: ms,
      sentAt: ms.nullable(),
    }),
  ).optional(),
  notification_subjects: rows(
    z.strictObject({ subjectKey: text(512), outages: json(), flappingSince: ms.nullable(), lastChangeAt: ms }),
  ).optional(),
  notification_mutes: rows(z.strictObject({ subjectKey: text(512), until: ms, createdAt: ms })).optional(),
  relay_cursor: rows(z.strictObject({ relayUrl: text(), since: z.number().int().min(0), updatedAt: instant })).optional(),
  /** Web Push devices; their keys sealed as credentials are (an import skips those sealed with another key). */
  push_subscriptions: rows(
    z.strictObject({
      id: text(64),
      name: text(80),
      browser: text(80).nullable(),
      endpoint: text(),
      sealedKeys: text(4096),
      expirationTime: ms.nullable(),
      createdAt: ms,
      lastSuccessAt: ms.nullable(),
      lastFailureAt: ms.nullable(),
      lastFailure: text(4096).nullable(),
      removedAt: ms.nullable(),
    }),
  ).optional(),
  /** Chat and webhook connections; their secrets sealed as credentials are (an import skips those sealed with another key). */
  channel_connections: rows(
    z.strictObject({
      id: text(64),
      kind: z.enum(['slack', 'discord', 'telegram', 'ntfy', 'webhook']),
      name: text(80),
      minSeverity: z.enum(['error', 'warning', 'info']),
      settings: text(4096),
      sealedSecret: text(8192),
      createdAt: ms,
      lastSuccessAt: ms.nullable(),
      lastFailureAt: ms.nullable(),
      lastFailure: text(4096).nullable(),
      attentionAt: ms.nullable(),
      attention: text(4096).nullable(),
    }),
  ).optional(),
  /** The metric history: one value per project, metric and day (see history.ts). */
  metric_points: rows(
    z.strictObject({
      project: slugSchema,
      metric: metricKeySchema,
      date: historyDateSchema,
      value: z.number().finite(),
      currency: text(3).nullable(),
      late: z.boolean(),
      source: z.enum(pointSources),
      takenAt: ms,
    }),
  ).optional(),
  /** The metric alert rules: a project's metric held to its params (see metric-alerts.ts), ids a UUID or `default:<project>:<metric>`. */
  metric_alert_rules: rows(
    z.strictObject({
      id: text(200),
      projectSlug: slugSchema,
      metric: metricKeySchema,
      params: alertParams(),
      severity: z.enum(metricAlertSeverities),
      enabled: z.boolean(),
      createdAt: ms,
      updatedAt: ms,
    }),
  ).optional(),
  /** The webhook deliveries log (see deliveries.ts): a row per event a webhook carried, its body while it is kept (256 KB at most). */
  webhook_deliveries: rows(
    z.strictObject({
      id: text(64),
      receivedAt: ms,
      source: deliverySourceSchema,
      integration: text(64),
      eventType: text(128).nullable(),
      deliveryId: text(200).nullable(),
      sourceEventId: text(512).nullable(),
      outcome: webhookOutcomeSchema,
      detail: text(65_536).nullable(),
      title: text(65_536).nullable(),
      projectSlug: text(64).nullable(),
      notificationId: text(64).nullable(),
      eventId: text(64).nullable(),
      duplicateOf: text(64).nullable(),
      replayOf: text(64).nullable(),
      replayRequest: text(100).nullable(),
      bodyUntil: ms.nullable(),
      event: json(MAX_WEBHOOK_BODY).nullable(),
      body: text(MAX_WEBHOOK_BODY).nullable(),
    }),
  ).optional(),
  /** What the relay and the local webhook route refused, counted per hour (ms), source, integration and reason. */
  webhook_refusals: rows(
    z.strictObject({
      hour: ms,
      source: z.enum(['relay', 'local']),
      integration: text(64),
      reason: text(32),
      count: z.number().int().nonnegative(),
    }),
  ).optional(),
});
export type DumpTables = z.infer<typeof dumpTablesSchema>;
export type DumpTableName = keyof DumpTables;
export const dumpTableNames = Object.keys(dumpTablesSchema.shape) as DumpTableName[];

/**
 * Who may sign in: the owner's password, the browsers' sessions, the API tokens. An export never carries them and an
 * import never writes them; a database switch carries this dashboard's across, whatever the target held.
 */
export const authTableNames = ['auth_owner', 'auth_session', 'api_token'] as const satisfies readonly DumpTableName[];
export type AuthTableName = (typeof authTableNames)[number];

/**
 * A `user_settings` row of sign-in state (the hash of the environment's password, `meta:authEnvPassword`, and any
 * other `meta:auth…` value): auth material like the tables above.
 */
export const isAuthSettingKey = (key: string) => key.startsWith('meta:auth');

/** SPEC.md's export dump: `{ version: 1, provider, settings }`, and every stored row under `tables`. */
export const dumpSchema = z.strictObject({
  version: z.literal(DUMP_VERSION),
  provider: databaseProviderSchema,
  /** ISO 8601. */
  exportedAt: instant,
  /** The settings as `GET /api/settings` answered them (the rows under `tables.user_settings` are what is restored). */
  settings: settingsSchema,
  tables: dumpTablesSchema,
});
export type Dump = z.infer<typeof dumpSchema>;

/** What an import leaves out: a credential sealed with another key, a setting that holds one. */
export const importSkipSchema = z.object({ table: z.string(), key: z.string(), reason: z.string() });

/** `POST /api/database/import`: rows written per table (or that would be, on a dry run), what was there, what was skipped. */
export const importResultSchema = z.object({
  dryRun: z.boolean(),
  imported: tableCountsSchema,
  /** The rows each imported table held before (they are replaced). */
  replaced: tableCountsSchema,
  skipped: z.array(importSkipSchema),
});
export type ImportResult = z.infer<typeof importResultSchema>;
