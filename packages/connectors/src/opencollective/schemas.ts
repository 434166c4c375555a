import { z } from 'zod';

/**
 * Open Collective answers GraphQL v2 (Apollo): `{ data }` on success; `{ errors, data }` with HTTP 200
 * when a resolver failed (an unknown slug: `data.account` null and "No collective found with slug …");
 * `{ errors }` with 400 for a query it cannot parse or validate. `extensions.code` names the failure
 * (`Unauthorized`, `Forbidden`, `NotFound`, `RateLimitExceeded`, `GRAPHQL_VALIDATION_FAILED`…).
 */
export const graphqlError = z
  .object({
    message: z.string(),
    path: z.array(z.union([z.string(), z.number()])).optional(),
    extensions: z.object({ code: z.string().optional() }).loose().optional(),
  })
  .loose();
export type OcGraphQLError = z.infer<typeof graphqlError>;

export const graphqlErrorBody = z.object({ errors: z.array(graphqlError).min(1) }).loose();

/**
 * Outside GraphQL (a token it does not know, the rate limiter) Open Collective's Express layer answers
 * `{"error": {"code", "type", "message"}}`.
 */
export const restErrorBody = z.object({ error: z.object({ message: z.string(), type: z.string().optional() }).loose() }).loose();

/** The envelope only; `data` is parsed against the operation's own schema once `errors` is ruled out. */
export const envelope = z.object({ data: z.unknown().optional(), errors: z.array(graphqlError).optional() }).loose();

/** `Amount`: cents rather than the float `value`; both are nullable Floats in the schema, so an amount may be unknown. */
export const amount = z.object({ valueInCents: z.number().nullable(), currency: z.string().nullable().optional() }).loose();

export const transaction = z
  .object({
    id: z.string(),
    type: z.string(),
    kind: z.string().nullable().optional(),
    // Nullable in the schema: a transaction without a date is left out of the list.
    createdAt: z.string().nullable(),
    description: z.string().nullable(),
    amount,
  })
  .loose();
export type OcTransaction = z.infer<typeof transaction>;

export const member = z
  .object({
    role: z.string(),
    tier: z.object({ name: z.string().nullable() }).loose().nullable(),
    totalDonations: amount,
    account: z.object({ name: z.string().nullable(), imageUrl: z.string().nullable() }).loose().nullable(),
  })
  .loose();
export type OcMember = z.infer<typeof member>;

export const account = z
  .object({
    name: z.string().nullable(),
    currency: z.string().nullable(),
    stats: z
      .object({
        balance: amount.nullable(),
        totalAmountReceived: amount.nullable(),
        yearlyBudget: amount.nullable(),
      })
      .loose()
      .nullable(),
    // Collections' counts and lists, and their items, are all nullable in the schema.
    transactions: z.object({ totalCount: z.number().int().nullable(), nodes: z.array(transaction.nullable()).nullable() }).loose(),
    members: z.object({ totalCount: z.number().int().nonnegative().nullable(), nodes: z.array(member.nullable()).nullable() }).loose(),
  })
  .loose();
export type OcAccount = z.infer<typeof account>;

export const fundingData = z.object({ account: account.nullable() });

export const meData = z.object({ me: z.object({ id: z.string() }).loose().nullable() });

/** `TimeSeriesAmountNode`: the bucket's start (`DateTime!`) and an `Amount!` whose cents may still be null. */
export const timeSeriesNode = z.object({ date: z.string(), amount }).loose();

/** `account.stats.balanceTimeSeries` (`TimeSeriesAmount!`; its `nodes` a non-null list of non-null nodes). */
export const balanceHistoryData = z.object({
  account: z
    .object({
      currency: z.string().nullable(),
      stats: z.object({ balanceTimeSeries: z.object({ timeUnit: z.string(), nodes: z.array(timeSeriesNode) }).loose() }).loose().nullable(),
    })
    .loose()
    .nullable(),
});
