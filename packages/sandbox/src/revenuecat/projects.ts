import { DAY_MS, seededRandom } from '../demo.ts';

/**
 * The demo's RevenueCat projects: each a run of seeded days of App Store and Play Store business (revenue,
 * refunds, transactions, active subscriptions), which the overview and the charts add up.
 */

/** One day of a project's App Store and Play Store business, in USD. */
export interface Day {
  start: number;
  /** Sales minus the refunds processed that day: RevenueCat's Revenue. */
  revenue: number;
  refunds: number;
  transactions: number;
  /** Paid subscriptions active at the end of the day. */
  actives: number;
  monthlyActives: number;
  yearlyActives: number;
}

export interface Project {
  id: string;
  name: string;
  createdAt: number;
  monthlyPrice: number;
  yearlyPrice: number;
  days: Day[];
  /** Share of a price the stores keep as tax (VAT, sales tax), and as commission after that. */
  taxRate: number;
  commission: number;
}

// Sunday first, like Date#getUTCDay: consumer apps sell most at the weekend.
const weekday = [1.18, 0.92, 0.9, 0.93, 0.97, 1.03, 1.12];

/** How far back the projects' days go: more than a year, so a year's daily history is whole on the demo's first day. */
const HISTORY_DAYS = 450;

/**
 * 450 days of daily revenue for one app: subscribers grow by ~40% over the last year, monthly plans renew
 * about a thirtieth a day, yearly plans arrive as a trickle, a little over 1% of payments are refunded.
 * Today is the part of the day that has passed (RevenueCat marks it incomplete).
 */
export function buildProject(
  name: string,
  { projectId, monthlyPrice, yearlyPrice, subscribers }: { projectId: string; monthlyPrice: number; yearlyPrice: number; subscribers: number },
  now: number,
  yearlyShare: number,
): Project {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days: Day[] = [];
  // The days before the last year come from a stream of their own, so the last year stays as it always was.
  const before = seededRandom(`revenuecat:${projectId}:before`);
  for (let i = HISTORY_DAYS; i > 365; i--) days.push(dayOf(i, before));
  const random = seededRandom(`revenuecat:${projectId}`);
  for (let i = 365; i >= 0; i--) days.push(dayOf(i, random));

  function dayOf(i: number, draw: () => number): Day {
    const start = today - i * DAY_MS;
    const t = (365 - i) / 365;
    const actives = Math.round(subscribers * (0.7 + 0.3 * t) - 6 * draw());
    const yearlyActives = Math.round(actives * yearlyShare);
    const monthlyActives = actives - yearlyActives;
    const season = weekday[new Date(start).getUTCDay()] ?? 1;
    const monthly = Math.round((monthlyActives / 30.4) * season * (0.85 + 0.3 * draw()));
    const yearly = Math.round((yearlyActives / 365) * season * (0.4 + 1.2 * draw()));
    const refundedMonthly = draw() < monthly * 0.01 ? 1 + Math.floor(draw() * 2) : 0;
    const refundedYearly = draw() < 0.06 ? 1 : 0;
    const refunds = refundedMonthly * monthlyPrice + refundedYearly * yearlyPrice;
    const share = i === 0 ? (now - today) / DAY_MS : 1;
    return {
      start,
      revenue: (monthly * monthlyPrice + yearly * yearlyPrice - refunds) * share,
      refunds: refunds * share,
      transactions: Math.round((monthly + yearly) * share),
      actives: i === 0 ? subscribers : actives,
      monthlyActives: i === 0 ? subscribers - Math.round(subscribers * yearlyShare) : monthlyActives,
      yearlyActives: i === 0 ? Math.round(subscribers * yearlyShare) : yearlyActives,
    };
  }
  return {
    id: projectId,
    name,
    createdAt: today - 700 * DAY_MS,
    monthlyPrice,
    yearlyPrice,
    days,
    taxRate: 0.08,
    commission: 0.15,
  };
}
