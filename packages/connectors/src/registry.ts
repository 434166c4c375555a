import type { ServiceName } from '@dash/contracts';
import { betterstack } from './betterstack/index.ts';
import type { RevenueConnector, ServiceConnector } from './connector.ts';
import { github } from './github/index.ts';
import { linear } from './linear/index.ts';
import { revenuecat } from './revenuecat/index.ts';
import { stripe } from './stripe/index.ts';
import { sentry } from './sentry/index.ts';
import { vercel } from './vercel/index.ts';

/** Every service with a connector, by the name its credentials are stored under. */
export const serviceConnectors = {
  betterstack,
  github,
  linear,
  revenuecat,
  sentry,
  stripe,
  vercel,
} satisfies Partial<Record<ServiceName, ServiceConnector>>;

export const connectorFor = (service: ServiceName): ServiceConnector | undefined =>
  (serviceConnectors as Partial<Record<ServiceName, ServiceConnector>>)[service];

/** The revenue sources a project can name as its `revenue.provider`. */
export const revenueConnectors: Record<'revenuecat' | 'stripe', RevenueConnector> = { revenuecat, stripe };
