import type {
  Analytics,
  analyticsQuerySchema,
  DataResult,
  ErrorTracker,
  errorTrackerQuerySchema,
  Funding,
  fundingQuerySchema,
  Health,
  healthQuerySchema,
  Ideas,
  ideasQuerySchema,
  Revenue,
  revenueQuerySchema,
  Seo,
  seoQuerySchema,
  Shipping,
  shippingQuerySchema,
  Storefront,
  storefrontQuerySchema,
} from '@dash/contracts';
import type { z } from 'zod';

type Read<Query extends z.ZodType, T> = (input: z.input<Query>) => Promise<DataResult<T>>;

/**
 * The data routes' procedures as a service reads them (the briefing, the backup): each route's query and answer,
 * through a caller of the data router made in the composition, so a service never imports the router.
 */
export interface DataReads {
  revenue: Read<typeof revenueQuerySchema, Revenue>;
  ideas: Read<typeof ideasQuerySchema, Ideas>;
  shipping: Read<typeof shippingQuerySchema, Shipping>;
  errortracker: Read<typeof errorTrackerQuerySchema, ErrorTracker>;
  health: Read<typeof healthQuerySchema, Health>;
  storefront: Read<typeof storefrontQuerySchema, Storefront>;
  analytics: Read<typeof analyticsQuerySchema, Analytics>;
  seo: Read<typeof seoQuerySchema, Seo>;
  funding: Read<typeof fundingQuerySchema, Funding>;
}

/** A data procedure's data, or undefined when it answered `{ configured: false }` (the integration is not set up). */
export function dataOf<T extends object>(result: DataResult<T>): T | undefined {
  const { data } = result;
  if ('configured' in data && data.configured === false) return undefined;
  return data as T;
}
