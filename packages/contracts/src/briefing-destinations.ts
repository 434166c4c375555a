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

/** What a destination gets: its schedule and its parts (at least one). */
export const briefingDestinationSettingsSchema = z.strictObject({
  cadence: briefingCadenceSchema,
  parts: z
    .array(briefingPartSchema)
    .min(1, 'parts lists at least one part')
    .max(briefingPartNames.length)
    .refine((parts) => new Set(parts).size === parts.length, 'parts lists a part twice'),
});
export type BriefingDestinationSettings = z.infer<typeof briefingDestinationSettingsSchema>;

export const defaultBriefingDestinationSettings: BriefingDestinationSettings = { cadence: { every: 'off' }, parts: [...briefingPartNames] };

const instant = z.iso.datetime({ offset: true });

/** How a destination's last scheduled briefing went: sent, failed (with the service's words), or skipped (why). */
export const briefingSendRecordSchema = z.object({
  /** The period it covered: the local date of its scheduled day. */
  date: z.iso.date(),
  period: briefingPeriodSchema,
  status: z.enum(['sending', 'sent', 'failed', 'skipped']),
  /** When it was sent, failed or skipped. */
  at: instant,
  /** Messages posted of the briefing's sequence (a long briefing is several messages on some media). */
  posted: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  error: z.string().nullable(),
});
export type BriefingSendRecord = z.infer<typeof briefingSendRecordSchema>;

/** One destination as Settings → Briefing lists it. */
export const briefingDestinationSchema = z.object({
  id: briefingDestinationIdSchema,
  medium: briefingMediumSchema,
  /** The connection's or device's name ("#founders on Slack", "Pixel 8"). */
  name: z.string(),
  ...briefingDestinationSettingsSchema.shape,
  /** The next scheduled send (ISO 8601); null while off. */
  nextAt: instant.nullable(),
  last: briefingSendRecordSchema.nullable(),
});
export type BriefingDestination = z.infer<typeof briefingDestinationSchema>;

export const briefingDestinationsSchema = z.object({
  /** The owner's time zone (their quiet hours'), in which every schedule's time is read. */
  timezone: z.string(),
  destinations: z.array(briefingDestinationSchema),
});
export type BriefingDestinations = z.infer<typeof briefingDestinationsSchema>;

export const saveBriefingDestinationSchema = briefingDestinationSettingsSchema.extend({ id: briefingDestinationIdSchema });
export type SaveBriefingDestination = z.infer<typeof saveBriefingDestinationSchema>;

/** POST /api/briefing/send: the briefing now, to one destination. */
export const sendBriefingSchema = z.strictObject({ destination: briefingDestinationIdSchema, period: briefingPeriodSchema.default('day') });
export type SendBriefing = z.infer<typeof sendBriefingSchema>;

export const sendBriefingResultSchema = z.object({ destination: briefingDestinationIdSchema, posted: z.number().int().nonnegative(), messages: z.number().int().nonnegative() });
export type SendBriefingResult = z.infer<typeof sendBriefingResultSchema>;
