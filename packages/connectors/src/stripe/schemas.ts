import { z } from 'zod';

/** Stripe amounts are integers in the currency's minor unit; times are Unix seconds. */
const amount = z.number().int();
const unixSeconds = z.number().int();

/** `{ object: 'list', data, has_more, url }`, newest first; the next page starts after the last id. */
export const listOf = <T extends z.ZodType<{ id: string }>>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() }).loose();

export const balanceTransaction = z
  .object({
    id: z.string(),
    amount,
    fee: amount,
    net: amount,
    currency: z.string(),
    created: unixSeconds,
    /** charge, payment, refund, payment_refund, payout, stripe_fee, adjustment… */
    type: z.string(),
  })
  .loose();
export type StripeBalanceTransaction = z.infer<typeof balanceTransaction>;

export const price = z
  .object({
    currency: z.string(),
    /** Only set for per-unit prices; tiered ones have none. */
    unit_amount: amount.nullish(),
    recurring: z
      .object({
        interval: z.enum(['day', 'week', 'month', 'year']),
        interval_count: z.number().int(),
        usage_type: z.string().optional(),
      })
      .loose()
      .nullish(),
  })
  .loose();

export const subscriptionItem = z.object({ quantity: z.number().int().nonnegative().nullish(), price }).loose();
export type StripeSubscriptionItem = z.infer<typeof subscriptionItem>;

export const subscription = z
  .object({
    id: z.string(),
    status: z.string(),
    currency: z.string(),
    items: z.object({ data: z.array(subscriptionItem) }).loose(),
  })
  .loose();
export type StripeSubscription = z.infer<typeof subscription>;

export const charge = z
  .object({
    id: z.string(),
    amount,
    currency: z.string(),
    created: unixSeconds,
    status: z.enum(['succeeded', 'pending', 'failed']),
    billing_details: z
      .object({ address: z.object({ country: z.string().nullish() }).loose().nullish() })
      .loose()
      .nullish(),
    payment_method_details: z
      .object({ card: z.object({ country: z.string().nullish() }).loose().nullish() })
      .loose()
      .nullish(),
  })
  .loose();
export type StripeCharge = z.infer<typeof charge>;

export const balance = z.object({ object: z.literal('balance'), available: z.array(z.object({ amount, currency: z.string() }).loose()) }).loose();

/** `{"error":{"type":"invalid_request_error","message":"Invalid API Key provided: sk_test_****…"}}`. */
export const errorBody = z.object({ error: z.object({ message: z.string(), type: z.string().optional(), code: z.string().optional() }).loose() });
