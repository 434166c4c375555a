import { z } from 'zod';
import { briefingPartNames, briefingPartSchema, briefingPeriodSchema } from './briefing-destinations.ts';
import { metricKeySchema } from './history.ts';
import { isTimeZone, weekdaySchema } from './quiet-hours.ts';

/**
 * The morning briefing: what changed over a window (since the last briefing, default the last 24 hours) across
 * every product, compared with the window before and with the same days a week earlier where the data allows,
 * and, at the top, the lines that cross a threshold ("needs you"). Computed from the answers the widgets read
 * (the same data procedures and cache), never from a second copy of an upstream's arithmetic. Amounts are major
 * units of `currency`; instants ISO 8601.
 */

const instant = z.iso.datetime({ offset: true });

export const briefingQuerySchema = z.object({
  /** One project's slug; empty or absent: every project. */
  project: z
    .string()
    .trim()
    .max(64)
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
  /** Where the window starts (ISO 8601, at most 31 days back); absent: the last briefing read, else 24 hours ago. */
  since: instant.optional(),
  /**
   * `day` (the default): the trend compares the last complete day with the same weekday a week before; `week`: the
   * last 7 complete days with the 7 before, with each key metric's 7 daily values, and the window is at least 7 days.
   */
  period: z
    .enum(briefingPeriodSchema.options, { error: 'period is day or week' })
    .optional()
    .describe('day (the default): each key metric on the last complete day against the same weekday a week before; week: the last 7 complete days against the 7 before, with a 7-day sparkline per metric, and a window of at least 7 days'),
});
export type BriefingQuery = z.infer<typeof briefingQuerySchema>;

/** A figure now, with what it was over the window before and the same days a week earlier (null: unknown). */
export const comparedSchema = z.object({
  value: z.number().nullable(),
  previous: z.number().nullable(),
  weekAgo: z.number().nullable(),
  /** (value - previous) / previous, a fraction; null when either is unknown or previous is 0. */
  change: z.number().nullable(),
});
export type Compared = z.infer<typeof comparedSchema>;

/** Where a line of the briefing leads: its widget on the dashboard, or an inbox thread. */
export const briefingLinkSchema = z.string();

export const briefingSectionNames = ['revenue', 'shipping', 'bugs', 'reviews', 'traffic', 'search', 'errors', 'uptime', 'funding'] as const;
export const briefingSectionSchema = z.enum(briefingSectionNames);
export type BriefingSection = z.infer<typeof briefingSectionSchema>;

/**
 * One key metric of a project from the metric history (never from an upstream), against last week. `day`: its value on
 * the last complete day (UTC) and on the same weekday a week before. `week`: the last 7 complete days against the 7
 * before: a flow of counts or money summed, a flow of fractions (uptime) averaged, a stock's last value; `spark` is the
 * 7 daily values, oldest first, present only when every one of the 7 days has one. `previous` and `change` are null
 * when the history has nothing for the compared day (or week): "no history yet", never 0 %.
 */
export const briefingTrendSchema = z.object({
  metric: metricKeySchema,
  /** The catalogue's label ("MRR", "Visitors"). */
  label: z.string(),
  value: z.number().nullable(),
  previous: z.number().nullable(),
  /** (value - previous) / previous, a fraction (0.12 = +12 %); null when either is unknown or previous is 0. */
  change: z.number().nullable(),
  /** `money` in major units of `currency`; `percent` is 0-100 (99.5 = 99.5 %); `count` a plain number. */
  unit: z.enum(['money', 'count', 'percent']),
  currency: z.string().optional(),
  spark: z.array(z.number()).optional(),
});
export type BriefingTrend = z.infer<typeof briefingTrendSchema>;

export const briefingProjectSchema = z.object({
  slug: z.string(),
  name: z.string(),
  color: z.string().nullable(),
  /** Each section is null when the project has no such integration set up. */
  revenue: z
    .object({
      currency: z.string(),
      /** Gross revenue over the window's days. */
      revenue: comparedSchema,
      /** Gross revenue over the last 7 complete days, against the 7 before (the revenue widget's chart). */
      week: comparedSchema,
      /** Net revenue over the last 7 days, as the revenue widget's 7-day view reports it, and its change since the last briefing's. */
      netWeek: comparedSchema,
      /** Now, and its change since the last briefing (null: none recorded yet). */
      mrr: comparedSchema,
      activeSubscribers: comparedSchema,
      link: briefingLinkSchema,
    })
    .nullable(),
  shipping: z
    .object({
      items: z.array(z.object({ title: z.string(), source: z.string(), url: z.string().nullable(), shippedAt: instant })),
      link: briefingLinkSchema,
    })
    .nullable(),
  bugs: z
    .object({
      /** Bugs opened in the window, still open. */
      opened: z.array(z.object({ title: z.string(), priority: z.number().int(), url: z.string().nullable(), createdAt: instant })),
      /** Issues completed in the window (the issue tracker's shipped items). */
      closed: z.number().int().nonnegative(),
      link: briefingLinkSchema,
    })
    .nullable(),
  reviews: z
    .object({
      /** New in the window, lowest rating first. */
      items: z.array(z.object({ rating: z.number().int().min(1).max(5), title: z.string(), territory: z.string(), createdAt: instant })),
      link: briefingLinkSchema,
    })
    .nullable(),
  traffic: z
    .object({
      /** Visitors over the window's days (the analytics widget's daily chart). */
      visitors: comparedSchema,
      /** The biggest referrers of the analytics widget's range; `new` when the last briefing did not list it. */
      referrers: z.array(z.object({ source: z.string(), visitors: z.number().int(), new: z.boolean() })),
      link: briefingLinkSchema,
    })
    .nullable(),
  search: z
    .object({
      /** The biggest queries of the search widget; `new` when the last briefing did not list it. */
      queries: z.array(z.object({ query: z.string(), clicks: z.number().int().nullable(), new: z.boolean() })),
      link: briefingLinkSchema,
    })
    .nullable(),
  errors: z
    .object({
      /** Issues first seen in the window. */
      new: z.array(z.object({ title: z.string(), level: z.string(), userCount: z.number().int(), count: z.number().int().nullable(), url: z.string().nullable() })),
      /** Older issues seen again in the window. */
      active: z.number().int().nonnegative(),
      /** Users affected by the issues seen in the window. */
      usersAffected: z.number().int().nonnegative(),
      /** Events of the listed issues since the last briefing (null: none recorded yet), and their daily average over the last week's briefings. */
      events: comparedSchema,
      link: briefingLinkSchema,
    })
    .nullable(),
  uptime: z
    .object({
      /** Outages in the inbox that started in the window or are still open, longest first. */
      incidents: z.array(
        z.object({ title: z.string(), startedAt: instant, resolvedAt: instant.nullable(), durationMinutes: z.number().int().nonnegative(), open: z.boolean(), link: briefingLinkSchema }),
      ),
      /** Monitors down or degraded now (the uptime widget's). */
      down: z.array(z.string()),
      link: briefingLinkSchema,
    })
    .nullable(),
  funding: z
    .object({
      currency: z.string().nullable(),
      /** Money received in the window (credits). */
      received: z.number(),
      contributions: z.number().int().nonnegative(),
      link: briefingLinkSchema,
    })
    .nullable(),
  /** Its key metrics against last week, from the metric history (those it keeps), in the briefing's period. */
  trend: z.array(briefingTrendSchema).optional(),
});
export type BriefingProject = z.infer<typeof briefingProjectSchema>;

/** A line that crosses a threshold, with the number behind it. */
export const needsYouSchema = z.object({
  /**
   * Which threshold: `revenue_drop`, `low_ratings`, `error_spike`, `new_errors`, `long_outage` (an outage that ended),
   * `traffic_drop`; or `down_now`, a monitor down now, whatever the outage threshold.
   */
  rule: z.string(),
  project: z.string(),
  section: briefingSectionSchema,
  severity: z.enum(['warning', 'error']),
  text: z.string(),
  value: z.number(),
  threshold: z.number(),
  link: briefingLinkSchema,
});
export type NeedsYou = z.infer<typeof needsYouSchema>;

/** An open metric-alert thread of the inbox: its project, its title, since when (ISO 8601), and its link (the bell at it). */
export const briefingMetricAlertSchema = z.object({ project: z.string(), title: z.string(), since: instant, link: briefingLinkSchema });
export type BriefingMetricAlert = z.infer<typeof briefingMetricAlertSchema>;

export const briefingSchema = z.object({
  window: z.object({ since: instant, until: instant }),
  /** The days the daily figures cover (YYYY-MM-DD, UTC), and the days they are compared with. */
  days: z.object({ current: z.array(z.iso.date()), previous: z.array(z.iso.date()), weekAgo: z.array(z.iso.date()) }),
  generatedAt: instant,
  needsYou: z.array(needsYouSchema),
  /** One line for a quiet day ("Nothing needs you…"); null when something does. */
  quiet: z.string().nullable(),
  projects: z.array(briefingProjectSchema),
  /** Sources that could not be read (nothing cached either), named; the rest is still shown. */
  failed: z.array(z.object({ project: z.string(), section: briefingSectionSchema, error: z.string() })),
  /** Whether this briefing (its window's end) has been read in the app; the dashboard links it until then. */
  unread: z.boolean(),
  /** What the trend compares: a day with the same weekday a week before, or a week with the week before. */
  period: briefingPeriodSchema.optional(),
  /** The metric alerts still open in the inbox (source `metrics`), newest first. */
  metricAlerts: z.array(briefingMetricAlertSchema).optional(),
});
export type Briefing = z.infer<typeof briefingSchema>;

/** The thresholds of "needs you", editable in settings. */
export const briefingThresholdsSchema = z.strictObject({
  /** Revenue over the last 7 days this many percent below the 7 before. */
  revenueDropPercent: z.number().int('a whole percent').min(1).max(100),
  /** Visitors over the window's days this many percent below the days before. */
  trafficDropPercent: z.number().int('a whole percent').min(1).max(100),
  /** Reviews at or below this many stars count as low. */
  lowRatingStars: z.number().int().min(1).max(4),
  /** This many low reviews in the window need you. */
  lowRatingCount: z.number().int().min(1).max(100),
  /** This many times the daily average of error events (over the last week's briefings). */
  errorSpikeFactor: z.number().min(1.5).max(100),
  /** This many new error issues in the window. */
  newErrorIssues: z.number().int().min(1).max(1000),
  /** An outage open (or that lasted) this many minutes. */
  outageMinutes: z.number().int().min(1).max(10_080),
});
export type BriefingThresholds = z.infer<typeof briefingThresholdsSchema>;

export const defaultBriefingThresholds: BriefingThresholds = {
  revenueDropPercent: 25,
  trafficDropPercent: 40,
  lowRatingStars: 2,
  lowRatingCount: 1,
  errorSpikeFactor: 3,
  newErrorIssues: 3,
  outageMinutes: 30,
};

export const saveBriefingThresholdsSchema = z.strictObject({ thresholds: briefingThresholdsSchema });

export const markBriefingReadSchema = z.strictObject({ until: instant });

/** When the briefing email goes out: a local time on chosen weekdays (off by default; offered once SendGrid is set up). */
export const briefingScheduleSchema = z.strictObject({
  enabled: z.boolean(),
  /** HH:MM in `timezone`. */
  time: z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'time is written HH:MM, from 00:00 to 23:59'),
  /** IANA time zone, e.g. `Europe/Berlin`; daylight saving is followed. */
  timezone: z.string().trim().min(1, 'timezone is required').refine(isTimeZone, 'timezone is not a time zone this server knows (e.g. Europe/Berlin)'),
  days: z
    .array(weekdaySchema)
    .min(1, 'days lists at least one day')
    .max(7)
    .refine((days) => new Set(days).size === days.length, 'days lists a day twice'),
  /** What each email covers: the day before it (compared with the same day last week), or the week before (with the week before that). */
  period: briefingPeriodSchema.default('day'),
  /** The parts it holds (issue 52), as every destination chooses them. */
  parts: z
    .array(briefingPartSchema)
    .min(1, 'parts lists at least one part')
    .max(briefingPartNames.length)
    .refine((parts) => new Set(parts).size === parts.length, 'parts lists a part twice')
    .default([...briefingPartNames]),
});
export type BriefingSchedule = z.infer<typeof briefingScheduleSchema>;
/** A schedule as a client sends it: the period and the parts may be left out (the day, every part). */
export type BriefingScheduleInput = z.input<typeof briefingScheduleSchema>;

export const defaultBriefingSchedule: BriefingSchedule = { enabled: false, time: '08:00', timezone: 'UTC', days: ['mon', 'tue', 'wed', 'thu', 'fri'], period: 'day', parts: [...briefingPartNames] };

/** The briefing's settings as the settings page shows them. */
export const briefingSettingsSchema = z.object({
  thresholds: briefingThresholdsSchema,
  schedule: briefingScheduleSchema,
  /** Whether the email can be offered: SendGrid is set up (Settings → Refresh & alerts). */
  emailAvailable: z.boolean(),
  /** The next send (ISO 8601) while the schedule is on; null otherwise. */
  nextSendAt: instant.nullable(),
  /** The last email sent: when, for which window, and how it went. */
  lastSent: z.object({ at: instant, until: instant, status: z.enum(['sent', 'failed', 'skipped']), error: z.string().nullable() }).nullable(),
});
export type BriefingSettings = z.infer<typeof briefingSettingsSchema>;

/** The briefing email as it is sent: its subject, HTML body and plain-text part. */
export const briefingEmailSchema = z.object({ subject: z.string(), html: z.string(), text: z.string() });
export type BriefingEmail = z.infer<typeof briefingEmailSchema>;
