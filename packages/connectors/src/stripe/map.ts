import type { Range } from '@dash/contracts';
import type { RevenueReport } from '../connector.ts';
import { dailyChart, isoDay, roundMoney } from '../dates.ts';
import type { StripeBalanceTransaction, StripeCharge, StripeSubscription, StripeSubscriptionItem } from './schemas.ts';

/** Stripe's zero-decimal currencies: an amount of 1200 JPY is ¥1200, not ¥12. */
const zeroDecimal = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
/** And its three-decimal ones, in thousandths. */
const threeDecimal = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** How many minor units make one major unit of a currency, as Stripe counts them. */
export function minorUnits(currency: string): number {
  const code = currency.toUpperCase();
  if (zeroDecimal.has(code)) return 1;
  if (threeDecimal.has(code)) return 1000;
  return 100;
}

/** An integer amount in minor units, in major units. */
export const toMajor = (amount: number, currency: string): number => amount / minorUnits(currency);

/** What customers paid: card charges and other payment methods' payments. */
const grossTypes = new Set(['charge', 'payment']);
/** What stays after Stripe's fees and the refunds given back. Payouts, Billing fees and the like are not revenue. */
const netTypes = new Set(['charge', 'payment', 'refund', 'payment_refund']);

const perMonth = { day: 365 / 12, week: 52 / 12, month: 1, year: 1 / 12 } as const;

/**
 * One subscription item's monthly value in major units: unit price × quantity, over the interval
 * count, normalised to a month. A metered price bills usage afterwards and has no fixed value: 0.
 * A tiered price (no unit amount) or one without a usable interval has a value we cannot know: null.
 */
export function monthlyAmount(item: StripeSubscriptionItem): number | null {
  const { price } = item;
  if (price.recurring?.usage_type === 'metered') return 0;
  if (!price.recurring || price.unit_amount == null || price.recurring.interval_count < 1) return null;
  const { interval, interval_count } = price.recurring;
  return (toMajor(price.unit_amount, price.currency) * (item.quantity ?? 1) * perMonth[interval]) / interval_count;
}

/**
 * MRR of the subscriptions in the report's currency (active and past due, as Stripe counts MRR);
 * unknown when one item's value is, since a sum that left it out would be a wrong number.
 */
export function mrrOf(subscriptions: StripeSubscription[], currency: string): number | null {
  let mrr = 0;
  for (const subscription of subscriptions) {
    if (subscription.currency.toUpperCase() !== currency) continue;
    for (const item of subscription.items.data) {
      const monthly = monthlyAmount(item);
      if (monthly === null) return null;
      mrr += monthly;
    }
  }
  return roundMoney(mrr);
}

/** The country of a charge: the billing address's, else the card's issuing country. */
export function countryOf(charge: StripeCharge): string | undefined {
  const country = charge.billing_details?.address?.country ?? charge.payment_method_details?.card?.country ?? undefined;
  return country && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : undefined;
}

/** The newest succeeded charge whose country is known; failed and pending ones are not payments. */
export function lastPaymentOf(charges: StripeCharge[]): RevenueReport['lastPayment'] {
  for (const charge of [...charges].sort((a, b) => b.created - a.created)) {
    if (charge.status !== 'succeeded') continue;
    const country = countryOf(charge);
    if (!country) continue;
    return { amount: roundMoney(toMajor(charge.amount, charge.currency)), country, createdAt: new Date(charge.created * 1000).toISOString() };
  }
  return null;
}

/**
 * The account's currency, uppercased, from the data itself: balance transactions are always in the
 * account's settlement currency; subscriptions and charges are the fallback when the range had none.
 */
export function currencyOf(transactions: StripeBalanceTransaction[], subscriptions: StripeSubscription[], charges: StripeCharge[]): string {
  return (transactions[0]?.currency ?? subscriptions[0]?.currency ?? charges[0]?.currency ?? 'usd').toUpperCase();
}

/**
 * Gross and net per UTC day (`YYYY-MM-DD`) of the ledger's transactions in `currency`, in major units, unrounded: gross
 * is what customers paid (charges, payments), net what stayed after Stripe's fees and the refunds given back. The
 * revenue route's totals and chart and the daily series are both these sums, so they agree.
 */
export function ledgerByDay(transactions: readonly StripeBalanceTransaction[], currency: string): Map<string, { gross: number; net: number }> {
  const days = new Map<string, { gross: number; net: number }>();
  for (const txn of transactions) {
    if (txn.currency.toUpperCase() !== currency) continue;
    const gross = grossTypes.has(txn.type);
    if (!gross && !netTypes.has(txn.type)) continue;
    const day = isoDay(txn.created * 1000);
    const sums = days.get(day) ?? { gross: 0, net: 0 };
    if (gross) sums.gross += toMajor(txn.amount, txn.currency);
    if (netTypes.has(txn.type)) sums.net += toMajor(txn.net, txn.currency);
    days.set(day, sums);
  }
  return days;
}

export function toRevenue(params: {
  range: Range;
  now: number;
  transactions: StripeBalanceTransaction[];
  subscriptions: StripeSubscription[];
  charges: StripeCharge[];
}): RevenueReport {
  const currency = currencyOf(params.transactions, params.subscriptions, params.charges);
  let gross = 0;
  let net = 0;
  const perDay = new Map<string, number>();
  for (const [day, sums] of ledgerByDay(params.transactions, currency)) {
    gross += sums.gross;
    net += sums.net;
    perDay.set(day, sums.gross);
  }
  return {
    currency,
    grossRevenue: roundMoney(gross),
    netRevenue: roundMoney(net),
    mrr: mrrOf(params.subscriptions, currency),
    activeSubscribers: params.subscriptions.filter((s) => s.status === 'active').length,
    chart: dailyChart(params.range, params.now, perDay),
    lastPayment: lastPaymentOf(params.charges),
  };
}
