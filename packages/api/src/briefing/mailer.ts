import {
  briefingScheduleSchema,
  briefingSettingsSchema,
  defaultBriefingSchedule,
  type AlertResult,
  type Briefing,
  type BriefingSchedule,
  type BriefingScheduleInput,
  type BriefingSettings,
} from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import type { Store } from '@dash/db';
import { z } from 'zod';
import { EmailRefusedError, type Alerts, type Email } from '../alerts/index.ts';
import { BackupBusyError, type Backups } from '../backup/runner.ts';
import type { Logger } from '../logger.ts';
import type { PolicySettings } from '../notifications/policy/settings.ts';
import { briefingThresholds, composeBriefing, recordSnapshots, type BriefingSources } from './briefing.ts';
import { briefingEmail, withParts } from './email.ts';
import { nextAttemptAt, pending, RETRY_MS, withDay } from './once-a-day.ts';
import { ScheduledSender } from './scheduled-sender.ts';
import { dueOccurrence, lastOccurrence, LATE_LIMIT_MS, type Occurrence } from './schedule.ts';

/**
 * The briefing email: its schedule (a local time on chosen weekdays, off by default, offered once SendGrid is set
 * up), the email as it would be sent now, a test send, and the sender that wakes at the chosen time, refreshes
 * everything through the backup's lanes, then composes, renders and sends the briefing, exactly once per scheduled
 * day across restarts and several processes: a named lease makes one process do it, and a record per local date
 * (kept in the store's meta) makes every later look at that day (a restart, another process) do nothing.
 */

const SCHEDULE = 'briefing.schedule';
/** When the schedule was last saved (ms): a day whose time had passed by then is not sent late. */
const SAVED_AT = 'briefing.schedule.savedAt';
/** The sender's own record: each scheduled day's outcome, the last email, and the window it covered. */
const STATE = 'briefing.email';
const LEASE = 'briefing-email';
const DAY = 86_400_000;
/** Attempts per day; a retryable failure (429, 5xx, SendGrid unreachable) is tried again after these delays. */
export const BRIEFING_ATTEMPTS = 3;
/** A backup another process is running is waited for this long at most, looked at every `BACKUP_POLL_MS`. */
const BACKUP_WAIT_MS = 15 * 60_000;
const BACKUP_POLL_MS = 5_000;

const dayRecordSchema = z.object({
  /** `sending` is written just before SendGrid is asked: found later, the process sending it stopped midway. */
  status: z.enum(['sending', 'sent', 'failed', 'paused', 'skipped']),
  attempts: z.number().int().nonnegative(),
  /** When it was sent, failed or found paused, ms. */
  at: z.number(),
  /** The end of the window the email covered (ISO); null when nothing was composed. */
  until: z.string().nullable(),
  /** SendGrid's X-Message-Id. */
  id: z.string().nullable(),
  error: z.string().nullable(),
  /** When a failed send is tried again (ms); null: not again that day. */
  retryAt: z.number().nullable(),
});
type DayRecord = z.infer<typeof dayRecordSchema>;

const stateSchema = z.object({
  days: z.record(z.string(), dayRecordSchema),
  lastSent: briefingSettingsSchema.shape.lastSent,
  /** The end of the last delivered email's window: the next one starts there. */
  deliveredUntil: z.string().nullable(),
});
type MailerState = z.infer<typeof stateSchema>;

/** Bad input that zod cannot see (it depends on the store): a 400 naming the field, nothing stored. */
export class BriefingInputError extends Error {
  constructor(
    readonly path: (string | number)[],
    message: string,
  ) {
    super(message);
    this.name = 'BriefingInputError';
  }
}

/** The schedule as saved (the default, off, when none is or what is stored no longer fits), and when it was saved. */
export async function briefingSchedule(store: Store): Promise<{ schedule: BriefingSchedule; savedAt: number }> {
  const [stored, savedAt] = await Promise.all([store.meta.get(SCHEDULE), store.meta.get(SAVED_AT)]);
  const parsed = briefingScheduleSchema.safeParse(stored);
  return { schedule: parsed.success ? parsed.data : defaultBriefingSchedule, savedAt: typeof savedAt === 'number' ? savedAt : 0 };
}

async function mailerState(store: Store): Promise<MailerState> {
  const parsed = stateSchema.safeParse(await store.meta.get(STATE));
  return parsed.success ? parsed.data : { days: {}, lastSent: null, deliveredUntil: null };
}

/** When the next send will be tried (ms), or null while the schedule is off. */
function nextSendAt(schedule: BriefingSchedule, savedAt: number, state: MailerState, now: number): number | null {
  return nextAttemptAt(schedule, dueOccurrence(schedule, now, savedAt), state.days, now);
}

/** What one look at the schedule did. */
export interface TickOutcome {
  action: 'off' | 'waiting' | 'done' | 'busy' | 'sent' | 'failed' | 'paused' | 'skipped';
  /** The local date of the scheduled day it looked at. */
  date?: string;
  /** SendGrid's message id, or why it failed. */
  id?: string;
  error?: string;
}

/** What the briefing email uses: what a briefing reads, and SendGrid, the backup, the pause, the dashboard's address. */
export interface BriefingMailerOptions extends BriefingSources {
  clock: Clock;
  log: Logger;
  /** SendGrid: whether it is set up, and the send. */
  alerts: Pick<Alerts, 'config' | 'send' | 'status'>;
  /** The refresh before the email (a backup run), and whether another process is running one. */
  backup: Pick<Backups, 'run' | 'status'>;
  /** The notifications' pause ("nothing until then") holds the email too. */
  policy: Pick<PolicySettings, 'get'>;
  /** The dashboard's public origin, for the email's links. */
  origin: string | undefined;
}

/** The scheduled sender of one dashboard process (see the module's comment). */
export class BriefingMailer extends ScheduledSender<TickOutcome> {
  constructor(private readonly options: BriefingMailerOptions) {
    super(options, { lease: LEASE, label: 'briefing email', stopped: 'The dashboard is stopping; the briefing email was not sent.' });
  }

  /** The briefing settings page's view: thresholds, the schedule, whether email can be offered, the next and last sends. */
  async settings(): Promise<BriefingSettings> {
    const { store, alerts, clock } = this.options;
    const [thresholds, { schedule, savedAt }, state, email] = await Promise.all([briefingThresholds(store), briefingSchedule(store), mailerState(store), alerts.status()]);
    const next = nextSendAt(schedule, savedAt, state, clock.now());
    return { thresholds, schedule, emailAvailable: email.configured, nextSendAt: next === null ? null : new Date(next).toISOString(), lastSent: state.lastSent };
  }

  /** Saves the schedule; turning it on needs email set up (else BriefingInputError on `enabled`, nothing stored). */
  async saveSchedule(input: BriefingScheduleInput): Promise<BriefingSettings> {
    const { store, alerts, clock } = this.options;
    const schedule = briefingScheduleSchema.parse(input);
    if (schedule.enabled && !(await alerts.status()).configured) {
      throw new BriefingInputError(
        ['enabled'],
        'the briefing email needs email set up (SendGrid: Settings → Refresh & alerts, or SENDGRID_API_KEY, ALERT_EMAIL_FROM and ALERT_EMAIL_TO) before it can be turned on',
      );
    }
    // The time first: a schedule never applies with an older save time (which could send a past hour at once).
    await store.meta.put(SAVED_AT, clock.now());
    await store.meta.put(SCHEDULE, schedule);
    this.kick();
    return this.settings();
  }

  /** GET /api/briefing/preview: the email as it would be sent now. */
  async preview(signal?: AbortSignal): Promise<Email> {
    const { store } = this.options;
    const [{ schedule }, state] = await Promise.all([briefingSchedule(store), mailerState(store)]);
    return (await this.compose(schedule, state, signal)).email;
  }

  /**
   * POST /api/briefing/test: the preview, sent now to the configured addresses. It records nothing: the scheduled
   * email's window and its day are untouched. Throws EmailRefusedError with SendGrid's reason when it refuses.
   */
  async sendTest(signal?: AbortSignal): Promise<AlertResult> {
    const { alerts } = this.options;
    if (!(await alerts.config())) return { configured: false };
    const email = await this.preview(signal);
    return alerts.send({ ...email, categories: ['briefing', 'test'] });
  }

  /**
   * The briefing and its email as they would go out now: the window starts where the last delivered email's ended
   * (at least the last 24 hours; the app's own "read" is the page's, not the email's), read from the cache as it is.
   */
  private async compose(schedule: BriefingSchedule, state: MailerState, signal?: AbortSignal): Promise<{ briefing: Briefing; email: Email }> {
    const now = this.options.clock.now();
    const delivered = state.deliveredUntil === null ? Number.NaN : Date.parse(state.deliveredUntil);
    // A weekly email covers the week before it; a daily one the days since the last (at least the last 24 hours).
    const since = schedule.period === 'week' ? now - 7 * DAY : Math.min(Number.isFinite(delivered) ? delivered : now, now - DAY);
    const briefing = await composeBriefing(this.options, { project: undefined, since: new Date(since).toISOString(), period: schedule.period }, signal);
    return { briefing, email: briefingEmail(withParts(briefing, schedule.parts), { origin: this.options.origin, timezone: schedule.timezone }) };
  }

  /** When the next send is tried, or null while the schedule is off. */
  protected async nextDue(): Promise<number | null> {
    const { store, clock } = this.options;
    const [{ schedule, savedAt }, state] = await Promise.all([briefingSchedule(store), mailerState(store)]);
    return nextSendAt(schedule, savedAt, state, clock.now());
  }

  /** Sends today's briefing when it is due and nobody has. */
  protected async look(): Promise<TickOutcome> {
    const { store } = this.options;
    const { schedule, savedAt } = await briefingSchedule(store);
    const now = this.options.clock.now();
    const due = dueOccurrence(schedule, now, savedAt);
    if (!due) return schedule.enabled ? await this.skipMissed(schedule, savedAt, now) : { action: 'off' };
    const record = (await mailerState(store)).days[due.date];
    // A day left `sending` is looked at under the lease: its sender holds it while alive, and if it is gone, says so.
    if (!pending(record, now) && record?.status !== 'sending') return { action: 'done', date: due.date };
    // Held while it works (a refresh waits on RevenueCat's limiter for minutes); given up when done.
    const sent = this.ticker.isStopped ? undefined : await this.lease.run(() => this.sendDue(schedule, due));
    return sent?.value ?? { action: 'busy', date: due.date };
  }

  /**
   * A scheduled day whose time passed more than `LATE_LIMIT_MS` ago with nothing sent (the dashboard was off): recorded
   * as skipped, once, so the settings say so instead of the email silently not coming.
   */
  private async skipMissed(schedule: BriefingSchedule, savedAt: number, now: number): Promise<TickOutcome> {
    const { store, log } = this.options;
    const missed = lastOccurrence(schedule, now);
    if (!missed || missed.at < savedAt || now - missed.at <= LATE_LIMIT_MS || (await mailerState(store)).days[missed.date] !== undefined) return { action: 'waiting' };
    const recorded = await this.lease.run(async () => {
      const state = await mailerState(store);
      if (state.days[missed.date] !== undefined) return false;
      const at = new Date(this.options.clock.now()).toISOString();
      const error = `Not sent: the dashboard was not running at ${new Date(missed.at).toISOString().slice(11, 16)} UTC on ${missed.date}, and a briefing more than 6 hours late is skipped.`;
      await this.record(store, { ...state, lastSent: { at, until: at, status: 'skipped', error } }, missed.date, { status: 'skipped', attempts: 0, at: Date.parse(at), until: null, id: null, error, retryAt: null });
      log.info(`briefing email for ${missed.date}: ${error}`);
      return true;
    });
    return recorded?.value ? { action: 'skipped', date: missed.date } : { action: 'waiting' };
  }

  /** Under the lease: today's send, unless another process did it meanwhile, the pause is on, or email went away. */
  private async sendDue(schedule: BriefingSchedule, due: Occurrence): Promise<TickOutcome> {
    const { clock, log, store, alerts, policy } = this.options;
    const { date } = due;
    let state = await mailerState(store);
    const before = state.days[date];
    if (before?.status === 'sending') {
      // The process sending it stopped midway (its lease ran out): SendGrid may have taken it, so it is not sent twice.
      const error = 'The dashboard process sending it stopped midway; it is not sent again, in case SendGrid took it.';
      await this.record(store, state, date, { ...before, status: 'failed', error, retryAt: null });
      return { action: 'done', date };
    }
    if (!pending(before, clock.now())) return { action: 'done', date };

    const { pauseUntil } = (await policy.get()).quietHours;
    const pausedUntil = pauseUntil === null ? Number.NaN : Date.parse(pauseUntil);
    if (pausedUntil > clock.now()) {
      // The pause is "nothing until then": that day's email is not sent (the next one covers the days since the last).
      await this.record(store, state, date, { status: 'paused', attempts: before?.attempts ?? 0, at: clock.now(), until: null, id: null, error: null, retryAt: null });
      log.info(`briefing email for ${date}: not sent, notifications are paused until ${new Date(pausedUntil).toISOString()}`);
      return { action: 'paused', date };
    }
    const attempts = (before?.attempts ?? 0) + 1;
    if (!(await alerts.config())) return this.failed(store, state, date, attempts, null, 'Email is not set up (SendGrid): the briefing was not sent.', false);

    // Fresh numbers first, once a day: every cached answer asked again through the backup's lanes.
    if (attempts === 1) await this.refresh();
    if (this.ticker.isStopped) return { action: 'busy', date };
    // A refresh can outlast the lease on a slow day; if another process took it over, the day is that process's.
    if (!(await this.lease.acquire())) return { action: 'busy', date };
    state = await mailerState(store);
    if (!pending(state.days[date], clock.now())) return { action: 'done', date };

    const { briefing, email } = await this.compose(schedule, state, this.abort.signal);
    const until = briefing.window.until;
    state = await this.record(store, state, date, { status: 'sending', attempts, at: clock.now(), until, id: null, error: null, retryAt: null });
    try {
      const result = await alerts.send(email);
      if (!('sent' in result)) return await this.failed(store, state, date, attempts, until, 'Email is not set up (SendGrid): the briefing was not sent.', false);
      const at = clock.now();
      state = { ...state, lastSent: { at: new Date(at).toISOString(), until, status: 'sent', error: null }, deliveredUntil: until };
      await this.record(store, state, date, { status: 'sent', attempts, at, until, id: result.id, error: null, retryAt: null });
      log.info(`briefing email for ${date} sent (${result.id || 'no message id'})`);
      // The figures it showed are what the next briefing compares with (the app's "read" stays the app's).
      await recordSnapshots(this.options, this.abort.signal).catch((error: unknown) => log.warn(`briefing email: today's figures were not kept: ${(error as Error).message}`));
      return { action: 'sent', date, id: result.id };
    } catch (error) {
      if (!(error instanceof EmailRefusedError)) log.error(`briefing email for ${date}: ${(error as Error).message}`);
      const reason = error instanceof EmailRefusedError ? error.message : 'The email could not be sent; the server log has the details.';
      return this.failed(store, state, date, attempts, until, reason, error instanceof EmailRefusedError && error.retryable);
    }
  }

  private async failed(store: Store, state: MailerState, date: string, attempts: number, until: string | null, error: string, retryable: boolean): Promise<TickOutcome> {
    const at = this.options.clock.now();
    const later = retryable && attempts < BRIEFING_ATTEMPTS ? RETRY_MS[attempts - 1] : undefined;
    const next: MailerState = { ...state, lastSent: { at: new Date(at).toISOString(), until: until ?? new Date(at).toISOString(), status: 'failed', error } };
    await this.record(store, next, date, { status: 'failed', attempts, at, until, id: null, error, retryAt: later === undefined ? null : at + later });
    this.options.log.warn(`briefing email for ${date} failed (attempt ${attempts}${later === undefined ? ', not tried again today' : ''}): ${error}`);
    return { action: 'failed', date, error };
  }

  /** Writes a day's record (the newest `KEEP_DAYS` days are kept); answers the state as written. */
  private async record(store: Store, state: MailerState, date: string, record: DayRecord): Promise<MailerState> {
    const next = { ...state, days: withDay(state.days, date, record) };
    await store.meta.put(STATE, next);
    return next;
  }

  /**
   * Every cached answer asked again through the backup's lanes (POST /api/backup's run, trigger `briefing`). A backup
   * another process is running is waited for instead; a refresh that fails leaves the briefing to the cache as it is.
   */
  private async refresh(): Promise<void> {
    const { clock, log, backup } = this.options;
    try {
      const result = await backup.run('briefing');
      if (result.failed > 0) log.info(`briefing email: ${result.failed} answers could not be refreshed; the briefing uses what is cached`);
    } catch (error) {
      if (!(error instanceof BackupBusyError)) {
        log.warn(`briefing email: the refresh before it failed (${(error as Error).message}); the briefing uses what is cached`);
        return;
      }
      const until = clock.now() + BACKUP_WAIT_MS;
      try {
        while (clock.now() < until && (await backup.status()).running !== null) {
          await clock.sleep(BACKUP_POLL_MS, this.abort.signal);
          await this.lease.acquire();
        }
      } catch (waiting) {
        if (!this.ticker.isStopped) log.warn(`briefing email: waiting for the backup of another process failed: ${(waiting as Error).message}`);
      }
    }
  }
}
