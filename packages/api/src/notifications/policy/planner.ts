import { randomUUID } from 'node:crypto';
import {
  type ChannelFloor,
  channelFloors,
  DEFAULT_FLAP_HOLD_SECONDS,
  type DecisionTraceEntry,
  type InterruptChannel,
  type NotificationPolicy,
  type NotificationSeverity,
  type PolicyDecision,
  severityRank,
  type StoredDecision,
  webhookSourceNames,
} from '@dash/contracts';
import type { DeliveryRow, FoldEffect, InterruptMessage, MuteRow, NotificationRow, OutboxOps, PlanOutcome, SubjectState, TraceLine } from '@dash/db';
import { composeDigest, formatDuration, type HeldItem, type HeldPeriod } from './digest.ts';
import { localTime, quietAt, type QuietState } from './quiet-hours.ts';

/**
 * The notification pipeline after the pure policy (`evaluate`): for each stored event, what becomes of its
 * interruption, given its thread, mutes, the flap hold and flapping, quiet hours and the pause; and the
 * scheduler's tick, which releases what was held, ends flaps and mutes, wakes snoozed rows and sends the digest
 * when quiet hours end. Everything it decides is written to the outbox in the caller's transaction, so a restart
 * loses nothing and sends nothing twice; the clock is passed in. Each interrupting channel of a decision (browser,
 * email) gets its own row, with the same fate: held, deferred, sent, cancelled together; a released email row is
 * queued for the email sender in the same transaction (the store does that).
 *
 * Every event keeps its own trace: the steps that decided it when it was stored, then a line (with `decidedAt`) each
 * time something later released, sent or dropped what its decision held back (the tick, or a recovery that cancels a
 * held outage).
 */

const MINUTE = 60_000;

/**
 * The interrupting channels the pipeline can deliver now: the browser always, email once SendGrid is set up, push once
 * a device is subscribed (until then no preference or rule opens them, so no decision claims what nothing would send).
 */
export const deliverableChannels = (emailReady: boolean, pushReady = false, chatReady = false): readonly InterruptChannel[] => [
  'browser',
  ...(emailReady ? (['email'] as const) : []),
  ...(pushReady ? (['push'] as const) : []),
  ...(chatReady ? (['chat'] as const) : []),
];

/** Where a push and a chat message released now go: the devices' names, and the connections with their floors. */
export interface Recipients {
  devices: readonly string[];
  connections: readonly { name: string; minSeverity: ChannelFloor }[];
}

const noRecipients: Recipients = { devices: [], connections: [] };

/** The connections whose floor a severity reaches, by name. */
export const connectionsReached = (connections: Recipients['connections'], severity: NotificationSeverity): string[] =>
  connections.filter((connection) => severityRank[severity] >= severityRank[connection.minSeverity]).map((connection) => connection.name);

/** How flaps are told apart (the flap hold, how long an outage is held first, is a setting: `flapHoldSeconds`). */
export interface FlapSettings {
  /** The `outages`-th outage of one subject within `windowMs` starts a flap. */
  windowMs: number;
  outages: number;
  /** A flap ends after this long without a change. */
  stableMs: number;
}

export const defaultFlapSettings: FlapSettings = { windowMs: 30 * MINUTE, outages: 3, stableMs: 15 * MINUTE };

/**
 * Integrations whose state swings by itself (uptime monitors: a network blip, a slow probe): their outages are held
 * and counted for flap detection. A failed deploy or a Sentry issue is somebody's action or a new fact, never a
 * flap: it interrupts at once, every time.
 */
export const flappingIntegrations: ReadonlySet<string> = new Set(['uptime_monitor']);

/** One event ready to plan: what the fold did with it and the policy's decision. */
export interface PlannedEvent {
  /** The id it is stored with: its interruptions name it, and later lines of its trace find it by it. */
  eventId: string;
  effect: FoldEffect;
  decision: PolicyDecision;
  notificationId: string;
  row: NotificationRow;
  subjectKey: string | null;
  integration: string;
  type: string;
  title: string;
  occurredAt: string;
}

const serviceOf = (integration: string) => (webhookSourceNames as Record<string, string>)[integration] ?? integration;

/** A step of the pipeline in a trace; `decidedAt` (ms UTC) on a line added after the event was stored. */
const step = (stage: DecisionTraceEntry['stage'], verdict: DecisionTraceEntry['verdict'], why: string, decidedAt?: number): DecisionTraceEntry => ({
  stage,
  id: stage,
  name: stageNames[stage],
  verdict,
  why,
  ...(decidedAt === undefined ? {} : { decidedAt: new Date(decidedAt).toISOString() }),
});

const stageNames: Record<DecisionTraceEntry['stage'], string> = {
  preference: 'Preference',
  rule: 'Rule',
  thread: 'Thread',
  mute: 'Mute',
  flap: 'Flap hold',
  quiet_hours: 'Quiet hours',
  pause: 'Pause',
  delivery: 'Delivery',
};

/** "07:00" in the quiet hours' zone, or "Tue 07:00" beyond a day away. */
function wall(instant: number, now: number, zone: string): string {
  const local = localTime(instant, zone);
  return instant - now < 86_400_000 ? local.hhmm : `${local.weekday.charAt(0).toUpperCase()}${local.weekday.slice(1)} ${local.hhmm}`;
}

/** An instant with whether it is quiet, worked out once for all the events of a batch (or a tick). */
interface Moment {
  now: number;
  zone: string;
  quiet: QuietState;
  /** What `release` answers at this moment, by whether the decision bypasses quiet hours: the same for every event. */
  released: Map<boolean, Released>;
}

const momentOf = (now: number, policy: NotificationPolicy): Moment => ({ now, zone: policy.quietHours.timezone, quiet: quietAt(now, policy.quietHours), released: new Map() });

/** "Phone", "Phone and Laptop", "Phone, Tablet, and Laptop". */
const listed = (names: readonly string[]) => new Intl.ListFormat('en', { type: 'conjunction' }).format(names);

/** What an email or push row's reason says when it goes out or waits (a browser row says what `release` does). */
const channelWhy: Record<Exclude<InterruptChannel, 'browser'>, (status: DeliveryRow['status']) => string> = {
  email: (status) => (status === 'sent' ? 'queued for SendGrid' : 'kept for the digest email'),
  push: (status) => (status === 'sent' ? 'queued for each subscribed device' : 'kept for the digest push'),
  chat: (status) => (status === 'sent' ? 'queued for each chat and webhook connection' : 'kept for the digest message'),
};

/** What becomes of an interruption: its status, why, and for one that waits, until when and for what. */
interface Fate {
  status: DeliveryRow['status'];
  reason: string;
  dueAt?: number | null;
  heldFor?: DeliveryRow['heldFor'];
}

type Released = Fate & { status: 'sent' | 'deferred'; entry: DecisionTraceEntry };

/**
 * Where an interruption sent now went, channel by channel, for its "Why?" line: the open tabs (when the browser is
 * among them), the email, each device and each chat connection its severity reaches. The same words whether it went
 * at once or when its hold ended.
 */
function sentTo(out: Released, channels: readonly InterruptChannel[], recipients: Recipients, severity: NotificationSeverity): string {
  const { devices, connections } = recipients;
  const reached = connectionsReached(connections, severity);
  const also = [
    ...(channels.includes('email') ? ['queued for email (SendGrid)'] : []),
    ...(channels.includes('push') ? [`pushed to ${devices.length > 0 ? listed(devices) : 'each subscribed device'}`] : []),
    ...(channels.includes('chat') ? [reached.length > 0 ? `sent to ${listed(reached)}` : `no chat connection takes ${severity}`] : []),
  ];
  return [...(channels.includes('browser') || also.length === 0 ? [out.entry.why] : []), ...also].join('; ');
}

/**
 * Sent now, or deferred to the digest when quiet hours or the pause hold interruptions back. Worked out once per
 * moment and bypass (its wording reads the zone's wall clock, which is not cheap on every event of a batch).
 */
function release(moment: Moment, bypass: boolean): Released {
  let out = moment.released.get(bypass);
  if (!out) moment.released.set(bypass, (out = releaseAt(moment, bypass)));
  return out;
}

function releaseAt({ now, zone, quiet }: Moment, bypass: boolean): Released {
  if (!quiet.quiet) {
    const why = 'sent to the open dashboard tabs: a browser notification where the dashboard is hidden, a toast where it is in view';
    return { status: 'sent', reason: why, entry: step('delivery', 'sent', why) };
  }
  const stage = quiet.reason === 'pause' ? 'pause' : 'quiet_hours';
  const until = quiet.endsAt === undefined ? 'until the settings change' : `until ${wall(quiet.endsAt, now, zone)}`;
  if (bypass) {
    const why = `${stage === 'pause' ? 'paused' : 'quiet hours'} ${until}, but this one goes through (critical, or a rule says so)`;
    return { status: 'sent', reason: why, entry: step(stage, 'sent', why) };
  }
  const why = `${stage === 'pause' ? 'notifications are paused' : 'quiet hours'} ${until}: kept for the digest`;
  return { status: 'deferred', reason: why, heldFor: stage, dueAt: quiet.endsAt ?? null, entry: step(stage, 'deferred', why) };
}

const messageOf = (row: NotificationRow, patch: Partial<InterruptMessage> = {}): InterruptMessage => ({
  title: row.title,
  body: [row.projectSlug, serviceOf(row.integration)].filter(Boolean).join(' · '),
  severity: row.severity,
  tag: row.subjectKey ?? row.id,
  url: row.url,
  renotify: true,
  requireInteraction: row.severity === 'error',
  ...patch,
});

/** A new outbox row about `row` (and the event `eventId`, when an event's decision made it) on one channel. */
function delivery(
  about: { row: NotificationRow; eventId: string | null },
  channel: InterruptChannel,
  purpose: DeliveryRow['purpose'],
  fate: Fate,
  message: InterruptMessage,
  now: number,
): DeliveryRow {
  return {
    id: randomUUID(),
    notificationId: about.row.id,
    eventId: about.eventId,
    subjectKey: about.row.subjectKey,
    channel,
    purpose,
    status: fate.status,
    reason: fate.reason,
    heldFor: fate.heldFor ?? null,
    dueAt: fate.dueAt ?? null,
    message,
    seq: null,
    digestId: null,
    createdAt: now,
    sentAt: fate.status === 'sent' ? now : null,
  };
}

/**
 * The interrupting channels a tick's reminder or notice about a row goes to: those its stored decision opened that can
 * deliver now; the browser when it opened none (a recovery's own decision, at `success`, opens nothing).
 */
function channelsOf(row: NotificationRow, available: readonly InterruptChannel[]): InterruptChannel[] {
  const opened = (row.decision?.channels ?? []).filter((channel): channel is InterruptChannel => (available as readonly string[]).includes(channel));
  return opened.length > 0 ? opened : ['browser'];
}

/** The channels a decision interrupts on (the in-app inbox and toast always come). */
const interruptingChannels = (decision: PolicyDecision) => decision.channels.filter((channel): channel is InterruptChannel => channel !== 'inApp');

/** The part of the policy's decision stored with the event, with its trace as the pipeline completed it. */
const storedDecision = (decision: PolicyDecision, steps: readonly DecisionTraceEntry[]): StoredDecision => ({
  severity: decision.severity,
  channels: decision.channels,
  bypassQuietHours: decision.bypassQuietHours,
  trace: [...decision.trace, ...steps],
});

/**
 * Later lines of stored events' traces, one per event and saying: what a tick (or a later event of the batch) did with
 * the interruptions its decision held back. Its rows of every channel share one fate, so their lines are one.
 */
class TraceBook {
  private readonly lines = new Map<string, TraceLine>();

  /** `entry` on the trace of each event whose interruption is among `rows`. */
  note(rows: readonly DeliveryRow[], entry: (row: DeliveryRow) => DecisionTraceEntry | null): void {
    for (const row of rows) {
      const line = row.eventId ? entry(row) : null;
      if (line && row.eventId) this.lines.set(`${row.eventId}\n${line.why}`, { eventId: row.eventId, entry: line });
    }
  }

  /** The lines for events not in `inBatch` (stored before); those in it get theirs there. */
  take(inBatch: ReadonlyMap<string, DecisionTraceEntry[]> = new Map()): TraceLine[] {
    const stored: TraceLine[] = [];
    for (const line of this.lines.values()) {
      const steps = inBatch.get(line.eventId);
      if (steps) steps.push(line.entry);
      else stored.push(line);
    }
    return stored;
  }
}

/**
 * One batch's plan: what its stages read once (the subjects' flap memory and mutes), and what they leave to write
 * at the end (the new interruptions in one statement, the changed ones, the subjects, the later trace lines). A later
 * event of the batch sees what an earlier one decided.
 */
class BatchPlan {
  /** Each event's steps, by event id, in the batch's order. */
  readonly steps = new Map<string, DecisionTraceEntry[]>();
  readonly readIds: string[] = [];
  readonly changedSubjects = new Map<string, SubjectState>();
  readonly trace = new TraceBook();
  private readonly pending: DeliveryRow[] = [];
  private readonly updated = new Map<string, DeliveryRow>();

  private constructor(
    readonly ops: OutboxOps,
    readonly moment: Moment,
    readonly holdMs: number,
    /** Where a push and a chat message released now go (the trace names them). */
    readonly recipients: Recipients,
    private readonly subjects: ReadonlyMap<string, SubjectState>,
    readonly mutes: ReadonlyMap<string, MuteRow>,
    /** Rows this batch opens: nothing of theirs is stored yet. */
    private readonly created: ReadonlySet<string>,
  ) {}

  static async open(events: readonly PlannedEvent[], ops: OutboxOps, moment: Moment, holdMs: number, recipients: Recipients): Promise<BatchPlan> {
    const keys = [...new Set(events.flatMap((event) => (event.subjectKey ? [event.subjectKey] : [])))];
    const [subjects, mutes] = await Promise.all([ops.subjects(keys), ops.mutes(keys)]);
    const created = events.filter((event) => event.effect === 'opened' || event.effect === 'info' || event.effect === 'resolved_alone').map((event) => event.notificationId);
    return new BatchPlan(
      ops,
      moment,
      holdMs,
      recipients,
      new Map(subjects.map((state) => [state.subjectKey, state])),
      new Map(mutes.filter((mute) => mute.until > moment.now).map((mute) => [mute.subjectKey, mute])),
      new Set(created),
    );
  }

  /** A subject's flap memory as the batch has left it so far. */
  subject(key: string): SubjectState | undefined {
    return this.changedSubjects.get(key) ?? this.subjects.get(key);
  }

  add(rows: DeliveryRow[]): void {
    this.pending.push(...rows);
  }

  update(rows: DeliveryRow[]): void {
    for (const row of rows) {
      const mine = this.pending.findIndex((item) => item.id === row.id);
      if (mine >= 0) this.pending[mine] = row;
      else this.updated.set(row.id, row);
    }
  }

  /** The interruptions of a row: stored ones (as this batch changed them) and this batch's. */
  async deliveriesOf(notificationId: string): Promise<DeliveryRow[]> {
    const stored = this.created.has(notificationId) ? [] : await this.ops.deliveriesFor([notificationId]);
    return [...stored.map((row) => this.updated.get(row.id) ?? row), ...this.pending.filter((row) => row.notificationId === notificationId)];
  }

  /** Writes what the batch decided; answers what it sent, in stream order. */
  async write(): Promise<DeliveryRow[]> {
    const sent = [...(await this.ops.updateDeliveries([...this.updated.values()])), ...(await this.ops.addDeliveries(this.pending))].filter((row) => row.status === 'sent');
    if (this.changedSubjects.size > 0) await this.ops.putSubjects([...this.changedSubjects.values()]);
    await this.ops.appendTrace(this.trace.take(this.steps));
    return sent.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  }
}

/** A tick's work so far: what it sent, and the lines it adds to the traces of the events whose interruptions it moved. */
/** What a tick works under: the policy, the channels that can deliver and whom they reach, when the pause began. */
export interface TickSetting {
  policy: NotificationPolicy;
  available?: readonly InterruptChannel[];
  /** The devices and connections a release now reaches, for its "Why?" line. */
  recipients?: Recipients;
  /** When the pause set now began (ms UTC), if known: its digest names it from then. */
  pausedSince?: number | null;
}

/** One tick's work: its setting, with the defaults filled in, and what it reads, writes and notes. */
interface TickRun extends Required<TickSetting> {
  ops: OutboxOps;
  moment: Moment;
  sent: DeliveryRow[];
  trace: TraceBook;
}

const LEFT_OUT = 'read in the app before the digest went out: left out of it';

/** A deferred interruption the digest does not tell: its row was read in the app meanwhile (or is gone). */
function leftOutOfDigest(d: DeliveryRow, rows: ReadonlyMap<string, NotificationRow>): boolean {
  const row = d.notificationId ? rows.get(d.notificationId) : undefined;
  return row === undefined || row.readAt !== null;
}

/**
 * What held a channel's deferred interruptions back, each named with its own times (why each waited is a field of its
 * row): the pause from when it began (`pausedSince`; else the first it held) to its end; the quiet hours as the window
 * the first of theirs fell in (even if they have been switched off since), to its end or to now when the digest goes
 * out sooner. A pause that ended inside a window left its interruptions waiting in it: both are named then.
 */
function heldPeriods(deferred: readonly DeliveryRow[], policy: NotificationPolicy, now: number, pausedSince: number | null): [HeldPeriod, ...HeldPeriod[]] {
  const periods: HeldPeriod[] = [];
  const windows = { ...policy.quietHours, enabled: true, pauseUntil: null };
  const paused = deferred.filter((d) => d.heldFor === 'pause');
  let pauseEnd = Number.NaN;
  if (paused.length > 0) {
    // It ended at its time; one cleared early ended about now (saving it wakes the scheduler).
    const until = policy.quietHours.pauseUntil === null ? Number.NaN : Date.parse(policy.quietHours.pauseUntil);
    pauseEnd = until <= now ? until : now;
    const first = Math.min(...paused.map((d) => d.createdAt));
    periods.push({ kind: 'pause', start: pausedSince !== null && pausedSince <= first ? pausedSince : first, end: pauseEnd });
  }
  const quiet = deferred.filter((d) => d.heldFor !== 'pause');
  const waitedAfterPause = pauseEnd < now && policy.quietHours.enabled && quietAt(pauseEnd, windows).quiet;
  if (quiet.length > 0 || paused.length === 0 || waitedAfterPause) {
    const earliest = quiet.length > 0 || paused.length === 0 ? Math.min(...(quiet.length > 0 ? quiet : deferred).map((d) => d.createdAt)) : pauseEnd;
    const window = quietAt(earliest, windows);
    const start = window.quiet && window.startsAt !== undefined ? window.startsAt : earliest;
    const end = window.quiet && window.endsAt !== undefined ? Math.min(window.endsAt, now) : now;
    periods.push({ kind: 'quiet_hours', start, end });
  }
  return periods as [HeldPeriod, ...HeldPeriod[]];
}

export class Planner {
  constructor(private readonly flap: FlapSettings = defaultFlapSettings) {}

  /** The flap hold that applies under `policy`: its setting (Settings → Notifications), else the default. */
  holdFor(policy: Pick<NotificationPolicy, 'flapHoldSeconds'>): number {
    return (policy.flapHoldSeconds ?? DEFAULT_FLAP_HOLD_SECONDS) * 1000;
  }

  /**
   * When the scheduler should look next after storing events at `now`: when a flap hold started now ends, or sooner,
   * when the pause or quiet hours end (what they deferred goes out then, not at a later look).
   */
  nextLookAfterIngest(now: number, policy: NotificationPolicy): number {
    const quiet = quietAt(now, policy.quietHours);
    return Math.min(now + this.holdFor(policy), quiet.quiet && quiet.endsAt !== undefined ? quiet.endsAt : Infinity);
  }

  /**
   * Plans a batch's stored events in order, in the ingest's transaction (the dry run passes outbox operations that
   * keep the writes instead of making them). For each event: count its change for flap detection, then decide by what
   * the fold did with it (a recovery, a join, or an interruption), and store its decision with the steps that decided it.
   */
  async plan(events: readonly PlannedEvent[], ops: OutboxOps, now: number, policy: NotificationPolicy, recipients: Recipients = noRecipients): Promise<PlanOutcome> {
    const batch = await BatchPlan.open(events, ops, momentOf(now, policy), this.holdFor(policy), recipients);
    for (const event of events) {
      if (event.decision.discarded) batch.readIds.push(event.notificationId);
      const state = this.countChange(batch, event);
      batch.steps.set(event.eventId, await this.decide(batch, event, state));
    }
    const sent = await batch.write();
    const decisions = events.map((event) => storedDecision(event.decision, batch.steps.get(event.eventId) ?? []));
    return { decisions, readIds: batch.readIds, sent };
  }

  /**
   * Flap memory: every outage and recovery of a subject that can flap counts, whatever the channels. Answers the
   * subject's state after this event (undefined for anything that cannot flap).
   */
  private countChange(batch: BatchPlan, { subjectKey, integration, effect }: PlannedEvent): SubjectState | undefined {
    if (!subjectKey || !flappingIntegrations.has(integration) || (effect !== 'opened' && effect !== 'resolved')) return undefined;
    const { now } = batch.moment;
    const before = batch.subject(subjectKey);
    const outages = (before?.outages ?? []).filter((outageAt) => outageAt > now - this.flap.windowMs);
    if (effect === 'opened') outages.push(now);
    const state = { subjectKey, outages, flappingSince: before?.flappingSince ?? null, lastChangeAt: now };
    batch.changedSubjects.set(subjectKey, state);
    return state;
  }

  /** The pipeline's steps for one event, by what the fold did with it. */
  private async decide(batch: BatchPlan, event: PlannedEvent, state: SubjectState | undefined): Promise<DecisionTraceEntry[]> {
    switch (event.effect) {
      case 'resolved_alone':
        return [step('thread', 'none', 'a recovery with no open thread (it arrived before its outage, or the outage is older): nothing to interrupt')];
      case 'resolved':
        return [await this.recover(batch, event, state)];
      case 'joined':
        return [step('thread', 'none', 'joined the open thread of its subject: already told')];
      case 'raised':
        return [step('thread', 'applied', 'the open thread became critical: it interrupts again'), this.interrupt(batch, event, state)];
      case 'opened':
      case 'info':
        return [this.interrupt(batch, event, state)];
    }
  }

  /**
   * A recovery: what the thread's interruptions became decides it. Every notice about the thread counts (the
   * outage's own, a reminder, a flap's start or end, a digest that listed it).
   */
  private async recover(batch: BatchPlan, event: PlannedEvent, state: SubjectState | undefined): Promise<DecisionTraceEntry> {
    const { row } = event;
    const { now, zone } = batch.moment;
    const earlier = (await batch.deliveriesOf(event.notificationId)).filter((d) => d.purpose !== 'resolve' && d.purpose !== 'digest');
    const down = formatDuration(Date.parse(row.resolvedAt ?? event.occurredAt) - Date.parse(row.firstAt));
    const held = earlier.filter((d) => d.status === 'held');
    if (held.length > 0) {
      batch.update(held.map((d) => ({ ...d, status: 'cancelled', reason: `recovered within the hold (down ${down})` })));
      batch.trace.note(held, () => step('flap', 'cancelled', `recovered at ${wall(now, now, zone)}, within the hold (down ${down}): nobody was interrupted`, now));
      // The hold it had (the setting when it came in), not today's.
      const hold = Math.max(...held.map((d) => (d.dueAt ?? d.createdAt) - d.createdAt));
      return step('flap', 'cancelled', `recovered within the ${formatDuration(hold)} hold (down ${down}): nobody was interrupted`);
    }
    const outageTold = earlier.some((d) => (d.purpose === 'first' || d.purpose === 'repeat') && d.status === 'sent');
    // Only what reached the founder, per channel: sent, or in a digest that went out (a row read in the app before its
    // digest was left out of it, and is cancelled).
    const told = earlier.filter((d) => d.status === 'sent' || d.status === 'digested');
    if (outageTold || (told.length > 0 && state?.flappingSince == null)) {
      // It interrupted: its recovery replaces that notification (answers that email), even in quiet hours, a mute or a flap.
      // Told only by a flap's start, it waits for the flap's end, which sums up the state it is in then.
      const message = messageOf(row, { title: event.title || `${row.title}: recovered`, body: `Down ${down}, recovered`, severity: 'success', renotify: false, requireInteraction: false });
      const fate: Fate = { status: 'sent', reason: 'the outage interrupted: its recovery replaces that notification' };
      batch.add([...new Set(told.map((d) => d.channel))].map((channel) => delivery(event, channel, 'resolve', fate, message, now)));
      return step('delivery', 'sent', `the outage interrupted, so its recovery replaces that notification (down ${down})`);
    }
    const deferred = earlier.find((d) => d.status === 'deferred');
    if (deferred) return step(deferred.heldFor === 'pause' ? 'pause' : 'quiet_hours', 'deferred', `the outage waits for the digest, which will say it recovered after ${down}`);
    if (state?.flappingSince != null) return step('flap', 'suppressed', 'flapping: changes are summed up when it is stable again');
    return step('thread', 'none', `recovered after ${down}; its outage did not interrupt`);
  }

  /**
   * A new interruption (an outage, a failed deploy, a merged PR, a thread raised to critical): in the inbox only,
   * suppressed by a mute or a flap, a flap's start, held by the flap hold, or released (sent, or deferred to the digest).
   */
  private interrupt(batch: BatchPlan, event: PlannedEvent, state: SubjectState | undefined): DecisionTraceEntry {
    const { decision, row } = event;
    const { now, zone } = batch.moment;
    const channels = interruptingChannels(decision);
    const add = (purpose: DeliveryRow['purpose'], fate: Fate, message = messageOf(row)) => batch.add(channels.map((channel) => delivery(event, channel, purpose, fate, message, now)));

    if (channels.length === 0) {
      if (decision.discarded) return step('delivery', 'none', 'discarded: stored as done');
      return step('delivery', 'none', decision.silenced ? 'silenced: in the inbox only' : 'in the inbox only');
    }
    const mute = event.subjectKey ? batch.mutes.get(event.subjectKey) : undefined;
    if (mute) {
      add('first', { status: 'suppressed', reason: 'muted' });
      return step('mute', 'suppressed', `its subject is muted until ${wall(mute.until, now, zone)}`);
    }
    if (state?.flappingSince != null) {
      add('first', { status: 'suppressed', reason: 'flapping' });
      return step('flap', 'suppressed', `flapping since ${wall(state.flappingSince, now, zone)}: one notice when it is stable again`);
    }
    if (state && state.outages.length >= this.flap.outages) {
      state.flappingSince = now;
      const window = formatDuration(this.flap.windowMs);
      const notice = messageOf(row, {
        title: `${row.title}: flapping`,
        body: `${state.outages.length} outages in ${window}. One more notice when it has been stable for ${formatDuration(this.flap.stableMs)}.`,
        severity: 'warning',
        requireInteraction: false,
      });
      const out = release(batch.moment, decision.bypassQuietHours);
      add('flap_start', { ...out, reason: `outage ${state.outages.length} in ${window}` }, notice);
      return step('flap', out.status === 'sent' ? 'sent' : 'deferred', `outage ${state.outages.length} within ${window}: one "flapping" notice instead of one per change`);
    }
    if (state && batch.holdMs > 0) {
      add('first', { status: 'held', reason: 'flap hold', heldFor: 'flap_hold', dueAt: now + batch.holdMs });
      return step('flap', 'held', `held ${formatDuration(batch.holdMs)} in case it recovers at once; then it interrupts`);
    }
    const out = release(batch.moment, decision.bypassQuietHours);
    batch.add(channels.map((channel) => delivery(event, channel, 'first', { ...out, reason: channel === 'browser' ? out.reason : channelWhy[channel](out.status) }, messageOf(row), now)));
    if (out.status !== 'sent') return out.entry;
    return { ...out.entry, why: sentTo(out, channels, batch.recipients, row.severity) };
  }

  /**
   * The scheduler's tick at `now`, in stages: holds that ended, flaps that calmed down, mutes that ended (a reminder
   * when the subject is still down), snoozed rows that wake, and, once no quiet period holds them, the deferred
   * interruptions as one digest per channel. Each event whose held interruption it moves gains a trace line. Answers
   * what it sent, the rows it changed, and when something is next due.
   */
  async tick(ops: OutboxOps, now: number, setting: TickSetting): Promise<{ sent: DeliveryRow[]; rows: NotificationRow[]; next: number | null }> {
    const { policy, available = ['browser'], recipients = noRecipients, pausedSince = null } = setting;
    const run: TickRun = { ops, moment: momentOf(now, policy), policy, available, recipients, pausedSince, sent: [], trace: new TraceBook() };
    await this.releaseHolds(run);
    const flapsEnded = await this.endFlaps(run);
    await this.endMutes(run, flapsEnded);
    const woken = await ops.wakeSnoozed(now);
    const deferred = await ops.deliveriesWithStatus('deferred');
    const flushed = deferred.length > 0 && !run.moment.quiet.quiet;
    if (flushed) await this.flushDigests(run, deferred);
    await ops.appendTrace(run.trace.take());
    return { sent: run.sent, rows: woken, next: await this.nextDue(ops, run.moment, deferred.length > 0 && !flushed) };
  }

  /** Writes changed interruptions; keeps those sent. */
  private async keep(run: TickRun, written: Promise<DeliveryRow[]>): Promise<void> {
    run.sent.push(...(await written).filter((row) => row.status === 'sent'));
  }

  /** Holds that ended without a recovery: sent (or deferred by quiet hours), unless a mute or a flap began meanwhile. */
  private async releaseHolds(run: TickRun): Promise<void> {
    const { ops, moment } = run;
    const { now } = moment;
    const due = await ops.deliveriesWithStatus('held', now);
    if (due.length === 0) return;
    const subjects = [...new Set(due.flatMap((d) => (d.subjectKey ? [d.subjectKey] : [])))];
    const [rows, mutes, states] = await Promise.all([ops.rows(due.flatMap((d) => (d.notificationId ? [d.notificationId] : []))), ops.mutes(subjects), ops.subjects(subjects)]);
    const rowById = new Map(rows.map((row) => [row.id, row]));
    const muted = new Set(mutes.filter((mute) => mute.until > now).map((mute) => mute.subjectKey));
    const flapping = new Set(states.filter((state) => state.flappingSince !== null).map((state) => state.subjectKey));
    const entries = new Map<string, DecisionTraceEntry>();
    // The channels each event's held interruptions are on: its "Why?" line names them all.
    const channelsOf = new Map<string, InterruptChannel[]>();
    for (const d of due) channelsOf.set(`${d.notificationId}\n${d.eventId}`, [...(channelsOf.get(`${d.notificationId}\n${d.eventId}`) ?? []), d.channel]);
    const released = due.map((d): DeliveryRow => {
      const row = d.notificationId ? rowById.get(d.notificationId) : undefined;
      const settle = (fate: Fate & { sentAt?: number | null }, entry: DecisionTraceEntry): DeliveryRow => {
        entries.set(d.id, entry);
        return { ...d, ...fate, heldFor: fate.heldFor ?? d.heldFor ?? null, dueAt: fate.dueAt ?? null, sentAt: fate.sentAt ?? null };
      };
      if (!row || row.status !== 'open') return settle({ status: 'cancelled', reason: 'recovered before the hold ended' }, step('flap', 'cancelled', 'it recovered before the hold ended: nobody was interrupted', now));
      if (d.subjectKey && muted.has(d.subjectKey)) return settle({ status: 'suppressed', reason: 'muted' }, step('mute', 'suppressed', 'the hold ended while its subject was muted: nobody was interrupted', now));
      if (d.subjectKey && flapping.has(d.subjectKey)) {
        return settle({ status: 'suppressed', reason: 'flapping' }, step('flap', 'suppressed', 'the hold ended while it was flapping: one notice when it is stable again', now));
      }
      const out = release(moment, row.decision?.bypassQuietHours ?? false);
      const reason = `still down after the hold; ${d.channel === 'browser' ? out.reason : channelWhy[d.channel](out.status)}`;
      // The hold it had, not how late the tick came to it (after a restart, say).
      const hold = formatDuration(Math.max(0, (d.dueAt ?? now) - d.createdAt));
      // One line for the event (its rows share it), naming every channel its held interruptions go out on.
      const why = out.status === 'sent' ? sentTo(out, channelsOf.get(`${d.notificationId}\n${d.eventId}`) ?? [d.channel], run.recipients, row.severity) : out.entry.why;
      return settle({ ...out, reason, sentAt: out.status === 'sent' ? now : null }, { ...out.entry, why: `still down after the ${hold} hold; ${why}`, decidedAt: new Date(now).toISOString() });
    });
    run.trace.note(released, (d) => entries.get(d.id) ?? null);
    await this.keep(run, ops.updateDeliveries(released));
  }

  /**
   * Flaps that have been quiet long enough: one notice with the state it is in now, on the channels its start went to
   * and the way it went (through quiet hours when the start did); kept quiet while the subject is muted (the mute's
   * end reminds of a subject still down). "Stable again" answers a "flapping" that was sent as a recovery answers its
   * outage, quietly and even in quiet hours or a pause (a digest would never replace "flapping" where it shows). Answers
   * the subjects whose flap ended.
   */
  private async endFlaps(run: TickRun): Promise<ReadonlySet<string>> {
    const { ops, moment, available } = run;
    const { now, zone } = moment;
    const calm = await ops.flapping(now - this.flap.stableMs);
    if (calm.length === 0) return new Set();
    const keys = calm.map((state) => state.subjectKey);
    const [latestRows, starts, mutes] = await Promise.all([ops.latestRows(keys), ops.flapStarts(keys), ops.mutes(keys)]);
    const latest = new Map(latestRows.map((row) => [row.subjectKey, row]));
    const muted = new Map(mutes.filter((mute) => mute.until > now).map((mute) => [mute.subjectKey, mute]));
    const notices = calm.flatMap((state) => {
      const row = latest.get(state.subjectKey);
      // An older version counted deploys and Sentry issues as flapping too: theirs end without a word.
      if (!row || !flappingIntegrations.has(row.integration)) return [];
      const down = row.status === 'open';
      const since = down ? row.firstAt : (row.resolvedAt ?? row.lastAt);
      const message = messageOf(row, {
        title: down ? `${row.title}: still down` : `${row.title}: stable again`,
        body: `${down ? 'Down' : 'Up'} since ${wall(Date.parse(since), now, zone)}; it flapped from ${wall(state.flappingSince ?? now, now, zone)}.`,
        severity: down ? row.severity : 'success',
        renotify: down,
        requireInteraction: false,
      });
      // The newest start's rows (one per channel, made together).
      const started = starts.filter((start) => start.delivery.subjectKey === state.subjectKey);
      const newest = started.at(-1)?.delivery.createdAt;
      const start = started.filter((item) => item.delivery.createdAt === newest);
      const startedOn = [...new Set(start.map((item) => item.delivery.channel))].filter((channel) => available.includes(channel));
      const channels = startedOn.length > 0 ? startedOn : channelsOf(row, available);
      const mute = muted.get(state.subjectKey);
      const stable = `stable for ${formatDuration(this.flap.stableMs)}`;
      const fateOn = (channel: InterruptChannel): Fate => {
        if (mute) return { status: 'suppressed', reason: `muted until ${wall(mute.until, now, zone)}` };
        if (!down && start.some((item) => item.delivery.channel === channel && item.delivery.status === 'sent')) {
          return { status: 'sent', reason: `${stable}: it answers the "flapping" sent before` };
        }
        return { ...release(moment, start.some((item) => item.bypassQuietHours)), reason: stable };
      };
      return channels.map((channel) => delivery({ row, eventId: null }, channel, 'flap_end', fateOn(channel), message, now));
    });
    await this.keep(run, ops.addDeliveries(notices));
    await ops.putSubjects(calm.map((state) => ({ ...state, outages: [], flappingSince: null })));
    return new Set(keys);
  }

  /**
   * Mutes that ended: one reminder for a subject still down, unless its flap is on or ended in this tick
   * (`flapsEnded`): the flap's end says how it stands ("still down"), once.
   */
  private async endMutes(run: TickRun, flapsEnded: ReadonlySet<string>): Promise<void> {
    const { ops, moment, available } = run;
    const { now, zone } = moment;
    const ended = (await ops.mutes()).filter((mute) => mute.until <= now);
    if (ended.length === 0) return;
    await ops.removeMutes(ended.map((mute) => mute.subjectKey));
    const keys = ended.map((mute) => mute.subjectKey);
    const [open, states] = await Promise.all([ops.openRows(keys), ops.subjects(keys)]);
    const flapping = new Set([...flapsEnded, ...states.filter((state) => state.flappingSince !== null).map((state) => state.subjectKey)]);
    const reminders = open.flatMap((row) => {
      if (row.subjectKey !== null && flapping.has(row.subjectKey)) return [];
      const out = release(moment, row.decision?.bypassQuietHours ?? false);
      const message = messageOf(row, { title: `${row.title}: still down`, body: `Down since ${wall(Date.parse(row.firstAt), now, zone)}; its mute has ended.` });
      const fate: Fate = { ...out, reason: 'the mute ended while it was still down' };
      return channelsOf(row, available).map((channel) => delivery({ row, eventId: null }, channel, 'repeat', fate, message, now));
    });
    await this.keep(run, ops.addDeliveries(reminders));
  }

  /** The deferred interruptions, once nothing holds them back: one digest per channel (the tab its summary, the inbox its email). */
  private async flushDigests(run: TickRun, deferred: DeliveryRow[]): Promise<void> {
    const { ops, moment } = run;
    const { now, zone } = moment;
    const rows = new Map((await ops.rows([...new Set(deferred.flatMap((d) => (d.notificationId ? [d.notificationId] : [])))])).map((row) => [row.id, row]));
    for (const channel of [...new Set(deferred.map((d) => d.channel))]) {
      await this.keep(run, this.flush(run, deferred.filter((d) => d.channel === channel), rows, channel));
    }
    run.trace.note(deferred, (d) => {
      const stage = d.heldFor === 'pause' ? 'pause' : 'quiet_hours';
      if (!d.notificationId || !rows.has(d.notificationId)) return null;
      if (leftOutOfDigest(d, rows)) return step(stage, 'none', LEFT_OUT, now);
      return step(stage, 'sent', `went out in the ${wall(now, now, zone)} digest`, now);
    });
  }

  /** Folds one channel's deferred interruptions into one digest (none when nothing is left to say), in the tick's transaction. */
  private async flush(run: TickRun, deferred: DeliveryRow[], rows: ReadonlyMap<string, NotificationRow>, channel: DeliveryRow['channel']): Promise<DeliveryRow[]> {
    const { ops, policy } = run;
    const { now } = run.moment;
    const items: HeldItem[] = deferred.flatMap((d) => {
      const row = d.notificationId ? rows.get(d.notificationId) : undefined;
      if (!row) return [];
      return [
        {
          threadId: row.id,
          integration: row.integration,
          type: row.type,
          severity: row.severity,
          title: row.title,
          status: row.status,
          firstAt: Date.parse(row.firstAt),
          resolvedAt: row.resolvedAt === null ? null : Date.parse(row.resolvedAt),
          readAt: row.readAt === null ? null : Date.parse(row.readAt),
        },
      ];
    });
    const options = { periods: heldPeriods(deferred, policy, now, run.pausedSince), timezone: policy.quietHours.timezone };
    const words = (told: readonly HeldItem[]) => {
      const composed = composeDigest(told, options);
      const severity: NotificationSeverity = told.some((item) => item.status === 'open' && item.severity === 'error') ? 'error' : 'info';
      return composed && { composed, words: { title: composed.title, body: composed.lines.join('\n'), severity } };
    };
    const digest = words(items);
    const id = randomUUID();
    const message: InterruptMessage = {
      title: digest?.words.title ?? 'Nothing left to tell',
      body: digest?.words.body ?? '',
      severity: digest?.words.severity ?? 'info',
      tag: 'digest',
      url: null,
      renotify: true,
      requireInteraction: false,
    };
    // A chat connection is told only what reaches its floor: the digest's words for each floor (none where nothing does).
    if (channel === 'chat') {
      message.floors = {};
      for (const floor of channelFloors) {
        const told = words(items.filter((item) => severityRank[item.severity] >= severityRank[floor]));
        if (told) message.floors[floor] = told.words;
      }
    }
    const row: DeliveryRow = {
      id,
      notificationId: null,
      eventId: null,
      subjectKey: null,
      channel,
      purpose: 'digest',
      status: digest ? 'sent' : 'empty',
      reason: digest ? `${digest.composed.itemCount} item(s) held back` : 'everything held back was read in the app meanwhile',
      heldFor: null,
      dueAt: null,
      message,
      seq: null,
      digestId: null,
      createdAt: now,
      sentAt: digest ? now : null,
    };
    // Only what the digest tells is digested (told, for a recovery): a row read in the app meanwhile was left out of it.
    await ops.updateDeliveries(
      deferred.map((d): DeliveryRow =>
        leftOutOfDigest(d, rows) ? { ...d, status: 'cancelled', reason: LEFT_OUT, dueAt: null } : { ...d, status: 'digested', digestId: id },
      ),
    );
    return ops.addDeliveries([row]);
  }

  /** When the tick next has something to do (ms UTC), or null. */
  private async nextDue(ops: OutboxOps, { now, quiet }: Moment, stillDeferred: boolean): Promise<number | null> {
    const [held, mutes, snooze, flaps] = await Promise.all([ops.deliveriesWithStatus('held'), ops.mutes(), ops.nextSnoozeEnd(), ops.flapping(Number.MAX_SAFE_INTEGER)]);
    const candidates = [
      ...held.flatMap((d) => (d.dueAt === null ? [] : [d.dueAt])),
      ...mutes.map((mute) => mute.until),
      ...flaps.map((state) => state.lastChangeAt + this.flap.stableMs),
      ...(snooze === null ? [] : [snooze]),
    ];
    // What stays deferred goes out when the quiet period ends.
    if (stillDeferred && quiet.quiet && quiet.endsAt !== undefined) candidates.push(quiet.endsAt);
    return candidates.length === 0 ? null : Math.max(now, Math.min(...candidates));
  }
}
