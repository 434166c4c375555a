import { DAY_MS, demoOrg, hexId, type DemoProduct } from '../demo.ts';

/**
 * The demo organization and its three projects as Sentry's serializers give them: the organization, a project's
 * summary (the organization's project list) and its detail (the project's own endpoint), and the ids and
 * timestamps the issues share.
 */

/** Project ids as Sentry numbers them; the organization's issue search filters by these. */
export const projectIds: Record<DemoProduct['slug'], string> = {
  'pocket-ledger': '4507284101234561',
  formfox: '4507284109876543',
  tideline: '4507291130456789',
};

/** Sentry's timestamps: ISO 8601 with microseconds. */
export const sentryTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** The demo's latest release per project, as Sentry's release tracking names it (`package@version`). */
const latestReleases: Record<DemoProduct['slug'], string> = {
  'pocket-ledger': 'app.pocketledger.ios@3.8.2+412',
  formfox: 'formfox-web@2026.11.3',
  tideline: 'app.tideline.android@2.14.0+2140',
};

/** The demo organization as Sentry lists it, and embeds it in a project's details. */
export function organizationBody(now: number) {
  return {
    id: '4507284100000001',
    slug: demoOrg.sentryOrg,
    name: 'Demo Founder',
    dateCreated: sentryTime(now - 430 * DAY_MS),
    status: { id: 'active', name: 'active' },
    avatar: { avatarType: 'letter_avatar', avatarUuid: null },
    isEarlyAdopter: false,
    require2FA: false,
    hasAuthProvider: false,
    features: [],
    links: { organizationUrl: `https://${demoOrg.sentryOrg}.sentry.io`, regionUrl: 'https://us.sentry.io' },
    allowMemberInvite: true,
    allowMemberProjectCreation: true,
    allowSuperuserAccess: false,
  };
}

/** The flags Sentry's project serializer sets from what the project has ever received. */
function projectCapabilities(product: DemoProduct) {
  const web = product.sentry.platform.startsWith('javascript');
  return {
    hasFeedbacks: false,
    hasFlags: false,
    hasMinifiedStackTrace: web,
    hasNewFeedbacks: false,
    hasInsightsHttp: true,
    hasInsightsDb: web,
    hasInsightsAssets: web,
    hasInsightsAppStart: !web,
    hasInsightsScreenLoad: !web,
    hasInsightsVitals: web,
    hasInsightsCaches: false,
    hasInsightsQueues: false,
    hasInsightsAgentMonitoring: false,
    hasInsightsMCP: false,
    hasLogs: false,
    hasTraceMetrics: false,
    latestRelease: { version: latestReleases[product.slug] },
    platforms: [product.sentry.platform.split('-')[0] ?? product.sentry.platform],
  };
}

/** A project as the organization's project list gives it. */
export function projectSummary(product: DemoProduct, now: number) {
  return { ...projectBody(product, now), ...projectCapabilities(product), hasUserReports: false, environments: ['production', 'staging'] };
}

/** A project as its own endpoint gives it: the summary's flags and the project's settings. */
export function projectDetail(product: DemoProduct, now: number) {
  const body = projectBody(product, now);
  const web = product.sentry.platform.startsWith('javascript');
  const securityToken = hexId(`sentry:${product.slug}:security-token`, 32);
  return {
    ...body,
    ...projectCapabilities(product),
    organization: organizationBody(now),
    options: { 'sentry:resolve_age': 0, 'sentry:scrub_data': true, 'sentry:scrub_defaults': true, 'sentry:token': securityToken, 'sentry:default_environment': 'production' },
    digestsMinDelay: 300,
    digestsMaxDelay: 1800,
    subjectPrefix: '',
    allowedDomains: ['*'],
    resolveAge: 0,
    dataScrubber: true,
    dataScrubberDefaults: true,
    safeFields: [],
    storeCrashReports: null,
    sensitiveFields: [],
    subjectTemplate: '$shortID - $title',
    securityToken,
    securityTokenHeader: null,
    verifySSL: false,
    scrubIPAddresses: false,
    scrapeJavaScript: true,
    enableAutoReleaseCreation: true,
    highlightTags: web ? ['handled', 'level', 'browser', 'url'] : ['handled', 'level', 'device', 'os'],
    highlightContext: {},
    highlightPreset: { tags: web ? ['handled', 'level', 'browser', 'url'] : ['handled', 'level', 'device', 'os'], context: {} },
    groupingConfig: 'newstyle:2023-01-11',
    derivedGroupingEnhancements: '',
    groupingEnhancements: '',
    secondaryGroupingExpiry: 0,
    secondaryGroupingConfig: null,
    fingerprintingRules: '',
    processingIssues: 0,
    defaultEnvironment: 'production',
    relayPiiConfig: null,
    builtinSymbolSources: web ? [] : ['ios', 'android'],
    dynamicSamplingBiases: [
      { id: 'boostEnvironments', active: true },
      { id: 'boostLatestRelease', active: true },
      { id: 'ignoreHealthChecks', active: true },
    ],
    symbolSources: '[]',
    isDynamicallySampled: false,
    tempestFetchScreenshots: false,
    autofixAutomationTuning: 'off',
    seerScannerAutomation: false,
    seerNightshiftTweaks: null,
    scmSourceContextEnabled: false,
    debugFilesRole: null,
  };
}

export function projectBody(product: DemoProduct, now: number) {
  return {
    id: projectIds[product.slug],
    slug: product.sentry.project,
    name: product.sentry.project,
    platform: product.sentry.platform,
    dateCreated: sentryTime(now - 420 * DAY_MS),
    isBookmarked: false,
    isMember: true,
    hasAccess: true,
    isPublic: false,
    isInternal: false,
    status: 'active',
    color: product.color,
    firstEvent: sentryTime(now - 418 * DAY_MS),
    firstTransactionEvent: true,
    hasSessions: true,
    hasProfiles: false,
    hasReplays: product.sentry.platform.startsWith('javascript'),
    hasMonitors: false,
    features: ['alert-filters', 'minidump', 'race-free-group-creation', 'similarity-indexing'],
    access: ['project:read', 'event:read', 'org:read'],
    avatar: { avatarType: 'letter_avatar', avatarUuid: null },
    team: { id: '4508100', slug: 'demo-founder', name: 'Demo Founder' },
    teams: [{ id: '4508100', slug: 'demo-founder', name: 'Demo Founder' }],
    organization: { id: '4507284100000001', slug: demoOrg.sentryOrg, name: 'Demo Founder' },
  };
}
