import type { ServiceName } from '@dash/contracts';
import { betterstack } from './betterstack/index.ts';
import { appstoreconnect } from './appstoreconnect/index.ts';
import type { AnalyticsConnector, RevenueConnector, ServiceConnector } from './connector.ts';
import { google } from './google/index.ts';
import { opencollective } from './opencollective/index.ts';
import { plausible } from './plausible/index.ts';
import { umami } from './umami/index.ts';
import { github } from './github/index.ts';
import { linear } from './linear/index.ts';
import { revenuecat } from './revenuecat/index.ts';
import { stripe } from './stripe/index.ts';
import { sentry } from './sentry/index.ts';
import { sendgrid } from './sendgrid/index.ts';
import { vercel } from './vercel/index.ts';

/** Every service with a connector, by the name its credentials are stored under. */
export const serviceConnectors = {
  appstoreconnect,
  betterstack,
  google,
  opencollective,
  plausible,
  umami,
  github,
  linear,
  revenuecat,
  sentry,
  sendgrid,
  stripe,
  vercel,
} satisfies Record<ServiceName, ServiceConnector>;

/** Every service a credential can be stored for has one: the `satisfies` above fails the build otherwise. */
export const connectorFor = (service: ServiceName): ServiceConnector => serviceConnectors[service];

/** The revenue sources a project can name as its `revenue.provider`. */
export const revenueConnectors: Record<'revenuecat' | 'stripe', RevenueConnector> = { revenuecat, stripe };

/** The analytics providers a project's platform can name. */
export const analyticsConnectors: Record<'plausible' | 'umami', AnalyticsConnector> = { plausible, umami };
