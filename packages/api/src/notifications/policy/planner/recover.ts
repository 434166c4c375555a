import type { DecisionTraceEntry } from '@dash/contracts';
import type { SubjectState } from '@dash/db';
import { formatDuration } from '../digest.ts';
import type { BatchPlan, PlannedEvent } from './batch.ts';
import { delivery, messageOf } from './deliveries.ts';
import { wall, type Fate } from './release.ts';
import { step } from './trace.ts';

/**
 * A recovery: what the thread's interruptions became decides it. Every notice about the thread counts (the
 * outage's own, a reminder, a flap's start or end, a digest that listed it).
 */
export async function recover(batch: BatchPlan, event: PlannedEvent, state: SubjectState | undefined): Promise<DecisionTraceEntry> {
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
    const body = event.lasted ? `${event.lasted} ${down}` : `Down ${down}, recovered`;
    const message = messageOf(row, { title: event.title || `${row.title}: recovered`, body, severity: 'success', renotify: false, requireInteraction: false });
    const fate: Fate = { status: 'sent', reason: 'the outage interrupted: its recovery replaces that notification' };
    batch.add([...new Set(told.map((d) => d.channel))].map((channel) => delivery(event, channel, 'resolve', fate, message, now)));
    return step('delivery', 'sent', `the outage interrupted, so its recovery replaces that notification (down ${down})`);
  }
  const deferred = earlier.find((d) => d.status === 'deferred');
  if (deferred) return step(deferred.heldFor === 'pause' ? 'pause' : 'quiet_hours', 'deferred', `the outage waits for the digest, which will say it recovered after ${down}`);
  if (state?.flappingSince != null) return step('flap', 'suppressed', 'flapping: changes are summed up when it is stable again');
  return step('thread', 'none', `recovered after ${down}; its outage did not interrupt`);
}
