import { channelsOf, delivery, messageOf } from './deliveries.ts';
import { release, wall, type Fate } from './release.ts';
import { keep, type TickRun } from './tick-run.ts';

/**
 * Mutes that ended: one reminder for a subject still down, unless its flap is on or ended in this tick
 * (`flapsEnded`): the flap's end says how it stands ("still down"), once.
 */
export async function endMutes(run: TickRun, flapsEnded: ReadonlySet<string>): Promise<void> {
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
  await keep(run, ops.addDeliveries(reminders));
}
