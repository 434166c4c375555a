import { randomUUID } from 'node:crypto';
import {
  type DecisionTraceEntry,
  type InterruptChannel,
  type NotificationPolicy,
  type PolicyDecision,
  type StoredDecision,
  webhookSourceNames,
} from '@dash/contracts';
import type { DeliveryRow, FoldEffect, InterruptMessage, NotificationRow, OutboxOps, PlanOutcome, SubjectState } from '@dash/db';
import { composeDigest, formatDuration, type HeldItem } from './digest.ts';
import { localTime, quietAt, type QuietState } from './quiet-hours.ts';

/**
 * The notification pipeline after the pure policy (`evaluate`): for each stored event, what becomes of its
 * interruption, given its thread, mutes, the flap hold and flapping, quiet hours and the pause; and the
 * scheduler's tick, which releases what was held, ends flaps and mutes, wakes snoozed rows and sends the digest
 * when quiet hours end. Everything it decides is written to the outbox in the caller's transaction, so a restart
 * loses nothing and sends nothing twice; the clock is passed in. Each interrupting channel of a decision (browser,
 * email) gets its own row, with the same fate: held, deferred, sent, cancelled together; a released email row is
 * queued for the email sender in the same transaction (the store does that).
 */

const MINUTE = 60_000;

/**
 * The interrupting channels the pipeline can deliver now: the browser always, email once SendGrid is set up (until
 * then no preference or rule opens it, so no decision claims an email that nothing would send).
 */
export const deliverableChannels = (emailReady: boolean): readonly InterruptChannel[] => (emailReady ? ['browser', 'email'] : ['browser']);

export interface FlapSettings {
  /** How long a monitor's outage is held before it interrupts: a recovery within it cancels the interruption. */
  holdMs: number;
  /** The `outages`-th outage of one subject within `windowMs` starts a flap. */
  windowMs: number;
  outages: number;
  /** A flap ends after this long without a change. */
  stableMs: number;
}

export const defaultFlapSettings: FlapSettings = { holdMs: 120_000, windowMs: 30 * MINUTE, outages: 3, stableMs: 15 * MINUTE };

/**
 * Integrations whose state swings by itself (uptime monitors: a network blip, a slow probe): their outages are held
 * and counted for flap detection. A failed deploy or a Sentry issue is somebody's action or a new fact, never a
 * flap: it interrupts at once, every time.
 */
export const flappingIntegrations: ReadonlySet<string> = new Set(['uptime_monitor']);

/** One event ready to plan: what the fold did with it and the policy's decision. */
export interface PlannedEvent {
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

/** The trace entry that ends a decision: what became of the browser interruption. */
const step = (stage: DecisionTraceEntry['stage'], verdict: DecisionTraceEntry['verdict'], why: string, name = stageNames[stage]): DecisionTraceEntry => ({
  stage,
  id: stage,
  name,
  verdict,
  why,
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
}

const momentOf = (now: number, policy: NotificationPolicy): Moment => ({ now, zone: policy.quietHours.timezone, quiet: quietAt(now, policy.quietHours) });

/** What an email row's reason says when it goes out or waits. */
const emailWhy = (status: DeliveryRow['status']) => (status === 'sent' ? 'queued for SendGrid' : 'kept for the digest email');

/** Sent now, or deferred to the digest when quiet hours or the pause hold interruptions back. */
function release({ now, zone, quiet }: Moment, bypass: boolean): { status: 'sent' | 'deferred'; heldFor: DeliveryRow['heldFor']; dueAt: number | null; entry: DecisionTraceEntry } {
  if (!quiet.quiet) return { status: 'sent', heldFor: null, dueAt: null, entry: step('delivery', 'sent', 'sent to the open dashboard tabs: a browser notification where the dashboard is hidden, a toast where it is in view') };
  const stage = quiet.reason === 'pause' ? 'pause' : 'quiet_hours';
  const until = quiet.endsAt === undefined ? 'until the settings change' : `until ${wall(quiet.endsAt, now, zone)}`;
  if (bypass) return { status: 'sent', heldFor: null, dueAt: null, entry: step(stage, 'sent', `${stage === 'pause' ? 'paused' : 'quiet hours'} ${until}, but this one goes through (critical, or a rule says so)`) };
  const what = stage === 'pause' ? 'notifications are paused' : 'quiet hours';
  return { status: 'deferred', heldFor: stage, dueAt: quiet.endsAt ?? null, entry: step(stage, 'deferred', `${what} ${until}: kept for the digest`) };
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

const delivery = (
  channel: DeliveryRow['channel'],
  row: NotificationRow,
  purpose: DeliveryRow['purpose'],
  status: DeliveryRow['status'],
  reason: string,
  now: number,
  dueAt: number | null,
  message: InterruptMessage,
  heldFor: DeliveryRow['heldFor'] = null,
): DeliveryRow => ({
  id: randomUUID(),
  notificationId: row.id,
  subjectKey: row.subjectKey,
  channel,
  purpose,
  status,
  reason,
  heldFor,
  dueAt,
  message,
  seq: null,
  digestId: null,
  createdAt: now,
  sentAt: status === 'sent' ? now : null,
});

/** One row per channel, each made by `make`. */
const perChannel = (channels: readonly InterruptChannel[], make: (channel: InterruptChannel) => DeliveryRow): DeliveryRow[] => channels.map(make);

/**
 * The interrupting channels a tick's reminder or notice about a row goes to: those its stored decision opened that can
 * deliver now; the browser when it opened none (a recovery's own decision, at `success`, opens nothing).
 */
function channelsOf(row: NotificationRow, available: readonly InterruptChannel[]): InterruptChannel[] {
  const opened = (row.decision?.channels ?? []).filter((channel): channel is InterruptChannel => (available as readonly string[]).includes(channel));
  return opened.length > 0 ? opened : ['browser'];
}

export class Planner {
  constructor(private readonly flap: FlapSettings = defaultFlapSettings) {}

  /** The flap hold that applies under `policy`: its setting (Settings → Notifications), else the planner's default. */
  holdFor(policy: Pick<NotificationPolicy, 'flapHoldSeconds'>): number {
    return policy.flapHoldSeconds === undefined ? this.flap.holdMs : policy.flapHoldSeconds * 1000;
  }

  /**
   * Plans a batch's stored events in order, in the ingest's transaction. With `dry`, nothing is written (the
   * dry-run route): the same reads, the same decisions.
   */
  async plan(events: readonly PlannedEvent[], ops: OutboxOps, now: number, policy: NotificationPolicy, dry = false): Promise<PlanOutcome> {
    const moment = momentOf(now, policy);
    const holdMs = this.holdFor(policy);
    const decisions: StoredDecision[] = [];
    const readIds: string[] = [];
    const sent: DeliveryRow[] = [];
    const subjectKeys = [...new Set(events.flatMap((event) => (event.subjectKey ? [event.subjectKey] : [])))];
    const subjects = new Map((await ops.subjects(subjectKeys)).map((state) => [state.subjectKey, state]));
    const mutes = new Map((await ops.mutes(subjectKeys)).filter((mute) => mute.until > now).map((mute) => [mute.subjectKey, mute]));
    const changedSubjects = new Map<string, SubjectState>();
    // The batch's new interruptions are written once at the end (one statement); a later event of the batch sees them here.
    const pending: DeliveryRow[] = [];
    const updated = new Map<string, DeliveryRow>();
    const created = new Set(events.filter((event) => event.effect === 'opened' || event.effect === 'info' || event.effect === 'resolved_alone').map((event) => event.notificationId));
    const add = (rows: DeliveryRow[]) => {
      pending.push(...rows);
    };
    const update = (rows: DeliveryRow[]) => {
      for (const row of rows) {
        const mine = pending.findIndex((item) => item.id === row.id);
        if (mine >= 0) pending[mine] = row;
        else updated.set(row.id, row);
      }
    };
    /** The interruptions of a row: stored ones (as this batch changed them) and this batch's. */
    const deliveriesOf = async (notificationId: string) => {
      const stored = created.has(notificationId) ? [] : await ops.deliveriesFor([notificationId]);
      return [...stored.map((row) => updated.get(row.id) ?? row), ...pending.filter((row) => row.notificationId === notificationId)];
    };

    for (const event of events) {
      const { decision, row, effect } = event;
      const trace = [...decision.trace];
      const channels = decision.channels.filter((channel): channel is InterruptChannel => channel !== 'inApp');
      const interrupts = channels.length > 0;
      const stored = (): StoredDecision => ({ severity: decision.severity, channels: decision.channels, bypassQuietHours: decision.bypassQuietHours, trace });
      if (decision.discarded) readIds.push(event.notificationId);

      // Flap memory: every outage and recovery of a subject that can flap counts, whatever the channels.
      let state: SubjectState | undefined;
      if (event.subjectKey && flappingIntegrations.has(event.integration) && (effect === 'opened' || effect === 'resolved')) {
        const before = changedSubjects.get(event.subjectKey) ?? subjects.get(event.subjectKey);
        const outages = (before?.outages ?? []).filter((outageAt) => outageAt > now - this.flap.windowMs);
        if (effect === 'opened') outages.push(now);
        state = { subjectKey: event.subjectKey, outages, flappingSince: before?.flappingSince ?? null, lastChangeAt: now };
        changedSubjects.set(event.subjectKey, state);
      }
      const mute = event.subjectKey ? mutes.get(event.subjectKey) : undefined;

      if (effect === 'resolved' || effect === 'resolved_alone') {
        decisions.push(stored());
        if (effect === 'resolved_alone') {
          trace.push(step('thread', 'none', 'a recovery with no open thread (it arrived before its outage, or the outage is older): nothing to interrupt'));
          continue;
        }
        // What the thread's interruptions became decides the recovery's: every notice about it counts (the outage's own,
        // a reminder, a flap's start or end, a digest that listed it).
        const earlier = (await deliveriesOf(event.notificationId)).filter((d) => d.purpose !== 'resolve' && d.purpose !== 'digest');
        const held = earlier.filter((d) => d.status === 'held');
        const outageTold = earlier.some((d) => (d.purpose === 'first' || d.purpose === 'repeat') && d.status === 'sent');
        const told = earlier.filter((d) => d.status === 'sent' || d.status === 'digested');
        const down = formatDuration(Date.parse(row.resolvedAt ?? event.occurredAt) - Date.parse(row.firstAt));
        if (held.length > 0) {
          update(held.map((d) => ({ ...d, status: 'cancelled', reason: `recovered within the hold (down ${down})` })));
          trace.push(step('flap', 'cancelled', `recovered within the ${formatDuration(holdMs)} hold (down ${down}): nobody was interrupted`));
        } else if (outageTold || (told.length > 0 && state?.flappingSince == null)) {
          // It interrupted: its recovery replaces that notification (answers that email), even in quiet hours, a mute or a flap.
          // Told only by a flap's start, it waits for the flap's end, which sums up the state it is in then.
          const message = messageOf(row, { title: event.title || `${row.title}: recovered`, body: `Down ${down}, recovered`, severity: 'success', renotify: false, requireInteraction: false });
          const channels = [...new Set(told.map((d) => d.channel))];
          add(perChannel(channels, (channel) => delivery(channel, row, 'resolve', 'sent', 'the outage interrupted: its recovery replaces that notification', now, null, message)));
          trace.push(step('delivery', 'sent', `the outage interrupted, so its recovery replaces that notification (down ${down})`));
        } else if (earlier.some((d) => d.status === 'deferred')) {
          trace.push(step('quiet_hours', 'deferred', `the outage waits for the digest, which will say it recovered after ${down}`));
        } else if (state?.flappingSince != null) {
          trace.push(step('flap', 'suppressed', 'flapping: changes are summed up when it is stable again'));
        } else {
          trace.push(step('thread', 'none', `recovered after ${down}; its outage did not interrupt`));
        }
        continue;
      }

      if (effect === 'joined') {
        trace.push(step('thread', 'none', 'joined the open thread of its subject: already told'));
        decisions.push(stored());
        continue;
      }
      if (!interrupts) {
        decisions.push(stored());
        if (decision.discarded) trace.push(step('delivery', 'none', 'discarded: stored as done'));
        else trace.push(step('delivery', 'none', decision.silenced ? 'silenced: in the inbox only' : 'in the inbox only'));
        continue;
      }
      if (mute) {
        trace.push(step('mute', 'suppressed', `its subject is muted until ${wall(mute.until, now, policy.quietHours.timezone)}`));
        add(perChannel(channels, (channel) => delivery(channel, row, 'first', 'suppressed', 'muted', now, null, messageOf(row))));
        decisions.push(stored());
        continue;
      }
      if (state && effect === 'opened') {
        if (state.flappingSince !== null) {
          trace.push(step('flap', 'suppressed', `flapping since ${wall(state.flappingSince, now, policy.quietHours.timezone)}: one notice when it is stable again`));
          add(perChannel(channels, (channel) => delivery(channel, row, 'first', 'suppressed', 'flapping', now, null, messageOf(row))));
          decisions.push(stored());
          continue;
        }
        if (state.outages.length >= this.flap.outages) {
          state.flappingSince = now;
          const window = formatDuration(this.flap.windowMs);
          const notice = messageOf(row, {
            title: `${row.title}: flapping`,
            body: `${state.outages.length} outages in ${window}. One more notice when it has been stable for ${formatDuration(this.flap.stableMs)}.`,
            severity: 'warning',
            requireInteraction: false,
          });
          const out = release(moment, decision.bypassQuietHours);
          add(perChannel(channels, (channel) => delivery(channel, row, 'flap_start', out.status, `outage ${state.outages.length} in ${window}`, now, out.dueAt, notice, out.heldFor)));
          trace.push(step('flap', out.status === 'sent' ? 'sent' : 'deferred', `outage ${state.outages.length} within ${window}: one "flapping" notice instead of one per change`));
          decisions.push(stored());
          continue;
        }
      }
      if (state && effect === 'opened' && holdMs > 0) {
        const due = now + holdMs;
        add(perChannel(channels, (channel) => delivery(channel, row, 'first', 'held', 'flap hold', now, due, messageOf(row), 'flap_hold')));
        trace.push(step('flap', 'held', `held ${formatDuration(holdMs)} in case it recovers at once; then it interrupts`));
        decisions.push(stored());
        continue;
      }
      const out = release(moment, decision.bypassQuietHours);
      add(perChannel(channels, (channel) => delivery(channel, row, 'first', out.status, channel === 'email' ? emailWhy(out.status) : out.entry.why, now, out.dueAt, messageOf(row), out.heldFor)));
      if (effect === 'raised') trace.push(step('thread', 'applied', 'the open thread became critical: it interrupts again'));
      trace.push(channels.includes('email') && out.status === 'sent' ? { ...out.entry, why: `${channels.includes('browser') ? `${out.entry.why}; ` : ''}queued for email (SendGrid)` } : out.entry);
      decisions.push(stored());
    }

    if (!dry) {
      for (const row of await ops.updateDeliveries([...updated.values()])) if (row.status === 'sent') sent.push(row);
      for (const row of await ops.addDeliveries(pending)) if (row.status === 'sent') sent.push(row);
      if (changedSubjects.size > 0) await ops.putSubjects([...changedSubjects.values()]);
    }
    return { decisions, readIds, sent: sent.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0)) };
  }

  /**
   * The scheduler's tick at `now`: held interruptions whose hold ended, flaps that calmed down, mutes that ended
   * (a reminder when the subject is still down), snoozed rows that wake, and, once no quiet period holds them, the
   * deferred interruptions as one digest. Answers what it sent, the rows it changed, and when something is next due.
   */
  async tick(
    ops: OutboxOps,
    now: number,
    policy: NotificationPolicy,
    available: readonly InterruptChannel[] = ['browser'],
  ): Promise<{ sent: DeliveryRow[]; rows: NotificationRow[]; next: number | null }> {
    const moment = momentOf(now, policy);
    const sent: DeliveryRow[] = [];
    const keep = (rows: DeliveryRow[]) => sent.push(...rows.filter((row) => row.status === 'sent'));
    const zone = policy.quietHours.timezone;

    // 1. Holds that ended without a recovery.
    const due = await ops.deliveriesWithStatus('held', now);
    if (due.length > 0) {
      const subjects = [...new Set(due.flatMap((d) => (d.subjectKey ? [d.subjectKey] : [])))];
      const [rows, mutes, states] = await Promise.all([
        ops.rows(due.flatMap((d) => (d.notificationId ? [d.notificationId] : []))),
        ops.mutes(subjects),
        ops.subjects(subjects),
      ]);
      const rowById = new Map(rows.map((row) => [row.id, row]));
      const muted = new Set(mutes.filter((mute) => mute.until > now).map((mute) => mute.subjectKey));
      const flapping = new Set(states.filter((state) => state.flappingSince !== null).map((state) => state.subjectKey));
      const released = due.map((d): DeliveryRow => {
        const row = d.notificationId ? rowById.get(d.notificationId) : undefined;
        if (!row || row.status !== 'open') return { ...d, status: 'cancelled', reason: 'recovered before the hold ended' };
        if (d.subjectKey && muted.has(d.subjectKey)) return { ...d, status: 'suppressed', reason: 'muted' };
        if (d.subjectKey && flapping.has(d.subjectKey)) return { ...d, status: 'suppressed', reason: 'flapping' };
        const out = release(moment, row.decision?.bypassQuietHours ?? false);
        return { ...d, status: out.status, heldFor: out.heldFor ?? d.heldFor ?? null, dueAt: out.dueAt, reason: `still down after the hold; ${out.entry.why}`, sentAt: out.status === 'sent' ? now : null };
      });
      keep(await ops.updateDeliveries(released));
    }

    // 2. Flaps that have been quiet long enough: one notice with the state it is in now.
    const calm = await ops.flapping(now - this.flap.stableMs);
    if (calm.length > 0) {
      const latest = new Map((await ops.latestRows(calm.map((state) => state.subjectKey))).map((row) => [row.subjectKey, row]));
      const notices: DeliveryRow[] = [];
      for (const state of calm) {
        const row = latest.get(state.subjectKey);
        if (!row) continue;
        const down = row.status === 'open';
        const since = down ? row.firstAt : (row.resolvedAt ?? row.lastAt);
        const message = messageOf(row, {
          title: down ? `${row.title}: still down` : `${row.title}: stable again`,
          body: `${down ? 'Down' : 'Up'} since ${wall(Date.parse(since), now, zone)}; it flapped from ${wall(state.flappingSince ?? now, now, zone)}.`,
          severity: down ? row.severity : 'success',
          renotify: down,
          requireInteraction: false,
        });
        const out = release(moment, down && (row.decision?.bypassQuietHours ?? false));
        notices.push(...perChannel(channelsOf(row, available), (channel) => delivery(channel, row, 'flap_end', out.status, `stable for ${formatDuration(this.flap.stableMs)}`, now, out.dueAt, message, out.heldFor)));
      }
      keep(await ops.addDeliveries(notices));
      await ops.putSubjects(calm.map((state) => ({ ...state, outages: [], flappingSince: null })));
    }

    // 3. Mutes that ended: one reminder for a subject still down.
    const ended = (await ops.mutes()).filter((mute) => mute.until <= now);
    if (ended.length > 0) {
      await ops.removeMutes(ended.map((mute) => mute.subjectKey));
      const open = await ops.openRows(ended.map((mute) => mute.subjectKey));
      const reminders = open.flatMap((row) => {
        const out = release(moment, row.decision?.bypassQuietHours ?? false);
        const message = messageOf(row, { title: `${row.title}: still down`, body: `Down since ${wall(Date.parse(row.firstAt), now, zone)}; its mute has ended.` });
        return perChannel(channelsOf(row, available), (channel) => delivery(channel, row, 'repeat', out.status, 'the mute ended while it was still down', now, out.dueAt, message, out.heldFor));
      });
      keep(await ops.addDeliveries(reminders));
    }

    // 4. Snoozed rows whose time has come: back unread.
    const woken = await ops.wakeSnoozed(now);

    // 5. The digest, once nothing holds interruptions back.
    const deferred = await ops.deliveriesWithStatus('deferred');
    const flushed = deferred.length > 0 && !moment.quiet.quiet;
    if (flushed) {
      // One digest per channel: the tab gets its summary, the inbox its email.
      for (const channel of [...new Set(deferred.map((d) => d.channel))]) {
        keep(await this.flush(ops, deferred.filter((d) => d.channel === channel), now, policy, channel));
      }
    }

    return { sent, rows: woken, next: await this.nextDue(ops, moment, deferred.length > 0 && !flushed) };
  }

  /** Folds the deferred interruptions into one digest (none when nothing is left to say), in the tick's transaction. */
  private async flush(ops: OutboxOps, deferred: DeliveryRow[], now: number, policy: NotificationPolicy, channel: DeliveryRow['channel']): Promise<DeliveryRow[]> {
    const rows = new Map((await ops.rows([...new Set(deferred.flatMap((d) => (d.notificationId ? [d.notificationId] : [])))])).map((row) => [row.id, row]));
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
    const earliest = Math.min(...deferred.map((d) => d.createdAt));
    // Why they waited is a field of each row: a digest is the pause's when all of them waited for the pause.
    const paused = deferred.every((d) => d.heldFor === 'pause');
    // The window the first of them fell in, even if quiet hours have been switched off since.
    const started = quietAt(earliest, { ...policy.quietHours, enabled: true, pauseUntil: null });
    const digest = composeDigest(items, {
      windowStart: started.quiet && started.startsAt !== undefined ? started.startsAt : earliest,
      windowEnd: now,
      timezone: policy.quietHours.timezone,
      kind: paused ? 'pause' : 'quiet_hours',
    });
    const id = randomUUID();
    const message: InterruptMessage = {
      title: digest?.title ?? 'Nothing left to tell',
      body: digest?.lines.join('\n') ?? '',
      severity: items.some((item) => item.status === 'open' && item.severity === 'error') ? 'error' : 'info',
      tag: 'digest',
      url: null,
      renotify: true,
      requireInteraction: false,
    };
    const row: DeliveryRow = {
      id,
      notificationId: null,
      subjectKey: null,
      channel,
      purpose: 'digest',
      status: digest ? 'sent' : 'empty',
      reason: digest ? `${digest.itemCount} item(s) held back` : 'everything held back was read in the app meanwhile',
      heldFor: null,
      dueAt: null,
      message,
      seq: null,
      digestId: null,
      createdAt: now,
      sentAt: digest ? now : null,
    };
    await ops.updateDeliveries(deferred.map((d) => ({ ...d, status: 'digested', digestId: id })));
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
