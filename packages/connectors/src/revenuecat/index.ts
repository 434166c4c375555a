import type { RevenueConnector } from '../connector.ts';
import type { ConnectorContext } from '../context.ts';
import { daysOf, roundMoney } from '../dates.ts';
import { ConnectorError } from '../errors.ts';
import { defineClient } from '../http.ts';
import { readableWindow } from '../series.ts';
import { dailyAmounts, overviewValue, toRevenue } from './map.ts';
import { chart, errorBody, overview, projectList, type RevenueCatChart } from './schemas.ts';

/** A v2 secret key in an upstream's message would be a leak; RevenueCat does not echo it, and never will here. */
const redact = (text: string) => text.replace(/\bsk_[A-Za-z0-9]{6,}/g, 'sk_****');

const client = defineClient({
  service: 'RevenueCat',
  headers: (credentials) => ({ authorization: `Bearer ${credentials.apiKey ?? ''}` }),
  errorMessage(body) {
    const parsed = errorBody.safeParse(body);
    return parsed.success ? redact(parsed.data.message) : undefined;
  },
  // RevenueCat's Retry-After is in milliseconds, and its 429 body repeats it as `backoff_ms`.
  retryAfterMs(headers, body) {
    const parsed = errorBody.safeParse(body);
    if (parsed.success && parsed.data.backoff_ms !== undefined) return parsed.data.backoff_ms;
    const header = Number(headers.get('retry-after') ?? Number.NaN);
    return Number.isFinite(header) && header >= 0 ? header : undefined;
  },
});

/** Resolution ids of the chart options endpoint: the API takes `0`, not `day`. */
const DAY_RESOLUTION = '0';

/** The revenue chart by day from `from` to `to` (`YYYY-MM-DD`, both in), in `currency`: one request of the 5 a minute. */
function dailyRevenue(ctx: ConnectorContext, projectId: string, from: string | undefined, to: string | undefined, currency: string): Promise<RevenueCatChart> {
  return client.get(
    ctx,
    `/projects/${encodeURIComponent(projectId)}/charts/revenue`,
    { resolution: DAY_RESOLUTION, start_date: from, end_date: to, currency, selectors: JSON.stringify({ revenue_type: 'revenue' }) },
    chart,
  );
}

/**
 * RevenueCat API v2: MRR and active subscriptions from the project's overview, and the range's daily
 * revenue from ONE revenue chart call; two requests a call, because the key's budget is 5 a minute.
 */
export const revenuecat: RevenueConnector = {
  service: 'revenuecat',
  defaultBaseUrl: 'https://api.revenuecat.com/v2',
  rateLimit: { limit: 5, windowMs: 60_000 },
  wholeHistory: true,

  async test(ctx) {
    await client.get(ctx, '/projects', { limit: 1 }, projectList);
  },

  async revenue(ctx, { config, range, currency, now }) {
    if (config.provider !== 'revenuecat') throw new Error(`RevenueCat cannot report revenue for ${config.provider}`);
    const project = `/projects/${encodeURIComponent(config.projectId)}`;
    const days = daysOf(range, now);
    const [cards, revenueChart] = await Promise.all([
      client.get(ctx, `${project}/metrics/overview`, { currency }, overview),
      dailyRevenue(ctx, config.projectId, days[0], days.at(-1), currency),
    ]);
    // The overview lists the cards RevenueCat has for the project; one it lacks is unknown, not 0.
    const mrr = overviewValue(cards, 'mrr');
    const activeSubscriptions = overviewValue(cards, 'active_subscriptions');
    return toRevenue({ range, now, currency, mrr, activeSubscriptions, chart: revenueChart });
  },

  history: {
    seriesDays: 365,
    /**
     * `revenue.gross` per day from ONE revenue chart call over the window, in the asked currency (RevenueCat converts):
     * its Revenue, what customers paid that day less the refunds processed in it, before the stores' commission and
     * taxes. `revenue.net` (Proceeds) is the same chart with another `revenue_type` selector, a second call of the
     * five a minute, so it is not read. The chart's last day is `incomplete` (still being counted) and is answered all
     * the same: the daily snapshot reads it again. A day the chart has no value for (null) is left out.
     */
    async series(ctx, { config, currency, ...window }) {
      if (config.provider !== 'revenuecat') throw new Error(`RevenueCat cannot report revenue for ${config.provider}`);
      const span = readableWindow(window);
      if (!span) return [];
      const answer = await dailyRevenue(ctx, config.projectId, span.from, span.to, currency);
      if (answer.resolution !== 'day') throw new ConnectorError('bad_response', `RevenueCat answered a daily chart by ${answer.resolution}`);
      const unit = answer.yaxis_currency ?? currency;
      return [...dailyAmounts(answer)]
        .filter(([date]) => date >= span.from && date <= span.to)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([date, value]) => ({ metric: 'revenue.gross' as const, date, value: roundMoney(value), currency: unit }));
    },
  },
};
