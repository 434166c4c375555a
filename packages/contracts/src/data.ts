import { z } from 'zod';
import { currencies, ranges } from './names.ts';
import { collectiveSlugSchema } from './projects.ts';

/**
 * The data routes: their query inputs and their outputs, exactly SPEC.md's shapes. Timestamps are ISO
 * 8601 strings; amounts are major currency units.
 */

const timestamp = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();

/** A query value is a string on the wire; an empty one means "not given". */
const optionalText = z
  .string()
  .trim()
  .max(200)
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const project = { project: optionalText };
/** `refresh=1` (or `true`) skips the cache and asks the upstream. */
const refresh = {
  refresh: z
    .union([z.boolean(), z.enum(['1', 'true', '0', 'false', ''])])
    .optional()
    .transform((value) => value === true || value === '1' || value === 'true'),
};
const limit = (fallback: number, max: number) =>
  z.coerce
    .number({ error: 'limit is a number' })
    .int('limit is a whole number')
    .min(1, 'limit is at least 1')
    .max(max, `limit is at most ${max}`)
    .default(fallback);

export const rangeSchema = z.enum(ranges, { error: `range is one of ${ranges.join(', ')}` });
export type Range = z.infer<typeof rangeSchema>;

export const currencySchema = z.enum(currencies, { error: `currency is one of ${currencies.join(', ')}` });
export type Currency = z.infer<typeof currencySchema>;

/** `{ configured: false }`: the integration is not set up for the asked project (or for any). */
export const notConfiguredSchema = z.object({
  configured: z.literal(false),
  integration: z.string(),
  message: z.string(),
});
export type NotConfigured = z.infer<typeof notConfiguredSchema>;

// --- revenue -------------------------------------------------------------------------------------

export const revenueQuerySchema = z.object({
  range: rangeSchema.default('7d'),
  currency: z
    .string()
    .transform((value) => value.toUpperCase())
    .pipe(currencySchema)
    .default('USD'),
  ...project,
  ...refresh,
});
export type RevenueQuery = z.infer<typeof revenueQuerySchema>;

export const revenueSchema = z.object({
  grossRevenue: z.number(),
  netRevenue: z.number(),
  /** null when the source did not report it (RevenueCat's overview lists only the metrics it has). */
  mrr: z.number().nullable(),
  activeSubscribers: count.nullable(),
  chart: z.array(z.object({ date: z.iso.date(), revenue: z.number() })),
  lastPayment: z.object({ amount: z.number(), country: z.string().length(2), createdAt: timestamp }).nullable(),
});
export type Revenue = z.infer<typeof revenueSchema>;

// --- ideas ---------------------------------------------------------------------------------------

export const ideasQuerySchema = z.object({ ...project, limit: limit(30, 250), ...refresh });
export type IdeasQuery = z.infer<typeof ideasQuerySchema>;

export const ideaSchema = z.object({
  id: z.string(),
  title: z.string(),
  type: z.enum(['idea', 'bug']),
  /** Linear's: 0 none, 1 urgent, 2 high, 3 medium, 4 low. */
  priority: z.number().int().min(0).max(4),
  status: z.enum(['open', 'in_progress']),
  createdAt: timestamp,
  labels: z.array(z.string()),
  url: z.string().optional(),
  project: z.string().optional(),
});
export type Idea = z.infer<typeof ideaSchema>;
export const ideasSchema = z.object({ items: z.array(ideaSchema) });
export type Ideas = z.infer<typeof ideasSchema>;

// --- shipping ------------------------------------------------------------------------------------

export const shippingQuerySchema = z.object({ ...project, limit: limit(20, 200), ...refresh });
export type ShippingQuery = z.infer<typeof shippingQuerySchema>;

export const shippingSources = ['code_host', 'issue_tracker', 'deploy_host'] as const;
export const shippedItemSchema = z.object({
  title: z.string(),
  source: z.enum(shippingSources),
  project: z.string(),
  url: z.string().optional(),
  shippedAt: timestamp,
});
export type ShippedItem = z.infer<typeof shippedItemSchema>;
export const shippingSchema = z.object({ items: z.array(shippedItemSchema) });
export type Shipping = z.infer<typeof shippingSchema>;

// --- error tracker -------------------------------------------------------------------------------

export const errorTrackerQuerySchema = z.object({ ...project, ...refresh });
export type ErrorTrackerQuery = z.infer<typeof errorTrackerQuerySchema>;

export const trackedIssueSchema = z.object({
  id: z.string(),
  title: z.string(),
  culprit: z.string(),
  /** Events; null when the tracker's count could not be read (Sentry's is a string its description does not bind to digits). */
  count: count.nullable(),
  userCount: count,
  level: z.string(),
  firstSeen: timestamp,
  lastSeen: timestamp,
  url: z.string().optional(),
  project: z.string().optional(),
});
export type TrackedIssue = z.infer<typeof trackedIssueSchema>;
export const errorTrackerSchema = z.object({
  issues: z.array(trackedIssueSchema),
  /** Unresolved issues in total, across every page, not just the ones listed. */
  errorCount: count,
});
export type ErrorTracker = z.infer<typeof errorTrackerSchema>;

// --- health --------------------------------------------------------------------------------------

export const healthQuerySchema = z.object({ ...project, ...refresh });
export type HealthQuery = z.infer<typeof healthQuerySchema>;

export const monitorSchema = z.object({
  name: z.string(),
  url: z.string(),
  status: z.enum(['up', 'down', 'degraded']),
  /** Milliseconds of the latest check; 0 when none is known. */
  responseTime: z.number().nonnegative(),
  lastCheckedAt: timestamp.nullable(),
  project: z.string().optional(),
});
export type Monitor = z.infer<typeof monitorSchema>;
export const incidentSchema = z.object({
  name: z.string(),
  status: z.string(),
  startedAt: timestamp,
  url: z.string().optional(),
  project: z.string().optional(),
});
export type Incident = z.infer<typeof incidentSchema>;
export const healthSchema = z.object({ monitors: z.array(monitorSchema), incidents: z.array(incidentSchema) });
export type Health = z.infer<typeof healthSchema>;

/** What a data route answers: its data, or why there is none. */
export const dataOrNotConfigured = <T extends z.ZodType>(schema: T) => z.union([schema, notConfiguredSchema]);

// --- storefront ----------------------------------------------------------------------------------

export const storefrontQuerySchema = z.object({ ...project, ...refresh });
export type StorefrontQuery = z.infer<typeof storefrontQuerySchema>;

export const reviewSchema = z.object({
  rating: z.number().int().min(1).max(5),
  title: z.string(),
  body: z.string(),
  reviewerNickname: z.string(),
  /** App Store territory code as Apple gives it (USA, GBR, DEU…). */
  territory: z.string(),
  createdAt: timestamp,
  /** The dashboard project, when several apps are answered at once. */
  project: z.string().optional(),
});
export const appVersionSchema = z.object({ version: z.string(), state: z.string(), createdAt: timestamp, project: z.string().optional() });
export const storefrontSchema = z.object({
  app: z.object({ name: z.string(), bundleId: z.string() }),
  reviews: z.array(reviewSchema),
  versions: z.array(appVersionSchema),
});
export type Storefront = z.infer<typeof storefrontSchema>;

// --- analytics -----------------------------------------------------------------------------------

export const analyticsQuerySchema = z.object({
  range: rangeSchema.default('30d'),
  platform: optionalText,
  ...project,
  ...refresh,
});
export type AnalyticsQuery = z.infer<typeof analyticsQuerySchema>;

export const analyticsSchema = z.object({
  visitors: count,
  sessions: count,
  pageViews: count,
  /** Percent of sessions with a single page view, 0-100. */
  bounceRate: z.number().min(0).max(100),
  /** Average session duration in seconds. */
  avgDuration: z.number().nonnegative(),
  /** Visitors in the last few minutes (Plausible: 5 minutes; Umami: its "active" window). */
  liveVisitors: count,
  topPages: z.array(z.object({ path: z.string(), views: count, uniqueVisitors: count })),
  referrers: z.array(z.object({ source: z.string(), visitors: count })),
  /** Visitors per day over the range, oldest first (for the widget's chart; not in SPEC.md's table). */
  chart: z.array(z.object({ date: z.iso.date(), visitors: count })).optional(),
});
export type Analytics = z.infer<typeof analyticsSchema>;

// --- seo -----------------------------------------------------------------------------------------

export const seoQuerySchema = z.object({ siteUrl: optionalText, ...project, ...refresh });
export type SeoQuery = z.infer<typeof seoQuerySchema>;

/** Each figure null when unknown: Google's rows promise none of them, and without impressions there is no ctr or position. */
const searchRow = {
  clicks: count.nullable(),
  impressions: count.nullable(),
  /** A fraction, as Google gives it (0.05 = 5%). */
  ctr: z.number().min(0).max(1).nullable(),
  /** Average position, 1 = top. */
  position: z.number().nonnegative().nullable(),
};
export const seoSchema = z.object({
  queries: z.array(z.object({ query: z.string(), ...searchRow })),
  totals: z.object(searchRow),
});
export type Seo = z.infer<typeof seoSchema>;

// --- funding -------------------------------------------------------------------------------------

/** `slug`: a collective's, checked before Open Collective is asked (a malformed one is the caller's 400). */
export const fundingQuerySchema = z.object({
  slug: z
    .union([collectiveSlugSchema, z.literal('')])
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
  ...refresh,
});
export type FundingQuery = z.infer<typeof fundingQuerySchema>;

export const fundingSchema = z.object({
  /** Null where Open Collective did not say (its amounts and counts are nullable): unknown, not 0. */
  stats: z.object({ balance: z.number().nullable(), totalRaised: z.number().nullable(), yearlyBudget: z.number().nullable(), backerCount: count.nullable() }),
  transactions: z.array(
    z.object({ id: z.string(), type: z.string(), amount: z.number(), currency: z.string(), description: z.string(), createdAt: timestamp }),
  ),
  members: z.array(
    z.object({ name: z.string(), role: z.string(), tier: z.string(), totalDonated: z.number().nullable(), imageUrl: z.string() }),
  ),
  /** The collective's currency, for the amounts above. */
  currency: z.string().optional(),
});
export type Funding = z.infer<typeof fundingSchema>;

// --- what a data procedure answers ---------------------------------------------------------------

export const cacheStatuses = ['HIT', 'MISS', 'STALE'] as const;
export type CacheStatus = (typeof cacheStatuses)[number];

/** How fresh the answer is: the REST adapter turns this into headers, the widgets into their states. */
export const dataMetaSchema = z.object({
  cache: z.enum(cacheStatuses),
  /** When the oldest part of the answer was fetched from upstream. */
  fetchedAt: timestamp,
  /** Why a STALE answer could not be refreshed: the upstream's error, without secrets. */
  staleReason: z.string().optional(),
  /** Projects left out of an all-projects answer because their upstream failed and nothing was cached. */
  failed: z.array(z.object({ project: z.string(), error: z.string() })).optional(),
  /** Set when amounts were converted with the rates in settings (the upstream could not report in the asked currency). */
  conversion: z.object({ from: z.string(), to: z.string(), rate: z.number() }).optional(),
});
export type DataMeta = z.infer<typeof dataMetaSchema>;

/** A data procedure's output: SPEC.md's JSON in `data` (or `{ configured: false }`), and its freshness. */
export const dataResultSchema = <T extends z.ZodType>(schema: T) =>
  z.object({ data: z.union([schema, notConfiguredSchema]), meta: dataMetaSchema.nullable() });
export type DataResult<T> = { data: T | NotConfigured; meta: DataMeta | null };
