import { z } from 'zod';
import { storedDecisionSchema, webhookIntegrationSchema } from './notifications.ts';

/**
 * The webhook inspector (issue 53): every webhook the dashboard took in (from the relay's polls and from its own
 * webhook route), what it became, its body for a while, and a replay through today's projects and policy; and what the
 * relay refused, counted per hour, so that "why did no notification come?" has an answer on one page.
 */

/**
 * What a delivered event became: a new notification, an event added to an open thread, a duplicate of an event taken
 * in before (deduplicated by its source event id), ignored (taken in, but nothing we handle), or invalid (its body did
 * not parse). A delivery that carried several events has a row per event, under the same delivery id.
 */
export const webhookOutcomeNames = ['notified', 'threaded', 'duplicate', 'ignored', 'invalid'] as const;
export const webhookOutcomeSchema = z.enum(webhookOutcomeNames);
export type WebhookOutcome = z.infer<typeof webhookOutcomeSchema>;

/** Where it came in: a relay poll, the dashboard's own webhook route, or a replay of an earlier row. */
export const deliverySourceSchema = z.enum(['relay', 'local', 'replay']);
export type DeliverySource = z.infer<typeof deliverySourceSchema>;

const instant = z.iso.datetime({ offset: true });

/** A row of the deliveries log, as listed (no body). */
export const deliverySummarySchema = z.object({
  id: z.string(),
  receivedAt: instant,
  source: deliverySourceSchema,
  integration: webhookIntegrationSchema,
  /** The event's type as the dashboard names it (`pr.opened`), or the provider's own kind when no event came of it (`ping`). */
  eventType: z.string().nullable(),
  /** The provider's delivery id (`X-GitHub-Delivery`), or the SHA-256 of the body where it sends none. */
  deliveryId: z.string().nullable(),
  outcome: webhookOutcomeSchema,
  /** Why, in words: what it was a duplicate of, why it was ignored, the parse error, that no project claims it. */
  detail: z.string().nullable(),
  title: z.string().nullable(),
  projectSlug: z.string().nullable(),
  /** The notification it became or was added to (a duplicate: the one its first copy became). */
  notificationId: z.string().nullable(),
  /** A duplicate: the row of its first copy, when the log still has it. */
  duplicateOf: z.string().nullable(),
  /** A replay: the row it replays. */
  replayOf: z.string().nullable(),
  /** Whether the body is still kept (24 hours by default; only the signed-in owner reads it). */
  hasBody: z.boolean(),
});
export type DeliverySummary = z.infer<typeof deliverySummarySchema>;

/** One row with what only its own page shows: the body (owner only, pretty-printed) and the policy's decision. */
export const deliveryDetailSchema = deliverySummarySchema.extend({
  sourceEventId: z.string().nullable(),
  /** Pretty-printed JSON (or the raw text when it is not JSON); null when gone or not the owner's to read (`bodyNote`). */
  body: z.string().nullable(),
  /** Why there is no body: `expired`, `owner_only`, `not_kept` (the relay did not forward it), or null when there is one. */
  bodyNote: z.enum(['expired', 'owner_only', 'not_kept']).nullable(),
  /** The policy's decision for the event, with its "Why?" trace; null for a duplicate, an ignored or an invalid row. */
  decision: storedDecisionSchema.nullable(),
  /** Rows that replayed this one, newest first. */
  replays: z.array(z.object({ id: z.string(), receivedAt: instant, outcome: webhookOutcomeSchema, notificationId: z.string().nullable() })),
});
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;

/** A search of the log: newest first, each filter optional, paged by the opaque cursor the last page gave. */
export const deliveryQuerySchema = z.strictObject({
  integration: webhookIntegrationSchema.optional(),
  outcome: webhookOutcomeSchema.optional(),
  /** Received at or after (ISO 8601). */
  since: instant.optional(),
  /** Received before (ISO 8601). */
  until: instant.optional(),
  /** Text in the title, event type, delivery id or source event id (case-insensitive). */
  q: z.string().trim().min(1).max(200).optional(),
  /** Only the rows that became or joined this notification (the "Why?" panel's link). */
  notification: z.string().min(1).max(100).optional(),
  cursor: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type DeliveryQuery = z.infer<typeof deliveryQuerySchema>;

export const deliveryPageSchema = z.object({
  deliveries: z.array(deliverySummarySchema),
  /** Pass as `cursor` for the next (older) page; null when this was the last. */
  nextCursor: z.string().nullable(),
});
export type DeliveryPage = z.infer<typeof deliveryPageSchema>;

/** Replays rows (1 to 100) through today's projects and policy; the same `requestId` again replays nothing more. */
export const deliveryReplayInputSchema = z.strictObject({
  ids: z
    .array(z.string().min(1).max(100))
    .min(1, 'ids lists at least one delivery')
    .max(100, 'at most 100 deliveries a replay')
    .refine((ids) => new Set(ids).size === ids.length, 'ids lists a delivery twice'),
  requestId: z.string().trim().regex(/^[\w-]{8,100}$/, 'requestId is 8 to 100 letters, digits, - or _ (a UUID fits)'),
});
export type DeliveryReplayInput = z.infer<typeof deliveryReplayInputSchema>;

export const deliveryReplayResultSchema = z.object({
  requestId: z.string(),
  /** True when this request id was replayed before: the rows are that replay's, nothing new was sent. */
  repeated: z.boolean(),
  /** The new rows, in the order of `ids`. */
  replayed: z.array(deliverySummarySchema),
  /** Rows that could not be replayed, with why (unknown id; invalid or ignored, so no event to replay). */
  skipped: z.array(z.object({ id: z.string(), why: z.string() })),
});
export type DeliveryReplayResult = z.infer<typeof deliveryReplayResultSchema>;

/**
 * Why a webhook was turned away before an event was stored, as the relay and the local route count them: a bad
 * signature (401), a stale signed timestamp (409), a repeated delivery id (409), over the rate limit (429), too large
 * (413), not JSON (415), ingestion disabled (503), an unparseable payload (400); and `not_handled`: taken in (200)
 * but of a kind no event comes of (GitHub's `ping`, a Linear `Reaction`).
 */
export const refusalReasonNames = [
  'bad_signature',
  'stale_timestamp',
  'replayed_delivery',
  'rate_limited',
  'too_large',
  'not_json',
  'disabled',
  'invalid_payload',
  'not_handled',
] as const;
export const refusalReasonSchema = z.enum(refusalReasonNames);
export type RefusalReason = z.infer<typeof refusalReasonSchema>;

/** One hour's count of one reason for one integration, at the relay or the local route. */
export const refusalCountSchema = z.object({
  /** The hour's start (ISO 8601, UTC). */
  hour: instant,
  source: z.enum(['relay', 'local']),
  integration: webhookIntegrationSchema,
  reason: refusalReasonSchema,
  count: z.number().int().nonnegative(),
});
export type RefusalCount = z.infer<typeof refusalCountSchema>;

export const refusalSummarySchema = z.object({
  /** Hourly counts since `since`, newest hour first. */
  counts: z.array(refusalCountSchema),
  /** One line per integration and reason with refusals in the last hour, with what to check ("check the webhook secret"). */
  advice: z.array(z.object({ integration: webhookIntegrationSchema, reason: refusalReasonSchema, count: z.number().int(), message: z.string() })),
  /** When the relay's counts were last read (null: never, or no relay). */
  relayReadAt: instant.nullable(),
});
export type RefusalSummary = z.infer<typeof refusalSummarySchema>;
