import type { z } from 'zod';
import type { ConnectorContext } from '../context.ts';
import type { RevenueConnector } from '../connector.ts';
import { daysOf, isoDay, roundMoney } from '../dates.ts';
import { collectPages, defineClient, type QueryValue } from '../http.ts';
import { dayStart, daysBetween, nextDay, readableWindow } from '../series.ts';
import { ledgerByDay, toRevenue } from './map.ts';
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

const onBehalfOf = (accountId: string | undefined): Record<string, string> => (accountId ? { 'stripe-account': accountId } : {});

/**
 * Every item of a list, 100 a page, following `has_more` with `starting_after=<last id>`; `complete` is false when
 * paging stopped (at MAX_PAGES, or on a page that repeated) while Stripe still said `has_more`.
 */
async function listPages<T extends { id: string }>(
  ctx: ConnectorContext,
  accountId: string | undefined,
  path: string,
  query: Record<string, QueryValue>,
  item: z.ZodType<T>,
): Promise<{ items: T[]; complete: boolean }> {
  const schema = listOf(item);
  let more = false;
  const items = await collectPages<T, string>(
    undefined,
    async (after) => {
      const { data: page } = await client.request(ctx, { path, query: { ...query, limit: 100, starting_after: after }, headers: onBehalfOf(accountId), schema });
      const last = page.data.at(-1);
      more = page.has_more;
      return { items: page.data, next: page.has_more && last ? last.id : undefined };
    },
    // Each object once, however the pages overlap.
    { maxPages: MAX_PAGES, key: (entry) => entry.id },
  );
  return { items, complete: !more };
}

const listAll = async <T extends { id: string }>(...args: Parameters<typeof listPages<T>>): Promise<T[]> => (await listPages(...args)).items;

const DAY_SECONDS = 86_400;

/** Balance transactions are in the account's settlement currency; a window without any asks the balance which it is. */
async function balanceCurrency(ctx: ConnectorContext, accountId: string | undefined): Promise<string> {
  const { data } = await client.request(ctx, { path: '/balance', headers: onBehalfOf(accountId), schema: balance });
  return data.available[0]?.currency ?? 'usd';
}

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
      client.request(ctx, { path: '/charges', query: { limit: 10 }, headers: onBehalfOf(accountId), schema: listOf(charge) }),
    ]);
    // A subscription that fell past due between the two reads is in both lists: counted once.
    const subscriptions = [...new Map([...active, ...pastDue].map((s) => [s.id, s])).values()];
    return toRevenue({ range, now, transactions, subscriptions, charges: recent.data.data });
  },

  history: {
    // A year of the ledger: with MAX_PAGES (10,000 transactions) the read stops short only past ~27 payments a day.
    seriesDays: 365,
    /**
     * `revenue.gross` and `revenue.net` per UTC day from the window's balance transactions, summed as the revenue route
     * sums them (ledgerByDay), in the account's currency (named on each value; `currency` is the route's to convert
     * to). A day of the window the whole ledger was read for and that had no payment is 0: Stripe's ledger is complete.
     * A ledger bigger than MAX_PAGES pages is read newest first to the cap: only the days after the oldest transaction
     * read are answered (that day itself was read in part), and the older days are left out rather than shown low.
     */
    async series(ctx, { config, ...window }) {
      if (config.provider !== 'stripe') throw new Error(`Stripe cannot report revenue for ${config.provider}`);
      const span = readableWindow(window);
      if (!span) return [];
      const { accountId } = config;
      const { items, complete } = await listPages(
        ctx,
        accountId,
        '/balance_transactions',
        { 'created[gte]': dayStart(span.from) / 1000, 'created[lt]': dayStart(nextDay(span.to)) / 1000 },
        balanceTransaction,
      );
      const oldest = isoDay(items.reduce((at, txn) => Math.min(at, txn.created), dayStart(span.to) / 1000) * 1000);
      const from = complete || oldest < span.from ? span.from : nextDay(oldest);
      const currency = (items[0]?.currency ?? (await balanceCurrency(ctx, accountId))).toUpperCase();
      const days = ledgerByDay(items, currency);
      return daysBetween(from, span.to).flatMap((date) => {
        const sums = days.get(date) ?? { gross: 0, net: 0 };
        return [
          { metric: 'revenue.gross' as const, date, value: roundMoney(sums.gross), currency },
          { metric: 'revenue.net' as const, date, value: roundMoney(sums.net), currency },
        ];
      });
    },
  },
};
