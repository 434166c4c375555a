import { DAY_MS, demoProducts, hexId, seededRandom } from '../demo.ts';
import { seconds, type Listed } from './protocol.ts';

/**
 * Formfox's seeded Stripe account: its prices and subscriptions, and the ledger they leave (charges, refunds,
 * Billing's fees, weekly payouts), as the routes in index.ts list them. One function, as every record draws from
 * one seeded stream in a fixed order; split, the order would be easy to break.
 */

const HOUR = 3_600_000;
/** How far back the ledger goes: more than a year, so a year's daily history is whole on the demo's first day. */
const HISTORY_DAYS = 430;

/** Stripe's ids: a prefix and 24 characters of base62. */
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function addMonths(ms: number, months: number): number {
  const date = new Date(ms);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const last = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, last));
  return date.getTime();
}

const countries = ['US', 'US', 'US', 'US', 'GB', 'GB', 'DE', 'DE', 'CA', 'FR', 'NL', 'AU', 'SE', 'ES', 'BR', 'IE'] as const;
const brands = ['visa', 'visa', 'visa', 'mastercard', 'mastercard', 'amex'] as const;

/**
 * Formfox's Stripe account: 312 active subscriptions (monthly at $19, yearly at $190, a few teams with
 * three seats), a few past due and trialing, churned ones, and 430 days of what they paid: charges with
 * card and billing countries, the balance transactions behind them (fees, a few refunds, weekly
 * payouts, Billing's monthly fee), all in integer cents, newest first.
 */
export function buildAccount(now: number) {
  const formfox = demoProducts.find((p) => p.slug === 'formfox');
  if (formfox?.revenue.provider !== 'stripe') throw new Error('Formfox bills with Stripe in the demo');
  const { monthlyPrice, yearlyPrice, subscribers } = formfox.revenue;
  let random = seededRandom('stripe:formfox');
  const id = (prefix: string, length = 24) => {
    let out = prefix;
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
    return out;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const yearAgo = now - 365 * DAY_MS;
  const historyFrom = now - HISTORY_DAYS * DAY_MS;
  /** The payments of the months before the last year, made once the year is done (see below). */
  const older: { at: number; customer: string; amount: number; label: string }[] = [];
  const account = `acct_1${hexId('stripe:formfox:account', 15)}`;

  const product = { monthly: 'prod_FormfoxPro01', yearly: 'prod_FormfoxPro01' };
  const prices = {
    month: {
      id: 'price_1FormfoxProMonthly',
      object: 'price',
      active: true,
      billing_scheme: 'per_unit',
      created: seconds(now - 900 * DAY_MS),
      currency: 'usd',
      livemode: false,
      lookup_key: 'pro_monthly',
      metadata: {},
      nickname: 'Pro monthly',
      product: product.monthly,
      recurring: { interval: 'month', interval_count: 1, meter: null, usage_type: 'licensed' },
      tax_behavior: 'exclusive',
      type: 'recurring',
      unit_amount: Math.round(monthlyPrice * 100),
      unit_amount_decimal: String(Math.round(monthlyPrice * 100)),
    },
    year: {
      id: 'price_1FormfoxProYearly',
      object: 'price',
      active: true,
      billing_scheme: 'per_unit',
      created: seconds(now - 900 * DAY_MS),
      currency: 'usd',
      livemode: false,
      lookup_key: 'pro_yearly',
      metadata: {},
      nickname: 'Pro yearly',
      product: product.yearly,
      recurring: { interval: 'year', interval_count: 1, meter: null, usage_type: 'licensed' },
      tax_behavior: 'exclusive',
      type: 'recurring',
      unit_amount: Math.round(yearlyPrice * 100),
      unit_amount_decimal: String(Math.round(yearlyPrice * 100)),
    },
  };

  type Status = 'active' | 'past_due' | 'trialing' | 'canceled';
  interface Plan {
    status: Status;
    interval: 'month' | 'year';
    quantity: number;
    created: number;
    endedAt: number | null;
  }
  const plans: Plan[] = [];
  const ageOfActive = () => (random() < 0.45 ? random() * 365 : 365 + random() * 700) * DAY_MS;
  for (let i = 0; i < subscribers; i++) {
    const interval = i % 9 < 2 ? 'year' : 'month';
    plans.push({ status: 'active', interval, quantity: interval === 'month' && i % 25 === 3 ? 3 : 1, created: now - ageOfActive() - HOUR, endedAt: null });
  }
  for (let i = 0; i < 5; i++) plans.push({ status: 'past_due', interval: 'month', quantity: 1, created: now - (40 + random() * 300) * DAY_MS, endedAt: null });
  for (let i = 0; i < 9; i++) plans.push({ status: 'trialing', interval: 'month', quantity: 1, created: now - (1 + random() * 12) * DAY_MS, endedAt: null });
  for (let i = 0; i < 44; i++) {
    const created = now - (60 + random() * 600) * DAY_MS;
    const endedAt = Math.min(now - 2 * DAY_MS, created + (30 + random() * 400) * DAY_MS);
    plans.push({ status: 'canceled', interval: i % 7 === 0 ? 'year' : 'month', quantity: 1, created, endedAt });
  }

  const charges: (Listed & Record<string, unknown>)[] = [];
  const transactions: (Listed & Record<string, unknown> & { amount: number; net: number; type: string; available_on: number })[] = [];
  const fee = (amount: number) => Math.round(amount * 0.029) + 30;
  const availableOn = (ms: number) => seconds(Math.floor(ms / DAY_MS) * DAY_MS + 2 * DAY_MS);

  function charge(at: number, customer: string, amount: number, description: string, options: { failed?: boolean; billingCountry?: string | null; cardCountry?: string } = {}) {
    const cardCountry = options.cardCountry ?? pick(countries);
    const billingCountry = options.billingCountry === undefined ? (random() < 0.7 ? cardCountry : null) : options.billingCountry;
    const chargeId = id('ch_3');
    const txnId = options.failed ? null : id('txn_3');
    const record = {
      id: chargeId,
      object: 'charge',
      amount,
      amount_captured: options.failed ? 0 : amount,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: txnId,
      billing_details: {
        address: { city: null, country: billingCountry, line1: null, line2: null, postal_code: null, state: null },
        email: `${customer.slice(4, 12).toLowerCase()}@example.com`,
        name: null,
        phone: null,
      },
      calculated_statement_descriptor: 'FORMFOX',
      captured: !options.failed,
      created: seconds(at),
      currency: 'usd',
      customer,
      description,
      disputed: false,
      failure_code: options.failed ? 'card_declined' : null,
      failure_message: options.failed ? 'Your card was declined.' : null,
      livemode: false,
      metadata: {},
      outcome: options.failed
        ? { network_status: 'declined_by_network', reason: 'generic_decline', risk_level: 'normal', seller_message: 'The bank did not return any further details with this decline.', type: 'issuer_declined' }
        : { network_status: 'approved_by_network', reason: null, risk_level: 'normal', seller_message: 'Payment complete.', type: 'authorized' },
      paid: !options.failed,
      payment_intent: id('pi_3'),
      payment_method: id('pm_1'),
      payment_method_details: {
        card: {
          brand: pick(brands),
          country: cardCountry,
          exp_month: 1 + Math.floor(random() * 12),
          exp_year: new Date(now).getUTCFullYear() + 1 + Math.floor(random() * 4),
          funding: 'credit',
          last4: String(1000 + Math.floor(random() * 9000)),
        },
        type: 'card',
      },
      receipt_url: options.failed ? null : `https://pay.stripe.com/receipts/${chargeId}`,
      refunded: false,
      refunds: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/charges/${chargeId}/refunds` },
      status: options.failed ? 'failed' : 'succeeded',
    };
    charges.push(record);
    if (txnId) {
      const fees = fee(amount);
      transactions.push({
        id: txnId,
        object: 'balance_transaction',
        amount,
        available_on: availableOn(at),
        created: seconds(at),
        currency: 'usd',
        description,
        exchange_rate: null,
        fee: fees,
        fee_details: [{ amount: fees, application: null, currency: 'usd', description: 'Stripe processing fees', type: 'stripe_fee' }],
        net: amount - fees,
        reporting_category: 'charge',
        source: chargeId,
        status: 'available',
        type: 'charge',
      });
    }
    return record;
  }

  const subscriptions = plans.map((plan) => {
    const customer = id('cus_', 14);
    const subscriptionId = id('sub_1');
    const price = prices[plan.interval];
    const amount = price.unit_amount * plan.quantity;
    const step = plan.interval === 'month' ? 1 : 12;
    const trialEnd = plan.status === 'trialing' ? plan.created + 14 * DAY_MS : null;
    let periodStart = plan.created;
    for (let n = 0; ; n++) {
      const at = addMonths(plan.created, n * step);
      if (at > now - HOUR || (plan.endedAt !== null && at > plan.endedAt)) break;
      periodStart = at;
      if (plan.status === 'trialing') continue;
      const label = n === 0 ? 'Subscription creation' : 'Subscription update';
      if (at < yearAgo) {
        if (at >= historyFrom) older.push({ at, customer, amount, label });
        continue;
      }
      const failed = plan.status === 'past_due' && addMonths(at, step) > now;
      charge(at + Math.floor(random() * 40) * 60_000, customer, amount, label, { failed });
    }
    const periodEnd = trialEnd ?? addMonths(periodStart, step);
    return {
      id: subscriptionId,
      object: 'subscription',
      application: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: seconds(plan.created),
      cancel_at: null,
      cancel_at_period_end: plan.status === 'active' && random() < 0.04,
      canceled_at: plan.endedAt === null ? null : seconds(plan.endedAt - 3 * DAY_MS),
      collection_method: 'charge_automatically',
      created: seconds(plan.created),
      currency: 'usd',
      customer,
      default_payment_method: id('pm_1'),
      description: null,
      discounts: [],
      ended_at: plan.endedAt === null ? null : seconds(plan.endedAt),
      items: {
        object: 'list',
        data: [
          {
            id: id('si_', 14),
            object: 'subscription_item',
            created: seconds(plan.created),
            current_period_end: seconds(periodEnd),
            current_period_start: seconds(trialEnd ? plan.created : periodStart),
            discounts: [],
            metadata: {},
            price,
            quantity: plan.quantity,
            subscription: subscriptionId,
            tax_rates: [],
          },
        ],
        has_more: false,
        total_count: 1,
        url: `/v1/subscription_items?subscription=${subscriptionId}`,
      },
      latest_invoice: id('in_1'),
      livemode: false,
      metadata: {},
      start_date: seconds(plan.created),
      status: plan.status,
      trial_end: trialEnd === null ? null : seconds(trialEnd),
      trial_start: trialEnd === null ? null : seconds(plan.created),
    };
  });

  // The newest payments: a one-off pack of extra responses (billing address unknown, card from
  // Germany), and newer still a declined card, which is not a payment.
  charge(now - 40 * 60_000, id('cus_', 14), 1999, 'Extra responses pack (1,000)', { billingCountry: null, cardCountry: 'DE' });
  charge(now - 12 * 60_000, id('cus_', 14), 1900, 'Subscription update', { failed: true });

  /** A few refunds of the charges made from `from` to `to` (ms), each a few days after the charge it gives back. */
  function refunds(count: number, from: number, to: number) {
    const refundable = charges.filter((c) => c.status === 'succeeded' && c.created >= seconds(from) && c.created < seconds(to));
    for (let i = 0; i < count; i++) {
      const refunded = refundable[Math.floor(random() * refundable.length)];
      if (!refunded || refunded.refunded) continue;
      const at = refunded.created * 1000 + (1 + random() * 4) * DAY_MS;
      const amount = refunded.amount as number;
      const refundId = id('re_3');
      refunded.refunded = true;
      refunded.amount_refunded = amount;
      refunded.refunds = {
        object: 'list',
        data: [{ id: refundId, object: 'refund', amount, charge: refunded.id, created: seconds(at), currency: 'usd', reason: 'requested_by_customer', status: 'succeeded' }],
        has_more: false,
        total_count: 1,
        url: `/v1/charges/${refunded.id}/refunds`,
      };
      transactions.push({
        id: id('txn_3'),
        object: 'balance_transaction',
        amount: -amount,
        available_on: seconds(at),
        created: seconds(at),
        currency: 'usd',
        description: 'REFUND FOR CHARGE (Subscription update)',
        exchange_rate: null,
        fee: 0,
        fee_details: [],
        net: -amount,
        reporting_category: 'refund',
        source: refundId,
        status: 'available',
        type: 'refund',
      });
    }
  }

  /** Billing's own fee on the first of each month from `from` up to `to` (ms). */
  function billingFees(from: number, to: number) {
    for (let month = Math.ceil(HISTORY_DAYS / 28); month >= 0; month--) {
      const first = addMonths(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1), -month);
      if (first < from || first >= to) continue;
      const volume = transactions.filter((t) => t.type === 'charge' && t.created >= seconds(addMonths(first, -1)) && t.created < seconds(first)).reduce((s, t) => s + t.amount, 0);
      const amount = -Math.round(volume * 0.007);
      transactions.push({
        id: id('txn_1'),
        object: 'balance_transaction',
        amount,
        available_on: seconds(first + 6 * HOUR),
        created: seconds(first + 6 * HOUR),
        currency: 'usd',
        description: 'Billing - Usage Fee',
        exchange_rate: null,
        fee: 0,
        fee_details: [],
        net: amount,
        reporting_category: 'fee',
        source: null,
        status: 'available',
        type: 'stripe_fee',
      });
    }
  }

  /** The Monday after `ms` (ms), or the one after that when `ms` is a Monday. */
  const mondayAfter = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS + (((8 - new Date(ms).getUTCDay()) % 7) + 7) * DAY_MS;
  /** A payout every Monday from `fromMonday` until `until` (ms) of what became available in the week before it. */
  function payouts(fromMonday: number, until: number) {
    for (let monday = fromMonday; monday < until; monday += 7 * DAY_MS) {
      const from = seconds(monday - 7 * DAY_MS);
      const to = seconds(monday);
      const amount = -transactions.filter((t) => t.type !== 'payout' && t.available_on > from && t.available_on <= to).reduce((s, t) => s + t.net, 0);
      if (amount >= 0) continue;
      const at = monday + 3 * HOUR;
      transactions.push({
        id: id('txn_1'),
        object: 'balance_transaction',
        amount,
        available_on: seconds(at),
        created: seconds(at),
        currency: 'usd',
        description: 'STRIPE PAYOUT',
        exchange_rate: null,
        fee: 0,
        fee_details: [],
        net: amount,
        reporting_category: 'payout',
        source: id('po_1'),
        status: 'available',
        type: 'payout',
      });
    }
  }

  refunds(9, yearAgo, now - 5 * DAY_MS);
  // Billing's own fee on the first of each month, and a payout every Monday of what became available.
  billingFees(yearAgo, now + 1);
  const firstMonday = mondayAfter(yearAgo);
  payouts(firstMonday, now + 1);

  // The months before the last year come from a stream of their own, so the last year stays as it always was.
  random = seededRandom('stripe:formfox:before');
  for (const payment of older) charge(payment.at + Math.floor(random() * 40) * 60_000, payment.customer, payment.amount, payment.label);
  refunds(3, historyFrom, yearAgo);
  billingFees(historyFrom, yearAgo);
  payouts(mondayAfter(historyFrom), firstMonday);
  for (const t of transactions) if (t.available_on > seconds(now)) t.status = 'pending';

  const newestFirst = (a: Listed, b: Listed) => b.created - a.created || (a.id < b.id ? 1 : -1);
  charges.sort(newestFirst);
  transactions.sort(newestFirst);
  subscriptions.sort(newestFirst);

  const sumNet = (status: string) => transactions.filter((t) => t.status === status).reduce((s, t) => s + t.net, 0);
  return { account, charges, transactions, subscriptions, available: sumNet('available'), pending: sumNet('pending') };
}
