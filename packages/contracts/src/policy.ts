import { z } from 'zod';
import { notificationSeverities, webhookIntegrationSchema, type NotificationSeverity } from './notifications.ts';

/**
 * Notification policy: preferences per integration and event type, and the ordered rules. They decide
 * which events *interrupt* (a browser notification, an email); every event is stored in the inbox
 * whatever they say. Matching is done without regular expressions built from user input: type globs
 * know only `*`, payload conditions are dot paths and a fixed set of operators.
 */

export const notificationSeveritySchema = z.enum(notificationSeverities, {
  error: 'A severity is one of info, success, warning, error',
});

/** `info < success < warning < error`; `error` is the critical level. */
export const severityRank: Record<NotificationSeverity, number> = { info: 0, success: 1, warning: 2, error: 3 };

/** Where a notification shows: the in-app inbox and toast (always), a browser notification, an email. */
export const notificationChannels = ['inApp', 'browser', 'email'] as const;
export type NotificationChannel = (typeof notificationChannels)[number];

/** The channels that interrupt, which preferences and rules switch; in-app is always on. */
export const interruptChannelSchema = z.enum(['browser', 'email'], { error: 'A channel is browser or email' });
export type InterruptChannel = z.infer<typeof interruptChannelSchema>;

/**
 * An event type or a glob of them: `deploy.error`, `deploy.*`, `*.created`, `*`. Only `*` is special:
 * it stands for one or more characters, dots included (`error.*` covers `error.issue_created`).
 * Letters, digits, `_`, `-`, `.` and `:` otherwise; `**` is refused (it would only mean "two or more").
 */
export const typeGlobSchema = z
  .string()
  .trim()
  .min(1, 'type is required (use * for every type)')
  .max(100, 'type is at most 100 characters')
  .regex(/^[A-Za-z0-9_.:*-]+$/, 'type is an event type or a glob such as deploy.*: letters, digits, _ - . : and *')
  .refine((glob) => !glob.includes('**'), 'type has ** : one * already stands for one or more characters');

const pathSegment = /^[A-Za-z0-9_-]+$/;
/** Segments that would reach an object's prototype instead of the payload's own data. */
export const forbiddenPathSegments: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A dot path into an event's payload, `deployment.target`: 1 to 8 segments of letters, digits, `_`
 * and `-`; array items by index (`commits.0.id`). Never a prototype segment.
 */
export const payloadPathSchema = z
  .string()
  .min(1, 'path is required, e.g. deployment.target')
  .max(200, 'path is at most 200 characters')
  .superRefine((path, ctx) => {
    const segments = path.split('.');
    if (segments.length > 8) ctx.addIssue({ code: 'custom', message: 'path has at most 8 segments' });
    else if (!segments.every((segment) => pathSegment.test(segment)))
      ctx.addIssue({ code: 'custom', message: 'path is a dot path such as deployment.target: letters, digits, _ and - between dots, no patterns' });
    else if (segments.some((segment) => forbiddenPathSegments.has(segment)))
      ctx.addIssue({ code: 'custom', message: 'path may not use __proto__, constructor or prototype' });
  });

/** A value a payload condition compares with: a string, a finite number, a boolean or null. */
export const payloadScalarSchema = z.union([z.string().max(200), z.number().finite(), z.boolean(), z.null()], {
  error: 'value is a string (at most 200 characters), a number, a boolean or null',
});
export type PayloadScalar = z.infer<typeof payloadScalarSchema>;

/**
 * One condition on the payload. `eq`/`neq`: strict equality (`neq` also holds when the path is
 * missing); `in`: equal to one of a list; `contains`: a string that includes `value` (case-sensitive),
 * or an array with an item equal to it; `gt`/`lt`: a number compared with a number; `exists`: the path
 * is present (`value: false`: absent). Nothing is coerced: `"1"` is not `1`.
 */
export const payloadConditionSchema = z.discriminatedUnion(
  'op',
  [
    z.strictObject({ path: payloadPathSchema, op: z.enum(['eq', 'neq']), value: payloadScalarSchema }),
    z.strictObject({
      path: payloadPathSchema,
      op: z.literal('in'),
      value: z.array(payloadScalarSchema).min(1, 'value lists at least one item').max(50, 'value lists at most 50 items'),
    }),
    z.strictObject({ path: payloadPathSchema, op: z.literal('contains'), value: payloadScalarSchema }),
    z.strictObject({ path: payloadPathSchema, op: z.enum(['gt', 'lt']), value: z.number({ error: 'value is a number' }).finite() }),
    z.strictObject({ path: payloadPathSchema, op: z.literal('exists'), value: z.boolean().optional() }),
  ],
  { error: 'op is one of eq, neq, in, contains, gt, lt, exists' },
);
export type PayloadCondition = z.infer<typeof payloadConditionSchema>;

/** What a rule applies to; every field given must hold (an empty match applies to everything). */
export const ruleMatchSchema = z.strictObject({
  integrations: z.array(webhookIntegrationSchema).min(1, 'integrations lists at least one').max(5).optional(),
  type: typeGlobSchema.optional(),
  /** Compared with the severity as earlier rules left it. */
  minSeverity: notificationSeveritySchema.optional(),
  /** Dashboard project slugs; an event with no project never matches. */
  projects: z.array(z.string().trim().min(1).max(64)).min(1, 'projects lists at least one').max(50).optional(),
  /** Words in the title, case-insensitive. */
  titleContains: z.string().min(1, 'titleContains is not empty').max(200, 'titleContains is at most 200 characters').optional(),
  payload: z.array(payloadConditionSchema).max(10, 'payload has at most 10 conditions').optional(),
});
export type RuleMatch = z.infer<typeof ruleMatchSchema>;

/** What a matching rule does. Later rules win for each scalar; see `evaluate` for the exact order. */
export const ruleActionsSchema = z
  .strictObject({
    setSeverity: notificationSeveritySchema.optional(),
    addChannels: z.array(interruptChannelSchema).max(2).optional(),
    removeChannels: z.array(interruptChannelSchema).max(2).optional(),
    bypassQuietHours: z.boolean().optional(),
    /** Stored and shown, never interrupting. */
    silence: z.boolean().optional(),
    /** Stored as done: not unread, not counted, no channel at all. */
    discard: z.boolean().optional(),
  })
  .superRefine((actions, ctx) => {
    const both = (actions.addChannels ?? []).filter((channel) => actions.removeChannels?.includes(channel));
    if (both.length > 0)
      ctx.addIssue({ code: 'custom', path: ['removeChannels'], message: `removeChannels repeats ${both.join(', ')} from addChannels` });
  });
export type RuleActions = z.infer<typeof ruleActionsSchema>;

export const notificationRuleSchema = z.strictObject({
  id: z.string().trim().min(1, 'id is required').max(64),
  name: z.string().trim().min(1, 'name is required').max(100, 'name is at most 100 characters'),
  enabled: z.boolean(),
  match: ruleMatchSchema,
  actions: ruleActionsSchema,
  /** No rule after this one is applied when it matches. */
  stop: z.boolean(),
});
export type NotificationRule = z.infer<typeof notificationRuleSchema>;

export const MAX_NOTIFICATION_RULES = 100;

/** The rules in evaluation order, at most 100, ids unique. */
export const notificationRulesSchema = z
  .array(notificationRuleSchema)
  .max(MAX_NOTIFICATION_RULES, `rules has at most ${MAX_NOTIFICATION_RULES} entries`)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((rule, index) => {
      if (seen.has(rule.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `id ${rule.id} is used by an earlier rule` });
      seen.add(rule.id);
    });
  });

/** Saving the rules: the whole ordered list at once, so issues are named `rules.3.match.type`. */
export const saveNotificationRulesSchema = z.strictObject({ rules: notificationRulesSchema });

/**
 * A preference for an integration (or `*`) and an event type or glob (or `*`). At or above
 * `minSeverity`, and when `enabled`, it interrupts on the channels switched on; otherwise the event is
 * in-app only. In-app has no switch: it is always on, so an `error` always shows in the app.
 */
export const notificationPreferenceSchema = z.strictObject({
  integration: z.union([webhookIntegrationSchema, z.literal('*')], {
    error: 'integration is one of code_host, deploy_host, error_tracker, issue_tracker, uptime_monitor or *',
  }),
  type: typeGlobSchema,
  enabled: z.boolean(),
  minSeverity: notificationSeveritySchema,
  channels: z.strictObject({ browser: z.boolean(), email: z.boolean() }),
});
export type NotificationPreference = z.infer<typeof notificationPreferenceSchema>;

/** All preferences; one per (integration, type). */
export const notificationPreferencesSchema = z
  .array(notificationPreferenceSchema)
  .max(200, 'preferences has at most 200 entries')
  .superRefine((preferences, ctx) => {
    const seen = new Set<string>();
    preferences.forEach((preference, index) => {
      const key = `${preference.integration} ${preference.type}`;
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: [index, 'type'], message: `a preference for ${preference.integration} / ${preference.type} already exists` });
      seen.add(key);
    });
  });

export const saveNotificationPreferencesSchema = z.strictObject({ preferences: notificationPreferencesSchema });

/** One step of a decision: which preference or rule decided what, and why. */
export const decisionTraceEntrySchema = z.object({
  stage: z.enum(['preference', 'rule']),
  /** The rule's id, `integration/type` of a preference, or `default` for the built-in preference. */
  id: z.string(),
  name: z.string(),
  /** `applied`; a preference may also be `disabled` or `below_min_severity`. */
  verdict: z.enum(['applied', 'disabled', 'below_min_severity']),
  why: z.string(),
});
export type DecisionTraceEntry = z.infer<typeof decisionTraceEntrySchema>;

/** What the policy decided for one event; stored with it and answered by the dry run. */
export const policyDecisionSchema = z.object({
  severity: notificationSeveritySchema,
  /** `alert`: a state change (trigger, resolve) or a warning or error; `change`: a PR merged, an issue created. */
  kind: z.enum(['alert', 'change']),
  /** In order `inApp`, `browser`, `email`; `inApp` always, unless discarded (then none). */
  channels: z.array(z.enum(notificationChannels)),
  bypassQuietHours: z.boolean(),
  silenced: z.boolean(),
  discarded: z.boolean(),
  trace: z.array(decisionTraceEntrySchema),
});
export type PolicyDecision = z.infer<typeof policyDecisionSchema>;
