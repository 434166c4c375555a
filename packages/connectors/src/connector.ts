import type {
  Analytics,
  Funding,
  Seo,
  Storefront,
  Currency,
  Idea,
  Integrations,
  MetricKey,
  Monitor,
  Incident,
  Range,
  Revenue,
  ServiceName,
  ShippedItem,
  TrackedIssue,
} from '@dash/contracts';
import type { ConnectorContext } from './context.ts';
import type { RateLimit } from './limiter.ts';

/**
 * One day's value of a metric as a provider's daily series gives it: what the metric history's backfill reads once
 * and the daily snapshot reads for the last few days (a provider's latest days are still settling). `date` is the
 * provider's own day (UTC, or Pacific for Search Console); a day the provider has no row for is left out (a gap, not a
 * zero) unless the provider says it was zero.
 */
export interface DailyValue {
  metric: MetricKey;
  date: string;
  value: number;
  /** With a money metric: the currency of `value`. */
  currency?: string;
}

/** The days a series read covers, `from` and `to` inclusive (YYYY-MM-DD), and now (ms). */
export interface SeriesWindow {
  from: string;
  to: string;
  now: number;
}

/**
 * A connector that can read a metric's days back: `seriesDays` is how far back a backfill asks (what the provider
 * keeps, or what is worth its rate limit), `series` the read itself.
 */
export interface SeriesReader<P> {
  seriesDays: number;
  series(ctx: ConnectorContext, params: P & SeriesWindow): Promise<DailyValue[]>;
}

/** What every service's folder exports: who it is, where it lives, and its lightest call. */
export interface ServiceConnector {
  service: ServiceName;
  /** The real API root; a credential's `baseUrl` replaces it (self-hosted, sandbox). */
  defaultBaseUrl: string;
  /** The upstream's published limit per account; every call on the account shares it. */
  rateLimit?: RateLimit;
  /** The lightest authenticated call. Resolves when the credentials work; throws a ConnectorError. */
  test(ctx: ConnectorContext): Promise<void>;
}

/** Revenue in the currency the upstream reported it in; the route converts when it must. */
export interface RevenueReport extends Revenue {
  currency: string;
}

export interface RevenueConnector extends ServiceConnector {
  /**
   * True when one call costs the same for any range (RevenueCat's two requests): the route then asks
   * for `all` once and cuts every range out of it, so switching ranges spends none of the upstream's
   * small budget. Sources that page through every transaction (Stripe) ask per range.
   */
  wholeHistory?: boolean;
  revenue(ctx: ConnectorContext, params: { config: Integrations['revenue']; range: Range; currency: Currency; now: number }): Promise<RevenueReport>;
  /** `revenue.gross` and `revenue.net` per day, in `currency` where the source can (else its own, named on each value). */
  history?: SeriesReader<{ config: Integrations['revenue']; currency: Currency }>;
}

export interface IdeasConnector extends ServiceConnector {
  /** Open issues, categorised and sorted (priority, then oldest first), at most `limit`. */
  ideas(ctx: ConnectorContext, params: { config: Integrations['issue_tracker']; limit: number }): Promise<Idea[]>;
}

/** A shipped item before the route names the dashboard project it belongs to. */
export type Shipped = Omit<ShippedItem, 'project'>;

/** GitHub for `code_host`, Linear for `issue_tracker`, Vercel for `deploy_host`. */
export interface ShippingConnector<I extends 'code_host' | 'issue_tracker' | 'deploy_host'> extends ServiceConnector {
  /** The newest shipped items first, at most `limit`. */
  shipped(ctx: ConnectorContext, params: { config: Integrations[I]; limit: number; now: number }): Promise<Shipped[]>;
}

export interface ErrorTrackerConnector extends ServiceConnector {
  /** The project's id upstream (Sentry's numeric one), which changes rarely: the route caches it longer. */
  projectId(ctx: ConnectorContext, params: { config: Integrations['error_tracker'] }): Promise<string>;
  /** Unresolved issues (the first page, most recently seen first) and their real total; looks the id up when not given. */
  issues(
    ctx: ConnectorContext,
    params: { config: Integrations['error_tracker']; projectId?: string },
  ): Promise<{ issues: TrackedIssue[]; errorCount: number }>;
  /** `errors.events` per day (the events the tracker accepted). */
  history?: SeriesReader<{ config: Integrations['error_tracker']; projectId: string }>;
}

export interface HealthConnector extends ServiceConnector {
  health(ctx: ConnectorContext, params: { config: Integrations['uptime_monitor'] }): Promise<{ monitors: Monitor[]; incidents: Incident[] }>;
  /** `uptime.up_ratio` (the monitors' average availability, 0-1) and `uptime.incidents` per day. */
  history?: SeriesReader<{ config: Integrations['uptime_monitor'] }>;
}

export interface StorefrontConnector extends ServiceConnector {
  /** The app's name and bundle id, its newest reviews (newest first) and its versions with their states. */
  storefront(ctx: ConnectorContext, params: { config: Integrations['storefront'] }): Promise<Storefront>;
}

export interface AnalyticsConnector extends ServiceConnector {
  /** One site's numbers over the range (days as in dates.ts, ending today UTC). */
  analytics(ctx: ConnectorContext, params: { siteId: string; range: Range; now: number }): Promise<Analytics>;
  /** Visitors right now, alone: it has a shorter time to live (15 s) than the rest (60 s). */
  live?(ctx: ConnectorContext, params: { siteId: string }): Promise<number>;
  /** `analytics.visitors` and `analytics.pageviews` per day. */
  history?: SeriesReader<{ siteId: string }>;
}

export interface SeoConnector extends ServiceConnector {
  /** Top queries and totals over the last 28 days; totals' position averaged by impressions. */
  seo(ctx: ConnectorContext, params: { siteUrl: string; now: number }): Promise<Seo>;
  /** `search.clicks`, `search.impressions`, `search.ctr` and `search.position` per day. */
  history?: SeriesReader<{ siteUrl: string }>;
}

export interface FundingConnector extends ServiceConnector {
  /** A collective's stats, latest transactions and members, amounts in major units. */
  funding(ctx: ConnectorContext, params: { slug: string }): Promise<Funding>;
  /** `funding.balance` at the end of each day, in the collective's currency. */
  history?: SeriesReader<{ slug: string }>;
}
