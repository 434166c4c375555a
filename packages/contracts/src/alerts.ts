import { z } from 'zod';

/** One line of a subject: no line breaks (a header), at most 200 characters. */
const subjectLine = z
  .string()
  .trim()
  .min(1, 'subject is required')
  .max(200, 'subject has at most 200 characters')
  .refine((value) => !/[\r\n]/.test(value), 'subject is one line');

export const alertMonitorSchema = z.object({
  name: z.string().trim().min(1, 'name is required').max(200),
  /** `down`, `up`, `degraded`…: shown as given (escaped). */
  status: z.string().trim().min(1, 'status is required').max(40),
  /** Linked only when it is an http(s) URL; shown as text otherwise. */
  url: z.string().max(2_000).default(''),
});
export type AlertMonitor = z.infer<typeof alertMonitorSchema>;

/** POST /api/alerts/send: a health alert the dashboard writes, or a custom email sent as given. */
export const alertInputSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('health'), monitors: z.array(alertMonitorSchema).min(1, 'list at least one monitor').max(200) }),
    z.strictObject({ type: z.literal('custom'), subject: subjectLine, html: z.string().min(1, 'html is required').max(200_000, 'html has at most 200 KB') }),
  ],
  { error: 'type is "health" or "custom"' },
);
export type AlertInput = z.infer<typeof alertInputSchema>;

/** `{ sent: true, id }` with SendGrid's X-Message-Id, or `{ configured: false }` when email is not set up. */
export const alertResultSchema = z.union([z.object({ sent: z.literal(true), id: z.string() }), z.object({ configured: z.literal(false) })]);
export type AlertResult = z.infer<typeof alertResultSchema>;

/** Where email alerts go and who sends them; never the key. */
export const emailStatusSchema = z.object({
  configured: z.boolean(),
  /** The variables (SENDGRID_API_KEY…) or a SendGrid credential saved in settings; null when neither is there. */
  source: z.enum(['env', 'credential']).nullable(),
  credentialKey: z.string().nullable(),
  from: z.string().nullable(),
  to: z.array(z.string()),
  /** What is still needed, by the name of the variable or field. */
  missing: z.array(z.string()),
});
export type EmailStatus = z.infer<typeof emailStatusSchema>;

/** A notification email on its way to SendGrid, or sent, or failed: what Settings lists. */
export const emailDeliverySchema = z.object({
  id: z.string(),
  title: z.string(),
  /** `first` (an outage, an alert), `resolve` (its recovery, a reply), `repeat`, `flap_start`, `flap_end`, `digest`. */
  purpose: z.string(),
  state: z.enum(['queued', 'delivered', 'failed']),
  attempts: z.number().int().nonnegative(),
  /** SendGrid's X-Message-Id once delivered. */
  messageId: z.string().nullable(),
  /** The last refusal, in SendGrid's words. */
  error: z.string().nullable(),
  createdAt: z.iso.datetime(),
  sentAt: z.iso.datetime().nullable(),
  /** When a queued one is tried next. */
  nextAttemptAt: z.iso.datetime().nullable(),
});
export type EmailDelivery = z.infer<typeof emailDeliverySchema>;
export const emailDeliveriesSchema = z.object({ deliveries: z.array(emailDeliverySchema) });
