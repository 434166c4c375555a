import type { z } from 'zod';
import type { ConnectorContext } from '../context.ts';
import type { RevenueConnector } from '../connector.ts';
import { daysOf } from '../dates.ts';
import { collectPages, defineClient, type QueryValue } from '../http.ts';
import { toRevenue } from './map.ts';
import { balance, balanceTransaction, charge, errorBody, listOf, subscription } from './schemas.ts';

/** The response shapes below are this version's; Stripe answers in it whatever the account's default. */
export const STRIPE_VERSION = '2025-03-31.basil';

/** Stripe masks a rejected key itself; anything key-like that is not masked is masked here. */
const redact = (text: string) => text.replace(/\b((?:sk|rk)_(?:live|test)_)[A-Za-z0-9]+/g, '$1****');

const client = defineClient({
  service: 'Stripe',
  headers: (credentials) => ({ authorization: `Bearer ${credentials.secretKey ?? ''}`, 'stripe-version': STRIPE_VERSION }),
  errorMessage(body) {
    const parsed = errorBody.safeParse(body);
    return parsed.success ? redact(parsed.data.error.message) : undefined;
  },
});

/** A ledger bigger than 10,000 transactions in one range is not read to its end. */
const MAX_PAGES = 100;

/** Every item of a list, 100 a page, following `has_more` with `starting_after=<last id>`. */
function listAll<T extends { id: string }>(
  ctx: ConnectorContext,
  accountId: string | undefined,
  path: string,
  query: Record<string, QueryValue>,
  item: z.ZodType<T>,
): Promise<T[]> {
  const schema = listOf(item);
  return collectPages<T, string>(
    undefined,
    async (after) => {
      const { data: page } = await client.request(ctx, {
        path,
        query: { ...query, limit: 100, starting_after: after },
        headers: accountId ? { 'stripe-account': accountId } : {},
        schema,
      });
      const last = page.data.at(-1);
      return { items: page.data, next: page.has_more && last ? last.id : undefined };
    },
    // Each object once, however the pages overlap.
    { maxPages: MAX_PAGES, key: (entry) => entry.id },
  );
}

const DAY_SECONDS = 86_400;

/**
 * Stripe: gross and net from the range's balance transactions (the ledger, after fees and refunds),
 * MRR from active and past-due subscriptions, the last payment from the newest charges. Amounts stay
 * in the account's currency; the route converts.
 */
export const stripe: RevenueConnector = {
  service: 'stripe',
  defaultBaseUrl: 'https://api.stripe.com/v1',
  rateLimit: { limit: 25, windowMs: 1_000 },

  async test(ctx) {
    await client.get(ctx, '/balance', {}, balance);
  },

  async revenue(ctx, { config, range, now }) {
    if (config.provider !== 'stripe') throw new Error(`Stripe cannot report revenue for ${config.provider}`);
    const { accountId } = config;
    const days = daysOf(range, now);
    const from = Date.parse(`${days[0] ?? ''}T00:00:00Z`) / 1000;
    const to = Date.parse(`${days.at(-1) ?? ''}T00:00:00Z`) / 1000 + DAY_SECONDS;
    const [transactions, active, pastDue, recent] = await Promise.all([
      listAll(ctx, accountId, '/balance_transactions', { 'created[gte]': from, 'created[lt]': to }, balanceTransaction),
      listAll(ctx, accountId, '/subscriptions', { status: 'active' }, subscription),
      listAll(ctx, accountId, '/subscriptions', { status: 'past_due' }, subscription),
      client.request(ctx, { path: '/charges', query: { limit: 10 }, headers: accountId ? { 'stripe-account': accountId } : {}, schema: listOf(charge) }),
    ]);
    // A subscription that fell past due between the two reads is in both lists: counted once.
    const subscriptions = [...new Map([...active, ...pastDue].map((s) => [s.id, s])).values()];
    return toRevenue({ range, now, transactions, subscriptions, charges: recent.data.data });
  },
};
