import { z } from 'zod';
import { weekdaySchema } from './quiet-hours.ts';

/**
 * Where the briefing goes besides its page (issue 52): the email, each chat connection (Slack, Discord, Telegram,
 * ntfy, the signed webhook) and each push device, each on a schedule of its own (off, daily at a time, or weekly on a
 * day at a time, in the owner's time zone) and with the parts it chooses. One briefing model is rendered for each
 * medium; each scheduled briefing goes once per destination and period.
 */

/** The parts a destination may get: what needs you, each product's figures, what shipped, reviews, metric alerts. */
export const briefingPartNames = ['needs_you', 'figures', 'shipped', 'reviews', 'metric_alerts'] as const;
export const briefingPartSchema = z.enum(briefingPartNames);
export type BriefingPart = z.infer<typeof briefingPartSchema>;

/** How often a briefing covers: a day (compared with the same day last week) or a week (with the week before). */
export const briefingPeriodSchema = z.enum(['day', 'week']);
export type BriefingPeriod = z.infer<typeof briefingPeriodSchema>;

const time = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'time is written HH:MM, from 00:00 to 23:59');

/** A destination's schedule, in the owner's time zone. */
export const briefingCadenceSchema = z.discriminatedUnion('every', [
  z.strictObject({ every: z.literal('off') }),
  z.strictObject({ every: z.literal('day'), time }),
  z.strictObject({ every: z.literal('week'), day: weekdaySchema, time }),
]);
export type BriefingCadence = z.infer<typeof briefingCadenceSchema>;

/** The media a briefing is rendered for. */
export const briefingMediumNames = ['email', 'slack', 'discord', 'telegram', 'ntfy', 'webhook', 'push'] as const;
export const briefingMediumSchema = z.enum(briefingMediumNames);
export type BriefingMedium = z.infer<typeof briefingMediumSchema>;

/** `email`, `chat:<connection id>` or `push:<device id>`. */
export const briefingDestinationIdSchema = z
  .string()
  .trim()
  .regex(/^(?:email|chat:[\w-]{1,64}|push:[\w-]{1,64})$/, 'destination is email, chat:<connection id> or push:<device id>');
