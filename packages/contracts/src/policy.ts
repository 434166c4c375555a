import { z } from 'zod';
import {
  decisionTraceEntrySchema,
  notificationChannels,
  notificationSeverities,
  notificationSourceSchema,
  webhookIntegrationSchema,
  type NotificationSeverity,
} from './notifications.ts';
import { quietHoursSchema } from './quiet-hours.ts';

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

/** The channels that interrupt, which preferences and rules switch; in-app is always on. */
export const interruptChannels = ['browser', 'email', 'push', 'chat'] as const;
export const interruptChannelSchema = z.enum(interruptChannels, { error: 'A channel is browser, email, push or chat' });
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
  integrations: z.array(notificationSourceSchema).min(1, 'integrations lists at least one').max(6).optional(),
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
    addChannels: z.array(interruptChannelSchema).max(4).optional(),
    removeChannels: z.array(interruptChannelSchema).max(4).optional(),
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
  integration: z.union([notificationSourceSchema, z.literal('*')], {
    error: 'integration is one of code_host, deploy_host, error_tracker, issue_tracker, uptime_monitor, metrics or *',
  }),
  type: typeGlobSchema,
  enabled: z.boolean(),
  minSeverity: notificationSeveritySchema,
  /**
   * `push` (Web Push to the subscribed devices) absent: as `email` (a preference saved before push existed); `chat`
   * (the chat and webhook connections) absent: as `email` too.
   */
  channels: z.strictObject({ browser: z.boolean(), email: z.boolean(), push: z.boolean().optional(), chat: z.boolean().optional() }),
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

/** What the policy decided for one event; stored with it and answered by the dry run. */
export const policyDecisionSchema = z.object({
  severity: notificationSeveritySchema,
  /** `alert`: a state change (trigger, resolve) or a warning or error; `change`: a PR merged, an issue created. */
  kind: z.enum(['alert', 'change']),
  /** In order `inApp`, `browser`, `email`, `push`, `chat`; `inApp` always, unless discarded (then none). */
  channels: z.array(z.enum(notificationChannels)),
  bypassQuietHours: z.boolean(),
  silenced: z.boolean(),
  discarded: z.boolean(),
  trace: z.array(decisionTraceEntrySchema),
});
export type PolicyDecision = z.infer<typeof policyDecisionSchema>;

/** What happens to one interrupting channel of an event, now. */
export const deliveryOutcomeSchema = z.object({
  /**
   * `now`: it interrupts at once; `held`: a flap hold waits for a quick recovery first; `deferred`: quiet
   * hours or a pause keep it for the digest; `suppressed`: a mute, a flap or an open thread keep it quiet;
   * `none`: the policy gives it no channel.
   */
  status: z.enum(['now', 'held', 'deferred', 'suppressed', 'none']),
  /** ISO 8601: when a held one goes out (unless its recovery comes first), when a deferred one's digest does. */
  until: z.string().nullable(),
  why: z.string(),
  /** For push: the devices it goes to (each subscribed browser, by the name it was given). */
  devices: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  /** For chat: the connections it goes to (those whose floor it reaches), by name. */
  connections: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
});
export type DeliveryOutcome = z.infer<typeof deliveryOutcomeSchema>;

/** How long an uptime monitor's outage is held before it interrupts (a recovery within it interrupts nobody); 0: no hold. */
export const DEFAULT_FLAP_HOLD_SECONDS = 120;
export const flapHoldSecondsSchema = z
  .number({ error: 'The flap hold is a number of seconds' })
  .int({ error: 'The flap hold is a whole number of seconds' })
  .min(0, { error: 'The flap hold is at least 0 s' })
  .max(3_600, { error: 'The flap hold is at most 3600 s (an hour)' });
/** `PUT /api/notifications/flap-hold`. */
export const saveFlapHoldSchema = z.strictObject({ seconds: flapHoldSecondsSchema });

/** Everything the policy reads from settings. */
export const notificationPolicySchema = z.strictObject({
  preferences: notificationPreferencesSchema,
  rules: notificationRulesSchema,
  quietHours: quietHoursSchema,
  /** The flap hold; absent: the default (`DEFAULT_FLAP_HOLD_SECONDS`). */
  flapHoldSeconds: flapHoldSecondsSchema.optional(),
});
export type NotificationPolicy = z.infer<typeof notificationPolicySchema>;

/** A subject muted for a while: its events are stored, never interrupting; one reminder if it is still down at the end. */
export const notificationMuteSchema = z.object({
  subjectKey: z.string(),
  /** ISO 8601. */
  until: z.string(),
  /** The latest inbox row's title for the subject, to name it. */
  title: z.string().nullable(),
});
export type NotificationMute = z.infer<typeof notificationMuteSchema>;

/**
 * A saved part of the policy that no longer fits its schema (an older version's, or edited by hand). It stays stored
 * as it is; until a valid one is saved, the last valid one applies (`last_valid`), or the default (`default`).
 */
export const policyAttentionSchema = z.object({
  part: z.enum(['preferences', 'rules', 'quietHours', 'pauseUntil', 'flapHoldSeconds']),
  /** The first field that does not fit, as a save's 400 names it: `rules.3.match.integrations.0`. */
  field: z.string(),
  message: z.string(),
  /** The stored value, unchanged (JSON, as the store keeps it). */
  stored: z.json(),
  applied: z.enum(['last_valid', 'default']),
});
export type PolicyAttention = z.infer<typeof policyAttentionSchema>;

/** `GET /api/notifications/policy`. */
export const notificationPolicyViewSchema = notificationPolicySchema.extend({
  mutes: z.array(notificationMuteSchema),
  /** Whether, right now, quiet hours or a pause hold interruptions back, and until when (ISO 8601). */
  quietNow: z.object({ quiet: z.boolean(), reason: z.enum(['window', 'pause']).nullable(), until: z.string().nullable() }),
  /** The email channel exists once an email sender is configured (the alerts feature); until then it is not offered. */
  email: z.object({ available: z.boolean(), reason: z.string().nullable() }),
  /** The push channel exists once a device is subscribed (Settings → Notifications → Devices). */
  push: z.object({ available: z.boolean(), devices: z.number().int(), reason: z.string().nullable() }),
  /** The chat channel exists once a connection is added (Settings → Notifications → Chat and webhooks). */
  chat: z.object({ available: z.boolean(), connections: z.number().int(), reason: z.string().nullable() }),
  /** How long a monitor's outage is held back before it interrupts, so a blip bothers nobody. */
  flapHoldSeconds: z.number().int(),
  /** Saved parts that no longer fit (empty when all do): shown in Settings → Notifications until fixed or discarded. */
  needsAttention: z.array(policyAttentionSchema),
});
export type NotificationPolicyView = z.infer<typeof notificationPolicyViewSchema>;

/** Pause everything until an instant (ISO 8601), or resume with null. */
export const pauseNotificationsSchema = z.strictObject({
  until: z.iso.datetime({ offset: true, error: 'until is an ISO 8601 instant, e.g. 2026-03-29T07:00:00Z' }).nullable(),
});

/** An event as the dry run takes it: what a webhook would bring. */
export const dryRunEventSchema = z.strictObject({
  integration: webhookIntegrationSchema,
  type: z.string().trim().min(1, 'type is required, e.g. deploy.error').max(100),
  severity: notificationSeveritySchema,
  title: z.string().max(500).default(''),
  transition: z.enum(['trigger', 'resolve']).nullable().default(null),
  /** The subject whose state changes (a monitor, a deploy target); needed for `transition`. */
  subjectKey: z.string().min(1).max(300).nullable().default(null),
  project: z.string().trim().min(1).max(64).nullable().default(null),
  payload: z.record(z.string(), z.unknown()).optional(),
});
export type DryRunEvent = z.infer<typeof dryRunEventSchema>;

/** `POST /api/notifications/dry-run`: what an event would do arriving at `at` (default now), under the saved policy or the given parts of another. */
export const dryRunSchema = z.strictObject({
  event: dryRunEventSchema,
  at: z.iso.datetime({ offset: true, error: 'at is an ISO 8601 instant' }).optional(),
  /** Unsaved edits to try (the settings' live preview); the saved policy for the parts not given. */
  policy: notificationPolicySchema.partial().optional(),
});

export const dryRunResultSchema = z.object({
  decision: policyDecisionSchema,
  /** Each interrupting channel's outcome, from the deliveries the planner would write (`none`, saying why, for one it would not use). */
  delivery: z.object({ browser: deliveryOutcomeSchema, email: deliveryOutcomeSchema, push: deliveryOutcomeSchema, chat: deliveryOutcomeSchema }),
});
export type DryRunResult = z.infer<typeof dryRunResultSchema>;

const instantOrNull = (field: string) =>
  z.iso.datetime({ offset: true, error: `${field} is an ISO 8601 instant, e.g. 2026-11-24T09:00:00+01:00` }).nullable();

/** Snooze inbox rows until an instant (null: wake them now). */
export const snoozeSchema = z.strictObject({
  ids: z.array(z.string().min(1).max(64)).min(1, 'List at least one id').max(500),
  until: instantOrNull('until'),
});

/** Mute a subject until an instant (at most 30 days), or end its mute with null. */
export const muteSchema = z.strictObject({
  subjectKey: z.string().min(1, 'subjectKey is required').max(300),
  until: instantOrNull('until'),
});

export const MAX_MUTE_MS = 30 * 86_400_000;
