import { demoEvents, type DemoEvent } from './notifications.ts';
import { sandboxAppStoreKey } from './appstoreconnect/keys.ts';
import { demoOrg, demoProducts, sandboxEmail, sandboxGoogle, sandboxTokens } from './demo.ts';
import type { Sandbox } from './sandbox.ts';

type DemoService = keyof typeof sandboxTokens | 'appstoreconnect' | 'google';

/** Where each fake upstream listens: its base URL, as `Sandbox.services[name].baseUrl`. */
export type DemoUpstreams = Record<DemoService, string>;

/** The base URL of each of a started sandbox's services: what `demoSetup` points the demo's integrations at. */
export const demoUpstreamsOf = (sandbox: Pick<Sandbox, 'services'>): DemoUpstreams =>
  Object.fromEntries(Object.entries(sandbox.services).map(([name, service]) => [name, service.baseUrl])) as DemoUpstreams;

/** The credential key every demo credential is stored under: a label keeps it apart from real ones. */
const key = (service: DemoService) => `${service}:demo`;

/**
 * What the demo writes into an empty dashboard: the three products as projects whose integrations
 * point at the sandbox's ids, and one credential per service holding the sandbox's token and URL.
 * The data then goes through the real connectors over HTTP, like any other project's.
 */
export interface DemoSetup {
  projects: { slug: string; name: string; color: string; integrations: Record<string, unknown> }[];
  credentials: { key: string; values: Record<string, string> }[];
  /** A few hours of what the products' webhooks would have brought, for the inbox. */
  events: DemoEvent[];
}

export function demoSetup(upstreams: DemoUpstreams): DemoSetup {
  const credentials: DemoSetup['credentials'] = [
    { key: key('revenuecat'), values: { apiKey: sandboxTokens.revenuecat, baseUrl: upstreams.revenuecat } },
    { key: key('stripe'), values: { secretKey: sandboxTokens.stripe, baseUrl: upstreams.stripe } },
    { key: key('linear'), values: { apiKey: sandboxTokens.linear, baseUrl: upstreams.linear } },
    { key: key('github'), values: { token: sandboxTokens.github, baseUrl: upstreams.github } },
    { key: key('vercel'), values: { token: sandboxTokens.vercel, baseUrl: upstreams.vercel } },
    { key: key('sentry'), values: { authToken: sandboxTokens.sentry, orgSlug: demoOrg.sentryOrg, baseUrl: upstreams.sentry } },
    { key: key('betterstack'), values: { apiToken: sandboxTokens.betterstack, baseUrl: upstreams.betterstack } },
    {
      key: key('appstoreconnect'),
      values: {
        issuerId: sandboxAppStoreKey.issuerId,
        keyId: sandboxAppStoreKey.keyId,
        privateKey: sandboxAppStoreKey.privateKey,
        baseUrl: upstreams.appstoreconnect,
      },
    },
    { key: key('plausible'), values: { apiKey: sandboxTokens.plausible, baseUrl: upstreams.plausible } },
    { key: key('umami'), values: { apiKey: sandboxTokens.umami, baseUrl: upstreams.umami } },
    { key: key('google'), values: { ...sandboxGoogle, baseUrl: upstreams.google } },
    { key: key('opencollective'), values: { personalToken: sandboxTokens.opencollective, baseUrl: upstreams.opencollective } },
    // The demo's email alerts go to the fake SendGrid, from its one verified sender.
    { key: key('sendgrid'), values: { apiKey: sandboxTokens.sendgrid, from: sandboxEmail.from, to: sandboxEmail.to, baseUrl: upstreams.sendgrid } },
  ];
  const projects: DemoSetup['projects'] = demoProducts.map((product) => ({
    slug: product.slug,
    name: product.name,
    color: product.color,
    integrations: {
      revenue:
        product.revenue.provider === 'revenuecat'
          ? { provider: 'revenuecat' as const, projectId: product.revenue.projectId, credentialKey: key('revenuecat') }
          : { provider: 'stripe' as const, credentialKey: key('stripe') },
      code_host: { repos: [...product.repos], credentialKey: key('github') },
      deploy_host: { projectId: product.vercel.projectId, teamId: demoOrg.vercelTeamId, credentialKey: key('vercel') },
      issue_tracker: { teamIds: [product.linearTeam.id], credentialKey: key('linear') },
      error_tracker: { org: demoOrg.sentryOrg, project: product.sentry.project, credentialKey: key('sentry') },
      uptime_monitor: { monitorIds: product.monitors.map((m) => m.id), credentialKey: key('betterstack') },
      ...(product.storefront ? { storefront: { appId: product.storefront.appId, credentialKey: key('appstoreconnect') } } : {}),
      analytics: {
        platforms: product.analytics.map((p) => ({ platform: p.platform, provider: p.provider, siteId: p.siteId, credentialKey: key(p.provider) })),
      },
      seo: { siteUrl: product.seo.siteUrl, credentialKey: key('google') },
      ...(product.funding ? { funding: { slug: product.funding.slug, credentialKey: key('opencollective') } } : {}),
    },
  }));
  return { projects, credentials, events: demoEvents(Date.now()) };
}
