/**
 * The three demo products every fake upstream tells the same story about. Ids here are the ones the
 * demo projects' integrations point at, so each product's revenue, issues, PRs, deploys, errors and
 * monitors line up across services.
 */
export const demoProducts = [
  {
    slug: 'pocket-ledger',
    name: 'Pocket Ledger',
    color: '#2f7de1',
    /** An iOS budgeting app sold through the App Store, subscriptions through RevenueCat. */
    revenue: { provider: 'revenuecat', projectId: 'proj4f2a9c1e', monthlyPrice: 4.99, yearlyPrice: 39.99, subscribers: 1840 },
    repos: ['pocketledger/ios-app', 'pocketledger/sync-api'],
    linearTeam: { id: '6b0f3a52-1c7e-4d0a-9f1b-2d8e5c4a7b10', key: 'PKT', name: 'Pocket Ledger' },
    vercel: { projectId: 'prj_pktLedgerSite01', name: 'pocket-ledger-site' },
    sentry: { project: 'pocket-ledger-ios', platform: 'apple-ios' },
    monitors: [
      { id: '2001', name: 'Sync API', url: 'https://sync.pocketledger.app/health', status: 'up' },
      { id: '2002', name: 'Marketing site', url: 'https://pocketledger.app', status: 'up' },
    ],
    /** App Store Connect app id and bundle id. */
    storefront: { appId: '1588431207', bundleId: 'app.pocketledger.ios', name: 'Pocket Ledger: Budget & Bills' },
    analytics: [
      { platform: 'web', provider: 'plausible', siteId: 'pocketledger.app' },
      { platform: 'ios', provider: 'umami', siteId: '3f1c2a9e-6d4b-4e1f-9a7c-2b5d8e0f1a34' },
    ],
    seo: { siteUrl: 'https://pocketledger.app/' },
    funding: null,
  },
  {
    slug: 'formfox',
    name: 'Formfox',
    color: '#e0662f',
    /** A form builder SaaS billed with Stripe. */
    revenue: { provider: 'stripe', monthlyPrice: 19, yearlyPrice: 190, subscribers: 312 },
    repos: ['formfox/web', 'formfox/worker'],
    linearTeam: { id: '9d4c2e71-5a3b-4f8e-b6d2-7c1a0e9f3b24', key: 'FOX', name: 'Formfox' },
    vercel: { projectId: 'prj_formfoxWeb3k2', name: 'formfox-web' },
    sentry: { project: 'formfox-web', platform: 'javascript-sveltekit' },
    monitors: [
      { id: '2003', name: 'App', url: 'https://app.formfox.io', status: 'up' },
      { id: '2004', name: 'Submission worker', url: 'https://worker.formfox.io/healthz', status: 'down' },
      { id: '2006', name: 'Webhooks out', url: 'https://hooks.formfox.io/healthz', status: 'maintenance' },
    ],
    storefront: null,
    analytics: [{ platform: 'web', provider: 'plausible', siteId: 'formfox.io' }],
    seo: { siteUrl: 'sc-domain:formfox.io' },
    funding: null,
  },
  {
    slug: 'tideline',
    name: 'Tideline',
    color: '#1f9d74',
    /** A tide-tables app for iOS and Android with a web companion. */
    revenue: { provider: 'revenuecat', projectId: 'proj7b3d0e58', monthlyPrice: 2.99, yearlyPrice: 24.99, subscribers: 640 },
    repos: ['tideline-dev/tideline'],
    linearTeam: { id: '2a7e9c13-8b4d-4e6f-a0c5-3f1d7b2e9a46', key: 'TDL', name: 'Tideline' },
    vercel: { projectId: 'prj_tidelineWeb9x', name: 'tideline-web' },
    sentry: { project: 'tideline-android', platform: 'android' },
    monitors: [{ id: '2005', name: 'Tide data API', url: 'https://api.tideline.app/v1/ping', status: 'up' }],
    storefront: { appId: '1602277354', bundleId: 'app.tideline.ios', name: 'Tideline – Tides & Moon' },
    analytics: [
      { platform: 'web', provider: 'plausible', siteId: 'tideline.app' },
      { platform: 'android', provider: 'umami', siteId: '8a0e4c71-2f9d-4b3a-8e6c-5d1f7a2b9c03' },
    ],
    seo: { siteUrl: 'https://tideline.app/' },
    /** Tideline's tide-data library is open source and funded on Open Collective. */
    funding: { slug: 'tideline-oss', name: 'Tideline Open Tide Data' },
  },
] as const;

export type DemoProduct = (typeof demoProducts)[number];

/** The Sentry organization, Vercel team and Stripe account holder of all three. */
export const demoOrg = { sentryOrg: 'demo-founder', vercelTeamId: 'team_demoFounder42' } as const;

/**
 * The token each fake accepts, in the shape of the real one. Anything else gets the upstream's own 401,
 * so a wrong-credentials test talks to the same server the demo does.
 */
export const sandboxTokens = {
  revenuecat: 'sk_sandboxRevenueCatDemoKey',
  stripe: 'sk_test_sandboxStripeDemoKey',
  linear: 'lin_api_sandboxLinearDemoKey',
  github: 'github_pat_sandboxGithubDemoKey',
  vercel: 'sandboxVercelDemoToken',
  sentry: 'sntrys_sandboxSentryDemoToken',
  betterstack: 'sandboxBetterStackDemoToken',
  plausible: 'sandboxPlausibleDemoKey',
  umami: 'sandboxUmamiDemoKey',
  opencollective: 'sandboxOpenCollectiveDemoToken',
  sendgrid: 'SG.sandboxSendGridDemoKey.sandboxSendGridDemoSecret',
} as const;

/** The fake SendGrid's one verified sender, and where the demo's alerts go. */
export const sandboxEmail = { from: 'alerts@demo-founder.example', to: 'founder@demo-founder.example' } as const;

/** Google OAuth values the fake token endpoint accepts (a refresh token it can also be told is revoked). */
export const sandboxGoogle = {
  clientId: '123456789012-sandbox.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-sandboxDemoSecret',
  refreshToken: '1//0sandboxDemoRefreshToken',
} as const;

/** The Google account the fake consent page is signed in as; its id token names it. */
export const sandboxGoogleAccount = 'founder@example.com';

/**
 * GitHub OAuth clients the fake accepts: an OAuth app (tokens that do not expire) and a GitHub App whose user tokens
 * expire after 8 hours, with refresh tokens good for 6 months that rotate on every use, as GitHub's do.
 */
export const sandboxGitHubOAuth = {
  oauthApp: { clientId: 'Ov23liSandboxOAuthApp', clientSecret: 'sandboxGithubOAuthAppSecret0123456789abcd' },
  githubApp: { clientId: 'Iv23liSandboxGitHubApp', clientSecret: 'sandboxGithubAppSecret0123456789abcdef01' },
} as const;

/** A seeded generator (mulberry32): the same seed tells the same story on every start. */
export function seededRandom(seed: string): () => number {
  let state = 0;
  for (const char of seed) state = (Math.imul(state ^ char.charCodeAt(0), 2654435761) >>> 0) ^ (state >>> 13);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DAY_MS = 86_400_000;

/** A stable, id-like hex string from a seed, for upstream ids that must look real and stay put. */
export function hexId(seed: string, length = 24): string {
  const random = seededRandom(seed);
  let id = '';
  while (id.length < length) id += Math.floor(random() * 16).toString(16);
  return id;
}
