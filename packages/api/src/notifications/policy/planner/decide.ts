import type { DecisionTraceEntry } from '@dash/contracts';
import type { DeliveryRow, SubjectState } from '@dash/db';
import { formatDuration } from '../digest.ts';
import type { BatchPlan, PlannedEvent } from './batch.ts';
import { delivery, interruptingChannels, messageOf } from './deliveries.ts';
import type { FlapSettings } from './flaps.ts';
import { recover } from './recover.ts';
import { channelWhy, release, sentTo, wall, type Fate } from './release.ts';
import { step } from './trace.ts';

/** The decision of one stored event: by what the fold did with it, a recovery, a join, or an interruption. */

/** The pipeline's steps for one event, by what the fold did with it. */
export async function decide(batch: BatchPlan, event: PlannedEvent, state: SubjectState | undefined, flap: FlapSettings): Promise<DecisionTraceEntry[]> {
  switch (event.effect) {
    case 'resolved_alone':
      return [step('thread', 'none', 'a recovery with no open thread (it arrived before its outage, or the outage is older): nothing to interrupt')];
    case 'resolved':
      return [await recover(batch, event, state)];
    case 'joined':
      if (event.reminder) return [step('thread', 'applied', 'still out of range a week on: a reminder interrupts again'), interrupt(batch, event, state, flap, 'repeat')];
      return [step('thread', 'none', 'joined the open thread of its subject: already told')];
    case 'raised':
      return [step('thread', 'applied', 'the open thread became critical: it interrupts again'), interrupt(batch, event, state, flap)];
    case 'opened':
    case 'info':
      return [interrupt(batch, event, state, flap)];
  }
}

/**
 * A new interruption (an outage, a failed deploy, a merged PR, a thread raised to critical): in the inbox only,
 * suppressed by a mute or a flap, a flap's start, held by the flap hold, or released (sent, or deferred to the digest).
 */
function interrupt(batch: BatchPlan, event: PlannedEvent, state: SubjectState | undefined, flap: FlapSettings, purpose: 'first' | 'repeat' = 'first'): DecisionTraceEntry {
  const { decision, row } = event;
  const { now, zone } = batch.moment;
  const channels = interruptingChannels(decision);
  const own = ownMessage(event);
  const add = (purpose: DeliveryRow['purpose'], fate: Fate, message = own) => batch.add(channels.map((channel) => delivery(event, channel, purpose, fate, message, now)));

  if (channels.length === 0) {
    if (decision.discarded) return step('delivery', 'none', 'discarded: stored as done');
    return step('delivery', 'none', decision.silenced ? 'silenced: in the inbox only' : 'in the inbox only');
  }
  const mute = event.subjectKey ? batch.mutes.get(event.subjectKey) : undefined;
  if (mute) {
    add(purpose, { status: 'suppressed', reason: 'muted' });
    return step('mute', 'suppressed', `its subject is muted until ${wall(mute.until, now, zone)}`);
  }
  if (state?.flappingSince != null) {
    add(purpose, { status: 'suppressed', reason: 'flapping' });
    return step('flap', 'suppressed', `flapping since ${wall(state.flappingSince, now, zone)}: one notice when it is stable again`);
  }
  if (state && state.outages.length >= flap.outages) {
    state.flappingSince = now;
    const window = formatDuration(flap.windowMs);
    const notice = messageOf(row, {
      title: `${row.title}: flapping`,
      body: `${state.outages.length} outages in ${window}. One more notice when it has been stable for ${formatDuration(flap.stableMs)}.`,
      severity: 'warning',
      requireInteraction: false,
    });
    const out = release(batch.moment, decision.bypassQuietHours);
    add('flap_start', { ...out, reason: `outage ${state.outages.length} in ${window}` }, notice);
    return step('flap', out.status === 'sent' ? 'sent' : 'deferred', `outage ${state.outages.length} within ${window}: one "flapping" notice instead of one per change`);
  }
  if (state && batch.holdMs > 0) {
    add(purpose, { status: 'held', reason: 'flap hold', heldFor: 'flap_hold', dueAt: now + batch.holdMs });
    return step('flap', 'held', `held ${formatDuration(batch.holdMs)} in case it recovers at once; then it interrupts`);
  }
  const out = release(batch.moment, decision.bypassQuietHours);
  batch.add(channels.map((channel) => delivery(event, channel, purpose, { ...out, reason: channel === 'browser' ? out.reason : channelWhy[channel](out.status) }, own, now)));
  if (out.status !== 'sent') return out.entry;
  return { ...out.entry, why: sentTo(out, channels, batch.recipients, row.severity) };
}

/** The thread's message, or this event's own words where it has them: a reminder's title, the lines of what else happened. */
function ownMessage(event: PlannedEvent) {
  const base = messageOf(event.row);
  if (!event.reminder && !event.context?.length) return base;
  return { ...base, title: event.reminder ? event.title : base.title, body: [base.body, ...(event.context ?? [])].join('\n') };
}
