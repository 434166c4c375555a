import type { DecisionTraceEntry, InterruptChannel } from '@dash/contracts';
import type { DeliveryRow } from '@dash/db';
import { formatDuration } from '../digest.ts';
import { channelWhy, release, sentTo, type Fate } from './release.ts';
import { keep, type TickRun } from './tick-run.ts';
import { step } from './trace.ts';

/** Holds that ended without a recovery: sent (or deferred by quiet hours), unless a mute or a flap began meanwhile. */
export async function releaseHolds(run: TickRun): Promise<void> {
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
  await keep(run, ops.updateDeliveries(released));
}
