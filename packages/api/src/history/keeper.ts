import { createHash, randomUUID } from 'node:crypto';
import {
  defaultHistorySchedule,
  historyScheduleSchema,
  metricOf,
  type BackfillResult,
  type HistorySchedule,
  type HistorySettings,
  type IntegrationName,
  type Project,
  type SnapshotResult,
} from '@dash/contracts';
import { addDays, isoDay, type Clock, type DailyValue } from '@dash/connectors';
import type { MetricPointRow, Store } from '@dash/db';
import { Temporal } from '@js-temporal/polyfill';
import { z } from 'zod';
import type { DataCache } from '../data/cache.ts';
import type { Connections } from '../data/connections.ts';
import type { DataReads } from '../data/reads.ts';
import { fail } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { localTime, wallInstant } from '../notifications/policy/quiet-hours.ts';
import { HeldLease } from '../held-lease.ts';
import { Ticker } from '../ticker.ts';
import { historyChanged } from './memo.ts';
import { readProject, seriesDaysOf, seriesIntegrations } from './sources.ts';

/**
 * The metric history's keeper: the daily snapshot at the owner's time (06:00 in their zone by default), a missed one
 * taken at the next start and marked late, and the backfill of each provider's daily series once per integration (when
 * it is connected, or changed) and on demand. Of several processes on one database one does each (a named lease), and
 * a record per local date (the store's meta) makes every later look at a day that was taken do nothing.
 */

const SCHEDULE = 'history.schedule';
const SNAPSHOTS = 'history.snapshots';
const BACKFILLS = 'history.backfills';
const SNAPSHOT_LEASE = 'history-snapshot';
const BACKFILL_LEASE = 'history-backfill';
const LEASE_MS = 120_000;
const DAY = 86_400_000;
/** A snapshot taken this long after its time was not taken at its time (the dashboard was off): its stocks are marked late. */
export const LATE_AFTER_MS = 15 * 60_000;
/** The flows of the last week are read again at each snapshot (Search Console lags 2-3 days, refunds arrive late). */
const SETTLING_DAYS = 7;
/** After days off, the flows since the last snapshot are read, up to this many days. */
const CATCH_UP_DAYS = 90;
/** A failed automatic backfill is tried again after this long. */
const BACKFILL_RETRY_MS = 6 * 3_600_000;
/** Days of snapshot records kept. */
const KEEP_DAYS = 14;
/** The keeper's first look after the dashboard starts. */
const START_DELAY_MS = 30_000;
/** The keeper looks at the schedule and the projects at least this often. */
const POLL_MS = 60_000;

const failureSchema = z.object({ project: z.string(), integration: z.string(), error: z.string() });
const snapshotRecordSchema = z.object({ at: z.number(), late: z.boolean(), points: z.number(), failed: z.array(failureSchema) });
const snapshotsSchema = z.record(z.string(), snapshotRecordSchema);
type Snapshots = z.infer<typeof snapshotsSchema>;
/** Per project and integration: the config read back (its digest), when, and why it failed. */
const backfillsSchema = z.record(z.string(), z.record(z.string(), z.object({ config: z.string(), at: z.number(), error: z.string().nullable() })));
type Backfills = z.infer<typeof backfillsSchema>;

/** Integrations whose past days a backfill reads: the daily series, and the lists of deploys and reviews. */
const backfilled: readonly IntegrationName[] = [...seriesIntegrations, 'deploy_host', 'storefront'];

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 16);

export interface HistoryKeeperOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  data: { cache: Pick<DataCache, 'through'>; connections: Pick<Connections, 'context' | 'clock'> };
  /** The data procedures, ending with `signal` (a caller made in the composition). */
  reads: (signal?: AbortSignal) => DataReads;
  /** Told after each snapshot with the projects it wrote (the metric alerts judge the new days); its failure is logged. */
  afterSnapshot?: (projects: string[]) => Promise<unknown>;
}

/** The schedule as saved; the default (06:00 in the briefing's time zone, or UTC) when none is or it no longer fits. */
export async function historySchedule(store: Store): Promise<HistorySchedule> {
  const parsed = historyScheduleSchema.safeParse(await store.meta.get(SCHEDULE));
  if (parsed.success) return parsed.data;
  const briefing = (await store.meta.get('briefing.schedule')) as { timezone?: unknown } | undefined | null;
  const timezone = typeof briefing?.timezone === 'string' ? briefing.timezone : defaultHistorySchedule.timezone;
  return historyScheduleSchema.safeParse({ ...defaultHistorySchedule, timezone }).data ?? defaultHistorySchedule;
}

/** The local date `now` falls on in the schedule's zone, and the instant of that day's snapshot. */
export function snapshotDay(schedule: HistorySchedule, now: number): { date: string; at: number } {
  // A fake clock's sleeps (a limiter's back-off) may leave fractions of a millisecond; Temporal takes whole ones.
  const { date } = localTime(Math.floor(now), schedule.timezone);
  return { date: date.toString(), at: wallInstant(date, schedule.time, schedule.timezone) };
}

/** The next snapshot's instant after `now` (today's when its time is still to come and it was not taken). */
function nextSnapshotAt(schedule: HistorySchedule, now: number, taken: (date: string) => boolean): number {
  const today = snapshotDay(schedule, now);
  if (!taken(today.date)) return Math.max(now, today.at);
  return wallInstant(Temporal.PlainDate.from(today.date).add({ days: 1 }), schedule.time, schedule.timezone);
}

/** A day's values as stored points: stocks of the snapshot's day carry `late`. */
function pointsOf(project: string, values: readonly DailyValue[], source: MetricPointRow['source'], takenAt: number, late?: { date: string }): MetricPointRow[] {
  return values.map((value) => ({
    project,
    metric: value.metric,
    date: value.date,
    value: value.value,
    currency: value.currency ?? null,
    late: late !== undefined && value.date === late.date && metricOf(value.metric)?.kind === 'stock',
    source,
    takenAt,
  }));
}

export class HistoryKeeper {
  private readonly snapshotLease: HeldLease;
  private readonly backfillLease: HeldLease;
  private readonly abort = new AbortController();
  private readonly ticker = new Ticker({
    look: () => this.look(),
    wait: async () => {
      const { store, clock } = this.options;
      const [schedule, snapshots] = await Promise.all([historySchedule(store), this.snapshots()]);
      const now = clock.now();
      return Math.min(POLL_MS, Math.max(1_000, nextSnapshotAt(schedule, now, (date) => snapshots[date] !== undefined) - now));
    },
    fallbackMs: POLL_MS,
    failed: (error) => this.options.log.warn(`history: ${error.message}`),
  });

  constructor(private readonly options: HistoryKeeperOptions) {
    const holder = randomUUID();
    const now = () => options.clock.now();
    this.snapshotLease = new HeldLease(options.store.leases, SNAPSHOT_LEASE, LEASE_MS, now, holder);
    this.backfillLease = new HeldLease(options.store.leases, BACKFILL_LEASE, LEASE_MS, now, holder);
  }

  async settings(): Promise<HistorySettings> {
    const { store, clock } = this.options;
    const [schedule, snapshots, rows, projects] = await Promise.all([historySchedule(store), this.snapshots(), store.history.count(), store.projects.list()]);
    const lastDate = Object.keys(snapshots).sort().at(-1);
    const last = lastDate === undefined ? undefined : snapshots[lastDate];
    return {
      schedule,
      // With no project there is nothing to take (and the day is not recorded): no time to promise.
      nextAt: projects.length === 0 ? null : new Date(nextSnapshotAt(schedule, clock.now(), (date) => snapshots[date] !== undefined)).toISOString(),
      last: lastDate && last ? { date: lastDate, at: new Date(last.at).toISOString(), late: last.late, points: last.points, failed: last.failed } : null,
      rows,
    };
  }

  async saveSchedule(schedule: HistorySchedule): Promise<HistorySettings> {
    await this.options.store.meta.put(SCHEDULE, schedule);
    historyChanged(this.options.store);
    this.kick();
    return this.settings();
  }

  /**
   * POST /api/history/snapshot, and the schedule's: every project's values now, the stocks dated today (the owner's
   * zone), the flows of the last days the providers have settled. A second the same day replaces the first's values.
   * Another process taking one now is a 409.
   */
  async snapshot(options: { late?: boolean } = {}): Promise<SnapshotResult> {
    const taken = await this.underLease(this.snapshotLease, () => this.takeSnapshot(options.late ?? false));
    if (!taken) throw fail('CONFLICT', 'Another dashboard process is taking the snapshot now; try again in a minute');
    await this.alertAfter(taken.value);
    return taken.value.result;
  }

  /**
   * The metric alerts over what a snapshot stored, once its lease is given back: their reads (the "why" lines) and
   * deliveries take their own time, and another process must not wait on them to take the next snapshot.
   */
  private async alertAfter(taken: { projects: string[] } | undefined): Promise<void> {
    if (!taken || taken.projects.length === 0 || this.ticker.isStopped) return;
    await this.options.afterSnapshot?.(taken.projects).catch((error: unknown) => this.options.log.warn(`history: the metric alerts after the snapshot: ${(error as Error).message}`));
  }

  /** `work` under `lease`, unless this keeper is stopping or another process holds it (undefined then). */
  private underLease<T>(lease: HeldLease, work: () => Promise<T>): Promise<{ value: T } | undefined> {
    return this.ticker.isStopped ? Promise.resolve(undefined) : lease.run(work);
  }

  /** The snapshot, and the projects it read (the metric alerts look at those once the lease is given back). */
  private async takeSnapshot(late: boolean): Promise<{ result: SnapshotResult; projects: string[] }> {
    const { store, clock, log } = this.options;
    const now = clock.now();
    const schedule = await historySchedule(store);
    const { date } = snapshotDay(schedule, now);
    const snapshots = await this.snapshots();
    // The providers' days are UTC (Search Console's Pacific): yesterday's is the last complete one.
    const to = isoDay(now - DAY);
    const lastDate = Object.keys(snapshots).filter((day) => day < date).sort().at(-1);
    const settling = addDays(to, -(SETTLING_DAYS - 1));
    const from = lastDate !== undefined && lastDate < settling ? [lastDate, addDays(to, -(CATCH_UP_DAYS - 1))].sort().at(-1) ?? settling : settling;
    const projects = await store.projects.list();
    // Nothing to take yet: the day is not recorded, so a project made later today gets today's snapshot at the next look.
    if (projects.length === 0) return { result: { date, points: 0, late, failed: [] }, projects: [] };
    const reads = this.options.reads(this.abort.signal);
    const results = await Promise.all(
      projects.map(async (project) => ({ project, ...(await readProject({ ...this.options, reads, signal: this.abort.signal }, project, { from, to, stocksOn: date })) })),
    );
    const points = results.flatMap(({ project, values }) => pointsOf(project.slug, values, 'snapshot', now, late ? { date } : undefined));
    await store.history.put(points);
    historyChanged(store);
    const failed = results.flatMap(({ project, failed }) => failed.map((failure) => ({ project: project.slug, ...failure })));
    await this.recordSnapshot(date, { at: now, late, points: points.length, failed });
    log.info(`history: snapshot of ${date}${late ? ' (late)' : ''}: ${points.length} values${failed.length ? `, ${failed.length} sources failed` : ''}`);
    return { result: { date, points: points.length, late, failed }, projects: projects.map((project) => project.slug) };
  }

  /**
   * POST /api/history/backfill, and the keeper's own when an integration is connected or changed: the days each
   * provider still keeps, read once (Plausible's and Search Console's daily series, Sentry's stats, the revenue
   * source's, Better Stack's availability, a collective's balance; deploys and reviews as far as their lists go).
   */
  async backfill(options: { project?: string | undefined; only?: (project: Project) => readonly IntegrationName[] } = {}): Promise<BackfillResult> {
    const { store } = this.options;
    if (options.project !== undefined && !(await store.projects.get(options.project))) throw fail('NOT_FOUND', `No project with the slug "${options.project}"`);
    const read = await this.underLease(this.backfillLease, () => this.readBack(options));
    if (!read) throw fail('CONFLICT', 'Another dashboard process is reading history back now; try again in a minute');
    return read.value;
  }

  private async readBack(options: { project?: string | undefined; only?: (project: Project) => readonly IntegrationName[] }): Promise<BackfillResult> {
    const { store, clock, log } = this.options;
    const now = clock.now();
    const to = isoDay(now - DAY);
    const projects = (await store.projects.list()).filter((project) => options.project === undefined || project.slug === options.project);
    const reads = this.options.reads(this.abort.signal);
    const result: BackfillResult = { points: 0, projects: [], failed: [] };
    for (const project of projects) {
      const only = new Set(options.only?.(project) ?? backfilled.filter((integration) => project.integrations[integration]));
      if (only.size === 0) continue;
      const days = Math.max(1, ...[...only].map((integration) => seriesDaysOf(project, integration)), 90);
      const { values, failed } = await readProject({ ...this.options, reads, signal: this.abort.signal }, project, {
        from: addDays(to, -(days - 1)),
        to,
        only,
        seriesFrom: (integration) => addDays(to, -(Math.max(1, seriesDaysOf(project, integration)) - 1)),
      });
      const points = pointsOf(project.slug, values, 'backfill', now);
      await store.history.put(points);
      historyChanged(store);
      result.points += points.length;
      const byMetric = new Map<string, { points: number; first: string | null }>();
      for (const point of points) {
        const seen = byMetric.get(point.metric) ?? { points: 0, first: null };
        byMetric.set(point.metric, { points: seen.points + 1, first: seen.first === null || point.date < seen.first ? point.date : seen.first });
      }
      result.projects.push({ project: project.slug, metrics: [...byMetric].map(([metric, seen]) => ({ metric: metric as BackfillResult['projects'][number]['metrics'][number]['metric'], ...seen })) });
      result.failed.push(...failed.map((failure) => ({ project: project.slug, ...failure })));
      // What was read is recorded per integration, so the keeper does not read it again until its config changes.
      const records = await this.backfills();
      const mine = { ...records[project.slug] };
      for (const integration of only) {
        const failure = failed.find((entry) => entry.integration === integration);
        mine[integration] = { config: digest(project.integrations[integration]), at: now, error: failure?.error ?? null };
      }
      await store.meta.put(BACKFILLS, { ...records, [project.slug]: mine });
      log.info(`history: read back ${points.length} values for ${project.slug}${failed.length ? ` (${failed.map((f) => f.integration).join(', ')} failed)` : ''}`);
    }
    return result;
  }

  /** The integrations of a project not read back yet with their config as it is now (or failed long enough ago). */
  private pending(project: Project, records: Backfills, now: number): IntegrationName[] {
    const mine = records[project.slug] ?? {};
    return backfilled.filter((integration) => {
      const config = project.integrations[integration];
      if (!config) return false;
      const record = mine[integration];
      if (!record || record.config !== digest(config)) return true;
      return record.error !== null && now - record.at >= BACKFILL_RETRY_MS;
    });
  }

  /**
   * Looks half a minute after the start, then at least every minute. The first page loads have the upstreams first: a
   * missed snapshot or a backfill would otherwise spend RevenueCat's five calls a minute before the revenue widget could.
   */
  start(): void {
    this.ticker.start(START_DELAY_MS);
  }

  /** A project or the schedule changed in this process: look again now. */
  kick(): void {
    this.ticker.kick();
  }

  async stop(): Promise<void> {
    // Stopped first (a look under way sees it), then what it waits on is cut short.
    const stopping = this.ticker.stop();
    this.abort.abort(new Error('The dashboard is stopping; the history was not read.'));
    await stopping;
  }

  /** Takes today's snapshot when its time has come and nobody has, then reads back what a new integration has (one look at a time). */
  tick(): Promise<void> {
    return this.ticker.tick();
  }

  private async look(): Promise<void> {
    const { store, clock } = this.options;
    const now = clock.now();
    const schedule = await historySchedule(store);
    const today = snapshotDay(schedule, now);
    if (now >= today.at && (await this.snapshots())[today.date] === undefined) {
      // Under the lease, looked at again: another process may have taken it between the look and the lease.
      const taken = await this.underLease(this.snapshotLease, async () =>
        (await this.snapshots())[today.date] === undefined ? await this.takeSnapshot(now - today.at > LATE_AFTER_MS) : undefined,
      );
      await this.alertAfter(taken?.value);
    }
    if (this.ticker.isStopped) return;
    const records = await this.backfills();
    const projects = await store.projects.list();
    const due = new Map<string, IntegrationName[]>();
    for (const project of projects) {
      const pending = this.pending(project, records, now);
      if (pending.length > 0) due.set(project.slug, pending);
    }
    if (due.size === 0) return;
    try {
      await this.backfill({ only: (project) => due.get(project.slug) ?? [] });
    } catch (error) {
      // Another process is reading back (409): its records will say so at the next look.
      if ((error as { code?: string }).code !== 'CONFLICT') throw error;
    }
  }

  private async snapshots(): Promise<Snapshots> {
    const parsed = snapshotsSchema.safeParse(await this.options.store.meta.get(SNAPSHOTS));
    return parsed.success ? parsed.data : {};
  }

  private async backfills(): Promise<Backfills> {
    const parsed = backfillsSchema.safeParse(await this.options.store.meta.get(BACKFILLS));
    return parsed.success ? parsed.data : {};
  }

  private async recordSnapshot(date: string, record: Snapshots[string]): Promise<void> {
    const snapshots = Object.fromEntries(
      Object.entries({ ...(await this.snapshots()), [date]: record })
        .sort(([a], [b]) => a.localeCompare(b))
        .slice(-KEEP_DAYS),
    );
    await this.options.store.meta.put(SNAPSHOTS, snapshots);
  }
}
