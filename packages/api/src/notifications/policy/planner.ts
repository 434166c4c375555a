import { DEFAULT_FLAP_HOLD_SECONDS, type NotificationPolicy } from '@dash/contracts';
import type { DeliveryRow, NotificationRow, OutboxOps, PlanOutcome } from '@dash/db';
import { BatchPlan, type PlannedEvent } from './planner/batch.ts';
import { decide } from './planner/decide.ts';
import { flushDigests } from './planner/digests.ts';
import { countChange, defaultFlapSettings, endFlaps, type FlapSettings } from './planner/flaps.ts';
import { releaseHolds } from './planner/holds.ts';
import { endMutes } from './planner/mutes.ts';
import { momentOf, noRecipients, type Recipients } from './planner/release.ts';
import { nextDue, type TickRun, type TickSetting } from './planner/tick-run.ts';
import { storedDecision, TraceBook } from './planner/trace.ts';
import { quietAt } from './quiet-hours.ts';

export { deliverableChannels } from './planner/deliveries.ts';
export { defaultFlapSettings, flappingIntegrations, type FlapSettings } from './planner/flaps.ts';
export { connectionsReached, type Recipients } from './planner/release.ts';
export type { PlannedEvent } from './planner/batch.ts';
export type { TickSetting } from './planner/tick-run.ts';

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
 *
 * This class only runs the stages in order; each is in planner/, one idea a file: flaps.ts (count a change; end a
 * flap), decide.ts and recover.ts (an event's decision), holds.ts, mutes.ts and digests.ts (the tick's), and what they
 * share: batch.ts, tick-run.ts, release.ts, deliveries.ts, trace.ts.
 */

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
      const state = countChange(batch, event, this.flap);
      batch.steps.set(event.eventId, await decide(batch, event, state, this.flap));
    }
    const sent = await batch.write();
    const decisions = events.map((event) => storedDecision(event.decision, batch.steps.get(event.eventId) ?? []));
    return { decisions, readIds: batch.readIds, sent };
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
    await releaseHolds(run);
    const flapsEnded = await endFlaps(run, this.flap);
    await endMutes(run, flapsEnded);
    const woken = await ops.wakeSnoozed(now);
    const deferred = await ops.deliveriesWithStatus('deferred');
    const flushed = deferred.length > 0 && !run.moment.quiet.quiet;
    if (flushed) await flushDigests(run, deferred);
    await ops.appendTrace(run.trace.take());
    return { sent: run.sent, rows: woken, next: await nextDue(ops, run.moment, deferred.length > 0 && !flushed, this.flap.stableMs) };
  }
}
