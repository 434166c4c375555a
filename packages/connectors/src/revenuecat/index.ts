import type { RevenueConnector } from '../connector.ts';
import { daysOf } from '../dates.ts';
import { defineClient } from '../http.ts';
import { overviewValue, toRevenue } from './map.ts';
import { chart, errorBody, overview, projectList } from './schemas.ts';

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
      client.get(
        ctx,
        `${project}/charts/revenue`,
        {
          resolution: DAY_RESOLUTION,
          start_date: days[0],
          end_date: days.at(-1),
          currency,
          selectors: JSON.stringify({ revenue_type: 'revenue' }),
        },
        chart,
      ),
    ]);
    // The overview lists the cards RevenueCat has for the project; one it lacks is unknown, not 0.
    const mrr = overviewValue(cards, 'mrr');
    const activeSubscriptions = overviewValue(cards, 'active_subscriptions');
    return toRevenue({ range, now, currency, mrr, activeSubscriptions, chart: revenueChart });
  },
};
