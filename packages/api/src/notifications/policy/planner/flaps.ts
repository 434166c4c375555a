import type { InterruptChannel } from '@dash/contracts';
import type { SubjectState } from '@dash/db';
import { formatDuration } from '../digest.ts';
import type { BatchPlan, PlannedEvent } from './batch.ts';
import { channelsOf, delivery, messageOf } from './deliveries.ts';
import { release, wall, type Fate } from './release.ts';
import { keep, type TickRun } from './tick-run.ts';

/**
 * Flaps: how they are told apart, the count of a subject's changes that starts one (its "flapping" notice is the
 * decision's: decide.ts), and the notice that ends one once it has been quiet long enough.
 */

const MINUTE = 60_000;

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

/**
 * Flap memory: every outage and recovery of a subject that can flap counts, whatever the channels. Answers the
 * subject's state after this event (undefined for anything that cannot flap).
 */
export function countChange(batch: BatchPlan, { subjectKey, integration, effect }: PlannedEvent, flap: FlapSettings): SubjectState | undefined {
  if (!subjectKey || !flappingIntegrations.has(integration) || (effect !== 'opened' && effect !== 'resolved')) return undefined;
  const { now } = batch.moment;
  const before = batch.subject(subjectKey);
  const outages = (before?.outages ?? []).filter((outageAt) => outageAt > now - flap.windowMs);
  if (effect === 'opened') outages.push(now);
  const state = { subjectKey, outages, flappingSince: before?.flappingSince ?? null, lastChangeAt: now };
  batch.changedSubjects.set(subjectKey, state);
  return state;
}

/**
 * Flaps that have been quiet long enough: one notice with the state it is in now, on the channels its start went to
 * and the way it went (through quiet hours when the start did); kept quiet while the subject is muted (the mute's
 * end reminds of a subject still down). "Stable again" answers a "flapping" that was sent as a recovery answers its
 * outage, quietly and even in quiet hours or a pause (a digest would never replace "flapping" where it shows). Answers
 * the subjects whose flap ended.
 */
export async function endFlaps(run: TickRun, flap: FlapSettings): Promise<ReadonlySet<string>> {
  const { ops, moment, available } = run;
  const { now, zone } = moment;
  const calm = await ops.flapping(now - flap.stableMs);
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
    const stable = `stable for ${formatDuration(flap.stableMs)}`;
    const fateOn = (channel: InterruptChannel): Fate => {
      if (mute) return { status: 'suppressed', reason: `muted until ${wall(mute.until, now, zone)}` };
      if (!down && start.some((item) => item.delivery.channel === channel && item.delivery.status === 'sent')) {
        return { status: 'sent', reason: `${stable}: it answers the "flapping" sent before` };
      }
      return { ...release(moment, start.some((item) => item.bypassQuietHours)), reason: stable };
    };
    return channels.map((channel) => delivery({ row, eventId: null }, channel, 'flap_end', fateOn(channel), message, now));
  });
  await keep(run, ops.addDeliveries(notices));
  await ops.putSubjects(calm.map((state) => ({ ...state, outages: [], flappingSince: null })));
  return new Set(keys);
}
