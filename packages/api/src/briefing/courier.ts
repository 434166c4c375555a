import {
  briefingDestinationSettingsSchema,
  briefingSendRecordSchema,
  defaultBriefingDestinationSettings,
  weekdays,
  type BriefingCadence,
  type BriefingDestinations,
  type BriefingDestinationSettings,
  type BriefingMedium,
  type BriefingPart,
  type BriefingPeriod,
  type BriefingSendRecord,
  type Briefing,
  type SendBriefingResult,
} from '@dash/contracts';
import type { Clock } from '@dash/connectors';
import { z } from 'zod';
import type { Logger } from '../logger.ts';
import type { PolicySettings } from '../notifications/policy/settings.ts';
import { composeBriefing, type BriefingSources } from './briefing.ts';
import { BriefingInputError } from './mailer.ts';
import { nextAttemptAt, pending, RETRY_MS, withDay } from './once-a-day.ts';
import { ScheduledSender } from './scheduled-sender.ts';
import { lastOccurrence, LATE_LIMIT_MS, type BriefingSchedule, type Occurrence } from './schedule.ts';

/**
 * The briefing on the owner's chat connections and push devices (issue 52): each destination on a schedule of its own
 * (off, daily at a time, weekly on a day at a time, in the owner's time zone: their quiet hours'), with the parts it
 * chooses, rendered for its medium from the one briefing model. Each scheduled briefing goes once per destination and
 * period, across restarts and processes, as the email does: one process looks under a named lease, and a record per
 * destination and scheduled day (in the store's meta) makes every later look at that day do nothing. A long briefing
 * is several messages on some media (Discord's ten embeds, Telegram's 4,096 characters): each is recorded as posted
 * before the next goes, and the process posts only while it still holds the lease, so none goes twice and none out of
 * order. A briefing more than six hours late (the machine was off) is skipped, and its record says so.
 */

const SETTINGS = 'briefing.destinations';
const STATE = 'briefing.destinations.sent';
const LEASE = 'briefing-destinations';
const DAY = 86_400_000;

/** A place the briefing can go, as the composition knows it: its id, medium and name, and whether it can be reached. */
export interface BriefingTarget {
  id: string;
  medium: Exclude<BriefingMedium, 'email'>;
  name: string;
}

/** How one message of a briefing went. */
export type PostOutcome = { kind: 'sent' } | { kind: 'retry' | 'refused'; reason: string };

/** What the courier needs of the channels: the destinations there are, each medium's rendering, and one post. */
export interface BriefingMedia {
  targets(): Promise<BriefingTarget[]>;
  render(target: BriefingTarget, input: { briefing: Briefing; parts: readonly BriefingPart[]; period: BriefingPeriod; origin: string | null; timezone: string }): unknown[];
  post(target: BriefingTarget, message: unknown): Promise<PostOutcome>;
}

export interface BriefingCourierOptions extends BriefingSources {
  clock: Clock;
  log: Logger;
  media: BriefingMedia;
  /** The owner's time zone and the notifications' pause (nothing until then holds the briefing too). */
  policy: Pick<PolicySettings, 'get'>;
  origin: string | undefined;
}

const storedSettingsSchema = z.record(z.string(), briefingDestinationSettingsSchema.extend({ savedAt: z.number() }));
type StoredSettings = z.infer<typeof storedSettingsSchema>;
const recordSchema = briefingSendRecordSchema.extend({ retryAt: z.number().nullable().default(null), attempts: z.number().int().default(1) });
type SendRecord = z.infer<typeof recordSchema>;
const stateSchema = z.record(z.string(), z.record(z.string(), recordSchema));
type CourierState = z.infer<typeof stateSchema>;

/** The period a cadence's briefing covers. */
export const periodOf = (cadence: BriefingCadence): BriefingPeriod => (cadence.every === 'week' ? 'week' : 'day');

/** A cadence as the email's schedule shape, so one set of rules (daylight saving, the gap, the repeated hour) serves both. */
export function scheduleOf(cadence: BriefingCadence, timezone: string): BriefingSchedule {
  if (cadence.every === 'off') return { enabled: false, time: '08:00', timezone, days: [...weekdays] };
  return { enabled: true, time: cadence.time, timezone, days: cadence.every === 'week' ? [cadence.day] : [...weekdays] };
}

async function storedSettings(sources: Pick<BriefingSources, 'store'>): Promise<StoredSettings> {
  const parsed = storedSettingsSchema.safeParse(await sources.store.meta.get(SETTINGS));
  return parsed.success ? parsed.data : {};
}

async function courierState(sources: Pick<BriefingSources, 'store'>): Promise<CourierState> {
  const parsed = stateSchema.safeParse(await sources.store.meta.get(STATE));
  return parsed.success ? parsed.data : {};
}

const publicRecord = ({ retryAt: _retryAt, attempts: _attempts, ...record }: SendRecord): BriefingSendRecord => record;

/** What one look did, per destination it looked at: for the tests and the log. */
export interface CourierOutcome {
  sent: string[];
  failed: string[];
  skipped: string[];
  busy: boolean;
}

export class BriefingCourier extends ScheduledSender<CourierOutcome> {
  constructor(private readonly options: BriefingCourierOptions) {
    super(options, { lease: LEASE, label: 'briefing', stopped: 'The dashboard is stopping; the briefing was not sent.' });
  }

  private async timezone(): Promise<string> {
    return (await this.options.policy.get()).quietHours.timezone;
  }

  /** Settings → Briefing's list: every chat connection and push device, its schedule and parts, its next and last send. */
  async destinations(): Promise<BriefingDestinations> {
    const [targets, settings, state, timezone] = await Promise.all([this.options.media.targets(), storedSettings(this.options), courierState(this.options), this.timezone()]);
    const now = this.options.clock.now();
    return {
      timezone,
      destinations: targets.map((target) => {
        const saved = settings[target.id];
        const { cadence, parts } = saved ?? defaultBriefingDestinationSettings;
        const records = state[target.id] ?? {};
        const last = Object.keys(records).sort().at(-1);
        const next = this.nextFor(scheduleOf(cadence, timezone), records, now, saved?.savedAt);
        return {
          id: target.id,
          medium: target.medium,
          name: target.name,
          cadence,
          parts,
          nextAt: next === null ? null : new Date(next).toISOString(),
          last: last === undefined ? null : publicRecord(records[last] as SendRecord),
        };
      }),
    };
  }

  /** Saves one destination's schedule and parts (a destination there is not: BriefingInputError, a 400); the next look applies it. */
  async save(id: string, settings: BriefingDestinationSettings): Promise<BriefingDestinations> {
    const { store, clock } = this.options;
    if (!(await this.options.media.targets()).some((target) => target.id === id)) throw new BriefingInputError(['id'], `No chat connection or push device "${id}" to send the briefing to`);
    const stored = await storedSettings(this.options);
    // Saved now: a time already past today starts at the next one, never a briefing at once.
    await store.meta.put(SETTINGS, { ...stored, [id]: { ...settings, savedAt: clock.now() } });
    this.kick();
    return this.destinations();
  }

  /** The briefing now, to one destination (POST /api/briefing/send): nothing recorded against its schedule. */
  async sendNow(id: string, period: BriefingPeriod): Promise<SendBriefingResult> {
    const target = (await this.options.media.targets()).find((candidate) => candidate.id === id);
    if (!target) throw new BriefingInputError(['destination'], `No chat connection or push device "${id}" to send the briefing to`);
    const { parts } = (await storedSettings(this.options))[id] ?? defaultBriefingDestinationSettings;
    const [briefing, timezone] = await Promise.all([this.compose(period, this.options.clock.now(), this.abort.signal), this.timezone()]);
    const messages = this.options.media.render(target, { briefing, parts, period, origin: this.options.origin ?? null, timezone });
    let posted = 0;
    for (const message of messages) {
      const outcome = await this.options.media.post(target, message);
      if (outcome.kind !== 'sent') throw new BriefingSendError(outcome.reason, posted, messages.length);
      posted += 1;
    }
    return { destination: target.id, posted, messages: messages.length };
  }

  /** The next instant a look has something to do, or null when every destination is off. */
  protected async nextDue(): Promise<number | null> {
    const [settings, state, timezone] = await Promise.all([storedSettings(this.options), courierState(this.options), this.timezone()]);
    const now = this.options.clock.now();
    const nexts = Object.entries(settings)
      .map(([id, { cadence, savedAt }]) => this.nextFor(scheduleOf(cadence, timezone), state[id] ?? {}, now, savedAt))
      .filter((at): at is number => at !== null);
    return nexts.length === 0 ? null : Math.min(...nexts);
  }

  /** When a destination's next send is tried: its last scheduled day while at most six hours late (and saved before it), else the next. */
  private nextFor(schedule: BriefingSchedule, records: Record<string, SendRecord>, now: number, savedAt = 0): number | null {
    const last = lastOccurrence(schedule, now);
    const due = last && last.at >= savedAt && now - last.at <= LATE_LIMIT_MS ? last : undefined;
    return nextAttemptAt(schedule, due, records, now);
  }

  /** What is due now, per destination: its scheduled day, unless done, or skipped when it is over six hours late. */
  private async due(now: number): Promise<{ target: BriefingTarget; occurrence: Occurrence; settings: BriefingDestinationSettings; missed: boolean }[]> {
    const [targets, settings, state, timezone] = await Promise.all([this.options.media.targets(), storedSettings(this.options), courierState(this.options), this.timezone()]);
    return targets.flatMap((target) => {
      const saved = settings[target.id];
      if (!saved) return [];
      const occurrence = lastOccurrence(scheduleOf(saved.cadence, timezone), now);
      // Saved after its time: it starts at the next one.
      if (!occurrence || occurrence.at < saved.savedAt) return [];
      const record = state[target.id]?.[occurrence.date];
      if (!pending(record, now) && record?.status !== 'sending') return [];
      return [{ target, occurrence, settings: saved, missed: record === undefined && now - occurrence.at > LATE_LIMIT_MS }];
    });
  }

  protected async look(): Promise<CourierOutcome> {
    const outcome: CourierOutcome = { sent: [], failed: [], skipped: [], busy: false };
    if ((await this.due(this.options.clock.now())).length === 0) return outcome;
    const ran = this.ticker.isStopped ? undefined : await this.lease.run(() => this.sendDue(outcome));
    return ran?.value ?? { ...outcome, busy: true };
  }

  /** Under the lease: what is still due once looked at again (another process may have sent it meanwhile). */
  private async sendDue(outcome: CourierOutcome): Promise<CourierOutcome> {
    const { clock, log, policy } = this.options;
    const now = clock.now();
    const due = await this.due(now);
    const { pauseUntil } = (await policy.get()).quietHours;
    const paused = pauseUntil !== null && Date.parse(pauseUntil) > now;
    const timezone = await this.timezone();
    const briefings = new Map<BriefingPeriod, Promise<Briefing>>();
    for (const { target, occurrence, settings, missed } of due) {
      const period = periodOf(settings.cadence);
      const state = await courierState(this.options);
      const before = state[target.id]?.[occurrence.date];
      const base = { date: occurrence.date, period, posted: before?.posted ?? 0, messages: before?.messages ?? 0, retryAt: null, attempts: (before?.attempts ?? 0) + 1 };
      if (before?.status === 'sending') {
        // The process sending it stopped midway (its lease ran out): the message it was posting may have gone, so
        // nothing of it goes twice; the rest is not sent either (a briefing with a gap would mislead).
        const error = `The dashboard process sending it stopped after ${before.posted} of ${before.messages} messages; the rest is not sent, in case the service took the next one.`;
        await this.record(target.id, { ...before, status: 'failed', at: new Date(clock.now()).toISOString(), error, retryAt: null });
        outcome.failed.push(target.id);
        continue;
      }
      if (missed || paused) {
        const error = missed
          ? `Not sent: the dashboard was not running at ${occurrence.date} ${new Date(occurrence.at).toISOString().slice(11, 16)} UTC, and a briefing more than 6 hours late is skipped.`
          : `Not sent: notifications were paused until ${pauseUntil ?? ''}.`;
        await this.record(target.id, { ...base, status: 'skipped', at: new Date(clock.now()).toISOString(), error });
        log.info(`briefing to ${target.name}: ${error}`);
        outcome.skipped.push(target.id);
        continue;
      }
      let briefing = briefings.get(period);
      if (!briefing) {
        briefing = this.compose(period, occurrence.at, this.abort.signal);
        briefings.set(period, briefing);
      }
      const messages = this.options.media.render(target, { briefing: await briefing, parts: settings.parts, period, origin: this.options.origin ?? null, timezone });
      const sent = await this.post(target, messages, { ...base, posted: 0, messages: messages.length });
      (sent ? outcome.sent : outcome.failed).push(target.id);
    }
    return outcome;
  }

  /** Posts a briefing's messages in order, each recorded before the next; stops when the lease is lost. */
  private async post(target: BriefingTarget, messages: unknown[], record: Omit<SendRecord, 'status' | 'at' | 'error'>): Promise<boolean> {
    const { clock, log } = this.options;
    let posted = 0;
    for (const message of messages) {
      // Only while this process still holds the claim: another may have taken the lease over after a long wait.
      if (this.ticker.isStopped || !(await this.lease.acquire())) return false;
      await this.record(target.id, { ...record, posted, status: 'sending', at: new Date(clock.now()).toISOString(), error: null });
      const outcome = await this.options.media.post(target, message);
      if (outcome.kind !== 'sent') {
        // A part went and the rest did not: the next try would repeat it, so only a briefing with nothing posted is tried again.
        const retry = outcome.kind === 'retry' && posted === 0 && record.attempts <= RETRY_MS.length;
        const retryAt = retry ? clock.now() + (RETRY_MS[record.attempts - 1] ?? 0) : null;
        await this.record(target.id, { ...record, posted, status: 'failed', at: new Date(clock.now()).toISOString(), error: outcome.reason, retryAt });
        log.warn(`briefing to ${target.name} failed after ${posted} of ${messages.length} messages${retry ? ' (tried again later)' : ''}: ${outcome.reason}`);
        return false;
      }
      posted += 1;
    }
    await this.record(target.id, { ...record, posted, status: 'sent', at: new Date(clock.now()).toISOString(), error: null });
    log.info(`briefing to ${target.name} sent (${posted} message${posted === 1 ? '' : 's'})`);
    return true;
  }

  /** The briefing of a period ending at `at`: the day before it, or the seven days before it. */
  private compose(period: BriefingPeriod, at: number, signal: AbortSignal): Promise<Briefing> {
    const since = at - (period === 'week' ? 7 : 1) * DAY;
    return composeBriefing(this.options, { project: undefined, since: new Date(since).toISOString(), period }, signal);
  }

  /** Writes a destination's record of a day (the newest `KEEP_DAYS` kept per destination). */
  private async record(id: string, record: SendRecord): Promise<void> {
    const state = await courierState(this.options);
    await this.options.store.meta.put(STATE, { ...state, [id]: withDay(state[id] ?? {}, record.date, record) });
  }
}

/** A send-now that a service refused partway: its words, and how far it got. */
export class BriefingSendError extends Error {
  constructor(
    readonly reason: string,
    readonly posted: number,
    readonly messages: number,
  ) {
    super(`The briefing was not delivered (${posted} of ${messages} messages posted): ${reason}`);
    this.name = 'BriefingSendError';
  }
}
