import { z } from 'zod';

/**
 * POST /api/backup: every cached answer of every project asked again, one upstream lane (a service and
 * the credential it is reached with) at a time per lane, the lanes side by side.
 */

const count = z.number().int().nonnegative();
const instant = z.iso.datetime({ offset: true });

/** SPEC.md's backup result. */
export const backupResultSchema = z.object({
  refreshed: count,
  failed: count,
  /** Human-readable: `"1m 04s"`, `"12s"`. */
  duration: z.string(),
  /** What could not be refreshed, with the upstream's reason (never a secret). */
  errors: z.array(z.object({ project: z.string(), integration: z.string(), error: z.string() })),
});
export type BackupResult = z.infer<typeof backupResultSchema>;

/** Who started a backup (`briefing`: the briefing email refreshes everything before it is written). */
export const backupTriggers = ['http', 'dashboard', 'schedule', 'briefing'] as const;
export type BackupTrigger = (typeof backupTriggers)[number];

/** What one lane spent: its calls (each one's time, waits for the upstream's limiter included) and the delays between them. */
export const laneTimingSchema = z.object({
  label: z.string(),
  calls: count,
  callMs: count,
  delayMs: count,
});
export type LaneTiming = z.infer<typeof laneTimingSchema>;

/** The last finished backup, kept in the store for every process and the next start. */
export const backupRecordSchema = backupResultSchema.extend({
  startedAt: instant,
  finishedAt: instant,
  trigger: z.enum(backupTriggers),
  /** Per lane: the backup takes about as long as the busiest one (calls + delays), not the sum of all. */
  lanes: z.array(laneTimingSchema).default([]),
});
export type BackupRecord = z.infer<typeof backupRecordSchema>;

/** One upstream lane of a running backup: its calls wait its delay between them. */
export const backupLaneSchema = z.object({
  /** `GitHub`, or `GitHub (github:work)` for a second account. */
  label: z.string(),
  delayMs: count,
  done: count,
  total: count,
  state: z.enum(['waiting', 'running', 'done']),
  /** What it asks right now: `Formfox · revenue (CAD)`. */
  current: z.string().nullable(),
});
export type BackupLane = z.infer<typeof backupLaneSchema>;

/** A backup running now (in this process or another one on the same database). */
export const backupRunSchema = z.object({
  startedAt: instant,
  trigger: z.enum(backupTriggers),
  done: count,
  total: count,
  failed: count,
  lanes: z.array(backupLaneSchema),
});
export type BackupRun = z.infer<typeof backupRunSchema>;

/** GET /api/backup: what runs, what ran last, and how backups are started. */
export const backupStatusSchema = z.object({
  running: backupRunSchema.nullable(),
  last: backupRecordSchema.nullable(),
  /** BACKUP_INTERVAL, as set (`6h`), and when the next scheduled one is due; null when there is no schedule. */
  schedule: z.object({ every: z.string(), nextAt: instant.nullable() }).nullable(),
  /** Whether POST /api/backup takes a bearer secret (BACKUP_SECRET is set). */
  httpEnabled: z.boolean(),
});
export type BackupStatus = z.infer<typeof backupStatusSchema>;

/** `"1m 04s"`, `"12s"`, `"1h 02m"`: a duration as the backup result writes it. */
export function humanDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${pad(seconds % 60)}s`;
  return `${Math.floor(minutes / 60)}h ${pad(minutes % 60)}m`;
}

/** BACKUP_INTERVAL: `90s`, `30m`, `6h`, `1d`, or parts together (`1h30m`); at least a minute. */
export function parseInterval(text: string): number | undefined {
  const units = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
  const trimmed = text.trim().toLowerCase();
  if (!/^(\d+[smhd])+$/.test(trimmed)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([smhd])/g)) ms += Number(amount) * units[unit as keyof typeof units];
  return ms >= 60_000 ? ms : undefined;
}
