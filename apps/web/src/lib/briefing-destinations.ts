import { briefingPartNames, weekdays, type BriefingCadence, type BriefingMedium, type BriefingPart, type BriefingSendRecord, type Weekday } from '@dash/contracts';

/**
 * Settings → Briefing → The briefing on your channels, its pure parts: the words for a medium, a part and a day, the
 * schedule form's draft (every value kept while the owner switches Off, Daily and Weekly) and the cadence the API takes
 * back from it, and how a destination's last send reads. BriefingDestinationRow.svelte shows and edits what these return.
 */

export { briefingPartNames, weekdays };

export type Every = BriefingCadence['every'];

export const everyNames: Record<Every, string> = { off: 'Off', day: 'Daily', week: 'Weekly' };

export const partNames: Record<BriefingPart, string> = {
  needs_you: 'What needs you',
  figures: 'Each product’s figures',
  shipped: 'What shipped',
  reviews: 'Reviews',
  metric_alerts: 'Metric alerts',
};

export const mediumNames: Record<BriefingMedium, string> = {
  email: 'Email',
  slack: 'Slack',
  discord: 'Discord',
  telegram: 'Telegram',
  ntfy: 'ntfy',
  webhook: 'Signed webhook',
  push: 'Push device',
};

export const dayNames: Record<Weekday, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };

/** The schedule form's values: a day and a time even while off, so switching back finds them. */
export interface CadenceDraft {
  every: Every;
  day: Weekday;
  time: string;
}

/** A new schedule's time and day: a morning, on the first of the week. */
const MORNING = '08:00';

export function draftOf(cadence: BriefingCadence): CadenceDraft {
  if (cadence.every === 'off') return { every: 'off', day: 'mon', time: MORNING };
  if (cadence.every === 'day') return { every: 'day', day: 'mon', time: cadence.time };
  return { every: 'week', day: cadence.day, time: cadence.time };
}

/** The cadence the API takes: only what the chosen schedule has (an off one has no time). */
export function cadenceOf(draft: CadenceDraft): BriefingCadence {
  if (draft.every === 'off') return { every: 'off' };
  if (draft.every === 'day') return { every: 'day', time: draft.time };
  return { every: 'week', day: draft.day, time: draft.time };
}

/** The saved schedule in words: "Off", "Daily at 08:00", "Weekly on Monday at 08:00". */
export function cadenceText(cadence: BriefingCadence): string {
  if (cadence.every === 'off') return 'Off';
  if (cadence.every === 'day') return `Daily at ${cadence.time}`;
  return `Weekly on ${dayNames[cadence.day]} at ${cadence.time}`;
}

/** The parts in the order the briefing has them, whatever order they were ticked in. */
export const inOrder = (parts: readonly BriefingPart[]): BriefingPart[] => briefingPartNames.filter((part) => parts.includes(part));

/** What a send now says once it went: how many messages the service took ("2 messages", "1 message"). */
export const sentText = (posted: number): string => `Sent now: ${posted} ${posted === 1 ? 'message' : 'messages'} went.`;

/**
 * How the last scheduled briefing went, before and after its time (the page puts the time between):
 * `['Last: the weekly briefing sent', '']`, `['Last: the daily briefing failed', ': Slack answered 404: no_service']`.
 */
export function lastWords(last: BriefingSendRecord): [before: string, after: string] {
  const which = `the ${last.period === 'week' ? 'weekly' : 'daily'} briefing`;
  const of = last.messages > 1 ? ` (${last.posted} of ${last.messages} messages)` : '';
  switch (last.status) {
    case 'sent':
      return [`Last: ${which} sent`, ''];
    case 'sending':
      return [`Last: ${which} sending${of}, since`, ''];
    case 'failed':
      return [`Last: ${which} failed${of}`, `: ${last.error ?? 'no reason given'}`];
    case 'skipped':
      return [`Last: ${which} skipped`, `: ${last.error ?? 'no reason given'}`];
  }
}
