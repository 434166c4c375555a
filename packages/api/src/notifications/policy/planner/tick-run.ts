import type { InterruptChannel, NotificationPolicy } from '@dash/contracts';
import type { DeliveryRow, OutboxOps } from '@dash/db';
import type { Moment, Recipients } from './release.ts';
import type { TraceBook } from './trace.ts';

/** What the scheduler's tick works under and through: its setting, its run, what it keeps, and when it is next due. */

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
export interface TickRun extends Required<TickSetting> {
  ops: OutboxOps;
  moment: Moment;
  sent: DeliveryRow[];
  trace: TraceBook;
}

/** Writes changed interruptions; keeps those sent. */
export async function keep(run: TickRun, written: Promise<DeliveryRow[]>): Promise<void> {
  run.sent.push(...(await written).filter((row) => row.status === 'sent'));
}

/** When the tick next has something to do (ms UTC), or null; a flap ends `flapStableMs` after its last change. */
export async function nextDue(ops: OutboxOps, { now, quiet }: Moment, stillDeferred: boolean, flapStableMs: number): Promise<number | null> {
  const [held, mutes, snooze, flaps] = await Promise.all([ops.deliveriesWithStatus('held'), ops.mutes(), ops.nextSnoozeEnd(), ops.flapping(Number.MAX_SAFE_INTEGER)]);
  const candidates = [
    ...held.flatMap((d) => (d.dueAt === null ? [] : [d.dueAt])),
    ...mutes.map((mute) => mute.until),
    ...flaps.map((state) => state.lastChangeAt + flapStableMs),
    ...(snooze === null ? [] : [snooze]),
  ];
  // What stays deferred goes out when the quiet period ends.
  if (stillDeferred && quiet.quiet && quiet.endsAt !== undefined) candidates.push(quiet.endsAt);
  return candidates.length === 0 ? null : Math.max(now, Math.min(...candidates));
}
