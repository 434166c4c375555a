import { randomUUID } from 'node:crypto';
import {
  backupRecordSchema,
  backupRunSchema,
  humanDuration,
  type BackupLane,
  type BackupRecord,
  type BackupRun,
  type BackupStatus,
  type BackupTrigger,
} from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import { z } from 'zod';
import type { Logger } from '../logger.ts';
import { backupPlan, specDelays, type BackupReads, type BackupTask, type LaneDelays, type LaneKey } from './plan.ts';

/** Of several dashboard processes on one database, the one holding this lease backs up. */
const LEASE = 'backup';
const LEASE_MS = 60_000;
/** Store meta keys: the backup running now (for other processes' progress bars) and the last one finished. */
const RUNNING = 'backup:running';
const LAST = 'backup:last';
/** Nobody waits on a backup: a call waits this long for its turn on an upstream's limiter rather than fail. */
const LIMITER_WAIT_MS = 10 * 60_000;
/** Never run before: the first scheduled backup comes this long after start. */
const FIRST_SCHEDULED_AFTER_MS = 60_000;

const runningRecord = backupRunSchema.extend({ holder: z.string(), updatedAt: z.number() });

/** Another dashboard process on this database is backing up now. */
export class BackupBusyError extends Error {
  constructor(readonly running: BackupRun | null) {
    super(
      running
        ? `A backup started at ${running.startedAt} is running in another dashboard process (${running.done} of ${running.total} done); its result will show in GET /api/backup.`
        : 'A backup is running in another dashboard process; its result will show in GET /api/backup.',
    );
    this.name = 'BackupBusyError';
  }
}

export interface BackupOptions {
  store: Store;
  log: Logger;
  clock: Clock;
  /**
   * What one backup asks, ending with `signal`; its calls wait up to `limiterWaitMs` for their turn on an upstream's
   * limiter rather than fail (made in the composition: a caller of the data routes over patient connections).
   */
  reads: (run: { signal: AbortSignal; limiterWaitMs: number }) => BackupReads;
  /** SPEC.md's delays unless a test shortens them. */
  delays?: Partial<LaneDelays> | undefined;
  /** BACKUP_INTERVAL: as written (`6h`) and in ms; no schedule when absent. */
  interval?: { text: string; ms: number } | undefined;
  /** BACKUP_SECRET is set: POST /api/backup takes it. */
  httpEnabled?: boolean | undefined;
}

/** A lane's calls, one at a time, each waiting until the delay after the previous one has passed. */
class Lane {
  private tail: Promise<void> = Promise.resolve();
  /** When the next call may start, ms. */
  freeAt = 0;
  /** Time spent in calls, and waiting the delay between them. */
  callMs = 0;
  delayedMs = 0;

  constructor(
    readonly key: LaneKey,
    readonly progress: BackupLane,
  ) {}

  /** Resolves with `release` when the lane is this caller's (callers are served in the order they asked). */
  acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const turn = this.tail.then(() => release);
    this.tail = this.tail.then(() => held);
    return turn;
  }
}

interface Current {
  run: BackupRun;
  promise: Promise<BackupRecord>;
  abort: AbortController;
}

/**
 * POST /api/backup, the settings page's "Refresh everything now" and BACKUP_INTERVAL: every cached answer
 * asked again through the data routes' own loaders, cache and rate limiters. Calls on one lane (a service
 * and credential) wait SPEC.md's delay between them; lanes run side by side, so a backup takes as long
 * as its slowest lane. A second request while one runs joins it; a process whose neighbour on the same
 * database runs one gets BackupBusyError with its progress.
 */
export class Backups {
  private readonly holder = randomUUID();
  private readonly delays: LaneDelays;
  private readonly createdAt: number;
  private current: Current | undefined;
  private beginning: Promise<Current> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Progress writes in the order they were made, so an older one never lands last. */
  private reports: Promise<void> = Promise.resolve();

  constructor(private readonly options: BackupOptions) {
    this.delays = { ...specDelays, ...options.delays };
    this.createdAt = options.clock.now();
  }

  /** Backs up and answers the result; joins the backup this process is running. */
  async run(trigger: BackupTrigger): Promise<BackupRecord> {
    return (await this.begin(trigger)).promise;
  }

  /** Starts a backup (or finds the one running) and answers at once with its progress. */
  async start(trigger: BackupTrigger): Promise<BackupStatus> {
    const current = await this.begin(trigger);
    current.promise.catch(() => undefined);
    return this.status();
  }

  async status(): Promise<BackupStatus> {
    const last = await this.last();
    const { interval } = this.options;
    return {
      running: this.current ? structuredClone(this.current.run) : await this.runningElsewhere(),
      last,
      schedule: interval ? { every: interval.text, nextAt: new Date(this.dueAt(last)).toISOString() } : null,
      httpEnabled: this.options.httpEnabled ?? false,
    };
  }

  /** Runs a backup whenever BACKUP_INTERVAL has passed since the last one started (in any process). */
  schedule(): void {
    const { interval } = this.options;
    if (!interval || this.timer || this.stopped) return;
    const tick = async () => {
      this.timer = undefined;
      if (this.stopped) return;
      let due = this.dueAt(await this.last().catch(() => null));
      if (due <= this.options.clock.now() && !this.current) {
        try {
          await this.run('schedule');
        } catch (error) {
          if (!(error instanceof BackupBusyError) && !this.stopped) this.options.log.warn(`scheduled backup failed: ${(error as Error).message}`);
        }
        due = this.dueAt(await this.last().catch(() => null));
      }
      if (this.stopped) return;
      const wait = Math.min(Math.max(due - this.options.clock.now(), 1_000), 60_000);
      this.timer = setTimeout(() => void tick(), wait);
      this.timer.unref();
    };
    this.timer = setTimeout(() => void tick(), 0);
    this.timer.unref();
  }

  /** Ends the schedule and a running backup (the context is being replaced or the process stops). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const current = this.current ?? (await this.beginning?.catch(() => undefined));
    current?.abort.abort(new Error('The dashboard is stopping; the backup was cut short.'));
    await current?.promise.catch(() => undefined);
  }

  private dueAt(last: BackupRecord | null): number {
    const every = this.options.interval?.ms ?? Number.POSITIVE_INFINITY;
    return last ? Date.parse(last.startedAt) + every : this.createdAt + Math.min(every, FIRST_SCHEDULED_AFTER_MS);
  }

  private async last(): Promise<BackupRecord | null> {
    const parsed = backupRecordSchema.safeParse(await this.options.store.meta.get(LAST));
    return parsed.success ? parsed.data : null;
  }

  /** The backup another process reports, while its reports are recent. */
  private async runningElsewhere(): Promise<BackupRun | null> {
    const parsed = runningRecord.safeParse(await this.options.store.meta.get(RUNNING));
    if (!parsed.success || parsed.data.holder === this.holder || parsed.data.updatedAt < this.options.clock.now() - LEASE_MS) return null;
    const { holder: _holder, updatedAt: _updatedAt, ...run } = parsed.data;
    return run;
  }

  private begin(trigger: BackupTrigger): Promise<Current> {
    if (this.current) return Promise.resolve(this.current);
    this.beginning ??= this.open(trigger).finally(() => (this.beginning = undefined));
    return this.beginning;
  }

  private async open(trigger: BackupTrigger): Promise<Current> {
    if (this.stopped) throw new Error('The dashboard is stopping; no backup was started.');
    const { store, clock } = this.options;
    const startedAt = clock.now();
    if (!(await store.leases.acquire(LEASE, this.holder, LEASE_MS, new Date(startedAt).toISOString()))) {
      throw new BackupBusyError(await this.runningElsewhere());
    }
    let tasks: BackupTask[];
    try {
      tasks = backupPlan(await store.projects.list(), this.delays);
    } catch (error) {
      await store.leases.release(LEASE, this.holder).catch(() => undefined);
      throw error;
    }
    const lanes = new Map<string, Lane>();
    for (const task of tasks) {
      for (const key of task.lanes) {
        const lane = lanes.get(key.id) ?? new Lane(key, { label: key.label, delayMs: key.delayMs, done: 0, total: 0, state: 'waiting', current: null });
        lane.progress.total += 1;
        lanes.set(key.id, lane);
      }
    }
    const run: BackupRun = {
      startedAt: new Date(startedAt).toISOString(),
      trigger,
      done: 0,
      total: tasks.length,
      failed: 0,
      lanes: [...lanes.values()].map((lane) => lane.progress),
    };
    const abort = new AbortController();
    const reads = this.options.reads({ signal: abort.signal, limiterWaitMs: LIMITER_WAIT_MS });
    // The lease is renewed (and the progress reported) while the backup runs, also through a long wait on one lane.
    const renew = setInterval(() => void this.report(run, true), LEASE_MS / 3);
    renew.unref();
    const promise = this.execute(reads, tasks, lanes, run, abort.signal).finally(async () => {
      clearInterval(renew);
      this.current = undefined;
      await store.meta.put(RUNNING, null).catch(() => undefined);
      await store.leases.release(LEASE, this.holder).catch(() => undefined);
    });
    this.current = { run, promise, abort };
    return this.current;
  }

  private async execute(reads: BackupReads, tasks: BackupTask[], lanes: Map<string, Lane>, run: BackupRun, signal: AbortSignal): Promise<BackupRecord> {
    const { clock, log, store } = this.options;
    await this.report(run, false);
    const errors: (BackupRecord['errors'][number] & { order: number })[] = [];
    let refreshed = 0;
    await Promise.all(
      tasks.map(async (task, order) => {
        // Lanes are taken in one global order, so two tasks sharing two lanes never wait on each other.
        const held = task.lanes.map((key) => lanes.get(key.id) as Lane).sort((a, b) => a.key.id.localeCompare(b.key.id));
        const releases: (() => void)[] = [];
        try {
          for (const lane of held) releases.push(await lane.acquire());
          const waitedFrom = clock.now();
          const wait = Math.max(...held.map((lane) => lane.freeAt)) - waitedFrom;
          if (wait > 0) await clock.sleep(wait, signal);
          signal.throwIfAborted();
          const callFrom = clock.now();
          for (const lane of held) lane.delayedMs += Math.max(0, Math.min(lane.freeAt, callFrom) - waitedFrom);
          for (const lane of held) Object.assign(lane.progress, { state: 'running', current: `${task.project.name} · ${task.label}` });
          try {
            await task.run(reads);
            refreshed += 1;
          } catch (error) {
            signal.throwIfAborted();
            errors.push({ order, project: task.project.slug, integration: task.integration, error: reasonOf(error, task) });
            run.failed += 1;
          } finally {
            const callEnd = clock.now();
            for (const lane of held) {
              lane.callMs += callEnd - callFrom;
              lane.freeAt = callEnd + lane.key.delayMs;
              lane.progress.done += 1;
              Object.assign(lane.progress, { current: null, state: lane.progress.done === lane.progress.total ? 'done' : 'waiting' });
            }
          }
          run.done += 1;
          void this.report(run, false);
        } finally {
          for (const release of releases) release();
        }
      }),
    );
    const finishedAt = clock.now();
    const record: BackupRecord = {
      refreshed,
      failed: errors.length,
      duration: humanDuration(finishedAt - Date.parse(run.startedAt)),
      errors: errors.sort((a, b) => a.order - b.order).map(({ order: _order, ...error }) => error),
      startedAt: run.startedAt,
      finishedAt: new Date(finishedAt).toISOString(),
      trigger: run.trigger,
      lanes: [...lanes.values()].map((lane) => ({ label: lane.key.label, calls: lane.progress.done, callMs: lane.callMs, delayMs: lane.delayedMs })),
    };
    await store.meta.put(LAST, record);
    log.info(`backup (${run.trigger}): ${record.refreshed} refreshed, ${record.failed} failed, in ${record.duration}`);
    return record;
  }

  /** Writes the progress where other processes read it; with `renew`, keeps the lease too. */
  private report(run: BackupRun, renew: boolean): Promise<void> {
    const snapshot = structuredClone(run);
    this.reports = this.reports.then(() => this.write(snapshot, renew));
    return this.reports;
  }

  private async write(run: BackupRun, renew: boolean): Promise<void> {
    const { store, clock, log } = this.options;
    try {
      const now = clock.now();
      if (renew && !(await store.leases.acquire(LEASE, this.holder, LEASE_MS, new Date(now).toISOString()))) {
        log.warn('backup: the lease was lost to another process (this one was too slow to renew it)');
      }
      await store.meta.put(RUNNING, { ...run, holder: this.holder, updatedAt: now });
    } catch (error) {
      log.warn(`backup: its progress could not be stored: ${(error as Error).message}`);
    }
  }
}

/** The upstream's reason, without the project's name the data routes put first (the result names the project). */
function reasonOf(error: unknown, task: BackupTask): string {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message.startsWith(`${task.project.name}: `) ? message.slice(task.project.name.length + 2) : message;
  return task.label.includes('(') ? `${task.label}: ${reason}` : reason;
}
