import { randomUUID } from 'node:crypto';
import { channelFloors, type NotificationPolicy, type NotificationSeverity, severityRank } from '@dash/contracts';
import type { DeliveryRow, InterruptMessage, NotificationRow } from '@dash/db';
import { composeDigest, type HeldItem, type HeldPeriod } from '../digest.ts';
import { quietAt } from '../quiet-hours.ts';
import { wall } from './release.ts';
import { keep, type TickRun } from './tick-run.ts';
import { step } from './trace.ts';

/** The deferred interruptions sent as one digest per channel once no quiet period holds them (its words: ../digest.ts). */

/** The deferred interruptions, once nothing holds them back: one digest per channel (the tab its summary, the inbox its email). */
export async function flushDigests(run: TickRun, deferred: DeliveryRow[]): Promise<void> {
  const { ops, moment } = run;
  const { now, zone } = moment;
  const rows = new Map((await ops.rows([...new Set(deferred.flatMap((d) => (d.notificationId ? [d.notificationId] : [])))])).map((row) => [row.id, row]));
  for (const channel of [...new Set(deferred.map((d) => d.channel))]) {
    await keep(run, flush(run, deferred.filter((d) => d.channel === channel), rows, channel));
  }
  run.trace.note(deferred, (d) => {
    const stage = d.heldFor === 'pause' ? 'pause' : 'quiet_hours';
    if (!d.notificationId || !rows.has(d.notificationId)) return null;
    if (leftOutOfDigest(d, rows)) return step(stage, 'none', LEFT_OUT, now);
    return step(stage, 'sent', `went out in the ${wall(now, now, zone)} digest`, now);
  });
}

/** Folds one channel's deferred interruptions into one digest (none when nothing is left to say), in the tick's transaction. */
async function flush(run: TickRun, deferred: DeliveryRow[], rows: ReadonlyMap<string, NotificationRow>, channel: DeliveryRow['channel']): Promise<DeliveryRow[]> {
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
