import { DAY_MS, demoOrg, demoProducts, hexId, sandboxTokens, seededRandom, type DemoProduct } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

const HOUR_MS = 3_600_000;
/** Sentry's per-endpoint fixed window, as its 429 words it. */
const LIMIT = 40;
const WINDOW_S = 1;
const MAX_HITS = 1000;

/** Project ids as Sentry numbers them; the organization's issue search filters by these. */
const projectIds: Record<DemoProduct['slug'], string> = {
  'pocket-ledger': '4507284101234561',
  formfox: '4507284109876543',
  tideline: '4507291130456789',
};

/** How many issues each project has: unresolved spans pages of 25 for two of them; resolved and ignored never show. */
const issueCounts: Record<DemoProduct['slug'], { unresolved: number; resolved: number; ignored: number }> = {
  'pocket-ledger': { unresolved: 38, resolved: 7, ignored: 1 },
  formfox: { unresolved: 57, resolved: 9, ignored: 2 },
  tideline: { unresolved: 14, resolved: 4, ignored: 0 },
};

interface Template {
  type: string;
  value: string;
  level: 'fatal' | 'error' | 'warning';
}

/** What goes wrong, and where, per platform. */
const platformStory: Record<string, { templates: Template[]; culprits: string[]; filename: (culprit: string) => string }> = {
  'apple-ios': {
    templates: [
      { type: 'EXC_BAD_ACCESS', value: 'KERN_INVALID_ADDRESS at 0x0000000000000010', level: 'fatal' },
      { type: 'NSInvalidArgumentException', value: '-[__NSCFNumber length]: unrecognized selector sent to instance 0x8000000000000000', level: 'fatal' },
      { type: 'Fatal error', value: 'Unexpectedly found nil while unwrapping an Optional value', level: 'fatal' },
      { type: 'SQLiteError', value: 'database is locked (code 5)', level: 'error' },
      { type: 'URLError', value: 'The request timed out. (-1001)', level: 'error' },
      { type: 'DecodingError', value: 'keyNotFound(CodingKeys(stringValue: "currency", intValue: nil))', level: 'error' },
      { type: 'App Hanging', value: 'App hanging for at least 2000 ms.', level: 'warning' },
      { type: 'WatchdogTermination', value: 'The OS watchdog terminated your app, possibly because it overused RAM.', level: 'fatal' },
      { type: 'CKError', value: 'Network unavailable (3)', level: 'warning' },
      { type: 'SKError', value: 'Cannot connect to iTunes Store (0)', level: 'warning' },
    ],
    culprits: [
      'LedgerSyncService.push(changes:)',
      'TransactionListViewController.tableView(_:cellForRowAt:)',
      'BudgetStore.apply(_:)',
      'CSVImporter.parse(row:)',
      'ReceiptScanner.recognize(image:)',
      'SubscriptionManager.refreshEntitlements()',
      'WidgetTimelineProvider.getTimeline(in:completion:)',
      'CategoryPicker.body.getter',
      'AppDelegate.application(_:didFinishLaunchingWithOptions:)',
      'CurrencyFormatter.string(from:)',
      'SharedBudgetInviteView.accept()',
    ],
    filename: (culprit) => `${culprit.split('.')[0] ?? 'App'}.swift`,
  },
  'javascript-sveltekit': {
    templates: [
      { type: 'TypeError', value: "Cannot read properties of undefined (reading 'fields')", level: 'error' },
      { type: 'TypeError', value: 'Failed to fetch', level: 'warning' },
      { type: 'Error', value: 'Submission payload too large', level: 'error' },
      { type: 'RangeError', value: 'Invalid time value', level: 'error' },
      { type: 'SyntaxError', value: `Unexpected token '<', "<!DOCTYPE "... is not valid JSON`, level: 'error' },
      { type: 'ChunkLoadError', value: 'Loading chunk 412 failed.', level: 'warning' },
      { type: 'StripeSignatureVerificationError', value: 'No signatures found matching the expected signature for payload', level: 'error' },
      { type: 'PostgresError', value: 'duplicate key value violates unique constraint "forms_slug_key"', level: 'error' },
      { type: 'ReferenceError', value: 'ResizeObserver is not defined', level: 'error' },
      { type: 'Error', value: 'Connection is closed.', level: 'fatal' },
      { type: 'HttpError', value: '413 Payload Too Large', level: 'warning' },
      { type: 'DOMException', value: 'The operation is insecure.', level: 'warning' },
    ],
    culprits: [
      '/forms/[id]/edit',
      '/forms/[id]/submissions',
      'POST /api/forms/[id]/submit',
      'POST /api/webhooks/stripe',
      '/dashboard',
      '/f/[slug]',
      'GET /api/forms/[id]/export.csv',
      '/settings/billing',
      '/templates',
      'POST /api/uploads',
      'src/lib/components/FieldEditor.svelte in handleDrop',
      'src/lib/server/queue.ts in enqueueWebhook',
      'src/hooks.server.ts in handle',
    ],
    filename: (culprit) => (culprit.startsWith('src/') ? (culprit.split(' ')[0] ?? culprit) : `src/routes${culprit.replace(/^(GET|POST) /, '')}/+page.svelte`),
  },
  android: {
    templates: [
      { type: 'NullPointerException', value: "Attempt to invoke virtual method 'int java.util.List.size()' on a null object reference", level: 'fatal' },
      { type: 'IllegalStateException', value: 'Fragment TideChartFragment{4f1a2b} not attached to a context.', level: 'fatal' },
      { type: 'SocketTimeoutException', value: 'timeout', level: 'error' },
      { type: 'SQLiteDatabaseLockedException', value: 'database is locked (code 5 SQLITE_BUSY)', level: 'error' },
      { type: 'MissingFieldException', value: "Field 'heightMetres' is required for type with serial name 'app.tideline.data.Prediction', but it was missing", level: 'error' },
      { type: 'OutOfMemoryError', value: 'Failed to allocate a 4194320 byte allocation with 1048576 free bytes and 1MB until OOM', level: 'fatal' },
      { type: 'ForegroundServiceStartNotAllowedException', value: 'startForegroundService() not allowed due to mAllowStartForeground false', level: 'error' },
      { type: 'ApplicationNotResponding', value: 'Background ANR', level: 'warning' },
      { type: 'UnknownHostException', value: 'Unable to resolve host "api.tideline.app": No address associated with hostname', level: 'warning' },
      { type: 'BadTokenException', value: 'Unable to add window -- token null is not valid; is your activity running?', level: 'error' },
    ],
    culprits: [
      'app.tideline.ui.chart.TideChartFragment in onViewCreated',
      'app.tideline.data.TideRepository in fetchPredictions',
      'app.tideline.widget.TideWidgetProvider in onUpdate',
      'app.tideline.sync.StationSyncWorker in doWork',
      'app.tideline.ui.stations.StationListAdapter in onBindViewHolder',
      'app.tideline.alarm.TideAlarmReceiver in onReceive',
      'app.tideline.data.db.TideDatabase in getInstance',
      'app.tideline.ui.map.StationMapActivity in onCreate',
    ],
    filename: (culprit) => `${(culprit.split(' ')[0] ?? culprit).split('.').pop() ?? 'Main'}.kt`,
  },
};

/** Sentry's timestamps: ISO 8601 with microseconds. */
const sentryTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

interface Issue {
  projectId: string;
  lastSeenMs: number;
  firstSeenMs: number;
  countN: number;
  body: Record<string, unknown> & { id: string; status: string; level: string; title: string; userCount: number };
}

/** The demo's latest release per project, as Sentry's release tracking names it (`package@version`). */
const latestReleases: Record<DemoProduct['slug'], string> = {
  'pocket-ledger': 'app.pocketledger.ios@3.8.2+412',
  formfox: 'formfox-web@2026.11.3',
  tideline: 'app.tideline.android@2.14.0+2140',
};

/** The demo organization as Sentry lists it, and embeds it in a project's details. */
function organizationBody(now: number) {
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
function projectSummary(product: DemoProduct, now: number) {
  return { ...projectBody(product, now), ...projectCapabilities(product), hasUserReports: false, environments: ['production', 'staging'] };
}

/** A project as its own endpoint gives it: the summary's flags and the project's settings. */
function projectDetail(product: DemoProduct, now: number) {
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

function projectBody(product: DemoProduct, now: number) {
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

function issuesOf(product: DemoProduct, now: number): Issue[] {
  const random = seededRandom(`sentry:${product.slug}`);
  const story = platformStory[product.sentry.platform];
  if (!story) return [];
  const { templates, culprits } = story;
  const counts = issueCounts[product.slug];
  const projectId = projectIds[product.slug];
  const projectSlug = product.sentry.project;

  // Every (what, where) pair once, in a seeded order: one issue each.
  const pairs = templates.flatMap((template) => culprits.map((culprit) => ({ template, culprit })));
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pairs[i], pairs[j]] = [pairs[j] ?? pairs[i]!, pairs[i]!];
  }
  const statuses = [
    ...Array.from({ length: counts.unresolved }, () => 'unresolved'),
    ...Array.from({ length: counts.resolved }, () => 'resolved'),
    ...Array.from({ length: counts.ignored }, () => 'ignored'),
  ];
  const usedLastSeen = new Set<number>();
  return statuses.map((status, i) => {
    const { template, culprit } = pairs[i % pairs.length]!;
    const id = String(5_812_000_000 + Math.floor(random() * 180_000_000));
    // Seen within the last 13 days (recent ones more often), each at its own millisecond.
    let lastSeenMs = now - Math.floor(random() ** 2 * 13 * DAY_MS) - 60_000;
    while (usedLastSeen.has(lastSeenMs)) lastSeenMs -= 1;
    usedLastSeen.add(lastSeenMs);
    const isNew = random() < 0.15;
    const firstSeenMs = lastSeenMs - Math.floor((isNew ? random() * 2 : 1 + random() * 120) * DAY_MS);
    const countN = Math.max(1, Math.floor(random() ** 3 * 4200));
    const userCount = Math.max(1, Math.min(countN, Math.floor(countN * (0.1 + random() * 0.6))));
    const level = template.level;
    const title = `${template.type}: ${template.value}`;
    const stats = Array.from({ length: 24 }, (_, h) => [Math.floor((now - (23 - h) * HOUR_MS) / HOUR_MS) * 3600, Math.floor(random() ** 4 * 12)]);
    const func = culprit.includes(' in ') ? culprit.split(' in ')[1] : (culprit.split('.').pop() ?? culprit);
    // Drawn in the order the issue's fields always were, so every seeded value stays put.
    const substatus = status === 'unresolved' ? (isNew ? 'new' : random() < 0.12 ? 'regressed' : 'ongoing') : status === 'ignored' ? 'archived_forever' : null;
    const numComments = random() < 0.1 ? 1 : 0;
    const hasSeen = random() < 0.6;
    return {
      projectId,
      lastSeenMs,
      firstSeenMs,
      countN,
      body: {
        id,
        shortId: `${projectSlug.toUpperCase()}-${(i + 1).toString(36).toUpperCase()}`,
        title,
        culprit,
        permalink: `https://${demoOrg.sentryOrg}.sentry.io/issues/${id}/`,
        logger: null,
        level,
        status,
        statusDetails: status === 'resolved' ? { inRelease: 'latest' } : {},
        substatus,
        isPublic: false,
        platform: product.sentry.platform.split('-')[0],
        project: { id: projectId, name: projectSlug, slug: projectSlug, platform: product.sentry.platform },
        type: 'error',
        metadata: { type: template.type, value: template.value, filename: story.filename(culprit), function: func, in_app_frame_mix: 'in-app-only' },
        numComments,
        assignedTo: null,
        isBookmarked: false,
        isSubscribed: false,
        subscriptionDetails: null,
        hasSeen,
        annotations: [],
        issueType: 'error',
        issueCategory: 'error',
        priority: level === 'fatal' ? 'high' : level === 'error' ? 'medium' : 'low',
        priorityLockedAt: null,
        isUnhandled: level === 'fatal',
        count: String(countN),
        userCount,
        firstSeen: sentryTime(firstSeenMs),
        lastSeen: sentryTime(lastSeenMs),
        stats: { '24h': stats },
        shareId: null,
        lifetime: { count: String(countN), userCount, firstSeen: sentryTime(firstSeenMs), lastSeen: sentryTime(lastSeenMs), stats: null },
        filtered: null,
        // Sessions and views follow from the counts, drawing nothing new from the seeded generator.
        sessionCount: userCount * 3 + (countN % 97),
        inbox: { reason: substatus === 'new' ? 0 : substatus === 'regressed' ? 2 : 6, reason_details: null, date_added: sentryTime(substatus === 'regressed' ? lastSeenMs : firstSeenMs) },
        owners: { type: 'ownershipRule', owner: 'team:4508100', date_added: sentryTime(firstSeenMs) },
        integrationIssues: [],
        sentryAppIssues: [],
        latestEventHasAttachments: false,
        matchingEventId: null,
        matchingEventEnvironment: null,
        seerFixabilityScore: null,
        seerAutofixLastTriggered: null,
        seerExplorerAutofixLastTriggered: null,
        derivedData: {
          blocker: 'none',
          progress: 'identified',
          status: 'open',
          viewCount: hasSeen ? 1 + (countN % 5) : 0,
          hasOpenFixPr: false,
          isAssigned: false,
          hasRootCause: false,
          lastCompletedAutofixStep: 'none',
          lastProgressedAt: null,
        },
      },
    };
  });
}

const notFound: SandboxReply = { status: 404, body: { detail: 'The requested resource does not exist' } };
const noPermission: SandboxReply = { status: 403, body: { detail: 'You do not have permission to perform this action.' } };
const badRequest = (detail: string): SandboxReply => ({ status: 400, body: { detail } });

const PERIOD_MS: Record<string, number> = { s: 1000, m: 60_000, h: HOUR_MS, d: DAY_MS, w: 7 * DAY_MS };

/** Sort keys of the issue search, each a number the cursor carries (`value:offset:is_prev`). */
const scoreOf: Record<string, (issue: Issue) => number> = {
  date: (issue) => issue.lastSeenMs,
  new: (issue) => issue.firstSeenMs,
  freq: (issue) => issue.countN,
  user: (issue) => issue.body.userCount,
};

/** The search's `query`: `is:` status terms, `level:`, and free text on the title. An absent query means `is:unresolved`. */
function matchesQuery(issue: Issue, query: string): boolean {
  for (const term of query.split(/\s+/).filter(Boolean)) {
    const [key, value] = term.includes(':') ? [term.slice(0, term.indexOf(':')), term.slice(term.indexOf(':') + 1)] : ['', term];
    if (key === 'is') {
      const status = value === 'archived' ? 'ignored' : value;
      if (['unresolved', 'resolved', 'ignored'].includes(status) && issue.body.status !== status) return false;
    } else if (key === 'level') {
      if (issue.body.level !== value) return false;
    } else if (key === '' && !issue.body.title.toLowerCase().includes(term.toLowerCase())) return false;
  }
  return true;
}

/**
 * One page of Sentry's cursor pagination: `Link` with `previous` and `next`, each marked
 * `results="true"` or `"false"`, and `X-Hits`, the total the search matched.
 */
function issuePage(request: SandboxRequest, matching: Issue[]): SandboxReply {
  const { query } = request;
  const sort = query.get('sort') || 'date';
  const score = scoreOf[sort];
  if (!score) return badRequest(`Invalid sort: ${sort}`);
  const sorted = [...matching].sort((a, b) => score(b) - score(a) || a.body.id.localeCompare(b.body.id));
  const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? query.get('per_page') ?? 100) || 100));

  const firstAtOrBelow = (value: number) => {
    const index = sorted.findIndex((issue) => score(issue) <= value);
    return index === -1 ? sorted.length : index;
  };
  let start = 0;
  const raw = query.get('cursor');
  if (raw) {
    const match = /^(-?\d+(?:\.\d+)?):(\d+):([01])$/.exec(raw);
    if (!match) return badRequest('Invalid cursor parameter.');
    const at = firstAtOrBelow(Number(match[1])) + Number(match[2]);
    start = match[3] === '1' ? Math.max(0, at - limit) : at;
  }
  const page = sorted.slice(start, start + limit);
  const end = start + page.length;
  const first = page[0];
  const last = page.at(-1);
  const firstScore = first ? score(first) : 0;
  const lastScore = last ? score(last) : 0;
  const prevCursor = `${firstScore}:${start - firstAtOrBelow(firstScore)}:1`;
  const nextCursor = `${lastScore}:${end - firstAtOrBelow(lastScore)}:0`;

  const url = new URL(request.path, request.origin);
  for (const [name, value] of query) if (name !== 'cursor') url.searchParams.append(name, value);
  const base = url.search ? url.toString() : `${url.toString()}?`;
  const link = (rel: string, cursor: string, results: boolean) => `<${base}&cursor=${cursor}>; rel="${rel}"; results="${results}"; cursor="${cursor}"`;
  return {
    headers: {
      link: [link('previous', prevCursor, start > 0), link('next', nextCursor, end < sorted.length)].join(', '),
      'x-hits': String(Math.min(sorted.length, MAX_HITS)),
      'x-max-hits': String(MAX_HITS),
    },
    body: page.map((issue) => issue.body),
  };
}

/** How long Sentry keeps event counts (outcomes): older days answer 0, as Sentry has nothing left for them. */
const STATS_DAYS = 90;
const OUTCOMES = ['accepted', 'filtered', 'rate_limited', 'invalid', 'abuse', 'client_discard', 'cardinality_limited'] as const;
type Outcome = (typeof OUTCOMES)[number];

/**
 * Each project's error events per day, by outcome. A steady level with a weekly rhythm, and the days the story
 * gives: Pocket Ledger's bad release 26 days ago, Formfox's Hacker News launch 9 days ago (spike protection rate
 * limits part of it). Inbound filters drop a few percent (browser extensions, localhost).
 */
const errorStory: Record<DemoProduct['slug'], { perDay: number; weekly: readonly number[]; spikes: Record<number, number> }> = {
  'pocket-ledger': { perDay: 310, weekly: [1.2, 0.95, 0.92, 0.93, 0.95, 1.02, 1.18], spikes: { 26: 3.4, 25: 1.8 } },
  formfox: { perDay: 540, weekly: [0.7, 1.08, 1.12, 1.1, 1.06, 0.98, 0.72], spikes: { 9: 4.1, 8: 1.9 } },
  tideline: { perDay: 180, weekly: [1.25, 0.92, 0.9, 0.9, 0.94, 1.03, 1.28], spikes: {} },
};

function outcomesOn(product: DemoProduct, dayStart: number, now: number): Partial<Record<Outcome, number>> {
  const story = errorStory[product.slug];
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const ago = Math.round((today - dayStart) / DAY_MS);
  if (ago < 0 || ago >= STATS_DAYS) return {};
  const random = seededRandom(`sentry:outcomes:${product.slug}:${Math.floor(dayStart / DAY_MS)}`);
  const spike = story.spikes[ago] ?? 1;
  const sofar = ago === 0 ? Math.max(0.05, (now - today) / DAY_MS) : 1;
  const received = Math.round(story.perDay * (story.weekly[new Date(dayStart).getUTCDay()] ?? 1) * (0.85 + random() * 0.3) * spike * sofar);
  const filtered = Math.round(received * (0.02 + random() * 0.03));
  const rateLimited = spike > 2 ? Math.round(received * 0.3) : 0;
  return { accepted: received - filtered - rateLimited, filtered, rate_limited: rateLimited };
}

const PARAM_UNITS: Record<string, number> = { m: 60_000, h: HOUR_MS, d: DAY_MS, w: 7 * DAY_MS };
const periodMs = (value: string): number | undefined => {
  const match = /^(\d+)([mhdw])$/.exec(value);
  return match ? Number(match[1]) * (PARAM_UNITS[match[2] ?? ''] ?? NaN) : undefined;
};
/** Sentry's timestamps in usage stats: seconds, `Z`, no fraction. */
const statsTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const parseTime = (value: string) => (/^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value));

/**
 * `GET /organizations/{org}/stats_v2/`, as Sentry's outcomes query answers it: the range (a `statsPeriod`, or
 * `start` and an inclusive `end`) widened to whole intervals, every interval listed, and one group per value of
 * the `groupBy` columns that had any events, each with a zero-filled series and its total. Errors only: the demo
 * projects send no transactions or attachments.
 */
function usageStats(request: SandboxRequest, projects: readonly { product: DemoProduct; id: string }[]): SandboxReply {
  const { query } = request;
  const field = query.get('field');
  if (!field) return badRequest('At least one "field" is required.');
  if (field !== 'sum(quantity)' && field !== 'sum(times_seen)') return badRequest(`Invalid field: "${field}"`);
  const groupBy = query.getAll('groupBy');
  for (const column of groupBy) {
    if (!['outcome', 'category', 'reason', 'project'].includes(column)) return badRequest(`Invalid groupBy: "${column}"`);
    if (column !== 'outcome' && column !== 'category') return badRequest(`The sandbox groups usage stats by outcome and category only, not "${column}"`);
  }
  const categories = query.getAll('category');
  if (categories.length === 0 && !groupBy.includes('category')) return badRequest('Query must have category as groupby or filter');
  const interval = periodMs(query.get('interval') ?? '1h');
  if (interval === undefined || interval % HOUR_MS !== 0 || interval < HOUR_MS) return badRequest('The interval has to be a multiple of the minimum interval of one hour.');
  if (interval > DAY_MS) return badRequest('The interval has to be less than one day.');
  if (DAY_MS % interval !== 0) return badRequest('The interval should divide one day without a remainder.');
  const period = query.get('statsPeriod');
  const [startParam, endParam] = [query.get('start'), query.get('end')];
  let from: number;
  let to: number;
  if (period) {
    const span = periodMs(period);
    if (span === undefined) return badRequest(`Invalid statsPeriod: '${period}'`);
    [from, to] = [request.now - span, request.now];
  } else if (startParam && endParam) {
    // An explicit end is inclusive: Sentry adds a second to it.
    [from, to] = [parseTime(startParam), parseTime(endParam) + 1000];
    if (Number.isNaN(from) || Number.isNaN(to)) return badRequest('start and end must be ISO 8601 datetimes or epoch seconds');
    if (from >= to) return badRequest('start must be before end');
  } else {
    return badRequest('You must either provide a statsPeriod, or a start and end.');
  }
  const start = Math.floor(Math.min(from, request.now) / interval) * interval;
  const end = Math.ceil(to / interval) * interval;
  if ((end - start) / interval > 1000) return badRequest('Your interval and date range would create too many results. Use a larger interval, or a smaller date range.');
  const ids = query.getAll('project').filter(Boolean);
  if (ids.some((id) => id !== '-1' && !projects.some((p) => p.id === id))) return noPermission;
  const wanted = ids.length === 0 || ids.includes('-1') ? projects : projects.filter((p) => ids.includes(p.id));
  const outcomeFilter = query.getAll('outcome');
  const intervals: number[] = [];
  for (let at = start; at < end; at += interval) intervals.push(at);
  const countsOf = (outcome: Outcome) =>
    intervals.map((at) => {
      const dayStart = Math.floor(at / DAY_MS) * DAY_MS;
      const perDay = wanted.reduce((sum, p) => sum + (outcomesOn(p.product, dayStart, request.now)[outcome] ?? 0), 0);
      return Math.round((perDay * interval) / DAY_MS);
    });
  const groups = OUTCOMES.filter((outcome) => outcomeFilter.length === 0 || outcomeFilter.includes(outcome))
    .map((outcome) => {
      const series = countsOf(outcome);
      const by = { ...(groupBy.includes('outcome') ? { outcome } : {}), ...(groupBy.includes('category') ? { category: 'error' } : {}) };
      return { by, outcome, series };
    })
    .filter((group) => group.series.some((count) => count > 0));
  // Without the outcome among the columns, the outcomes add up into one group.
  const merged = groupBy.includes('outcome')
    ? groups
    : groups.length === 0
      ? []
      : [{ by: groups[0]?.by ?? {}, series: intervals.map((_, i) => groups.reduce((sum, g) => sum + (g.series[i] ?? 0), 0)) }];
  return {
    body: {
      start: statsTime(start),
      end: statsTime(end),
      intervals: intervals.map(statsTime),
      groups: merged.map(({ by, series }) => ({ by, totals: { [field]: series.reduce((a, b) => a + b, 0) }, series: { [field]: series } })),
    },
  };
}

/** Sentry's REST API (`/api/0`) for the demo organization and its three projects. */
export function sentryService(now: number): SandboxService {
  const projects = demoProducts.map((product) => ({ product, body: projectBody(product, now), summary: projectSummary(product, now), detail: projectDetail(product, now) }));
  const issues = demoProducts.flatMap((product) => issuesOf(product, now));
  const organization = organizationBody(now);
  const projectBySlug = (slug: string | undefined) => projects.find((p) => p.body.slug === slug);

  /** The org endpoint's default window is 14 days; `statsPeriod` (`24h`, `14d`, `2w`…) replaces it. */
  function orgIssues(request: SandboxRequest): SandboxReply {
    const { query } = request;
    const period = query.get('statsPeriod') || '14d';
    const match = /^(\d+)([smhdw])$/.exec(period);
    if (!match) return badRequest(`Invalid statsPeriod: '${period}'`);
    const since = request.now - Number(match[1]) * (PERIOD_MS[match[2] ?? 'd'] ?? DAY_MS);
    const ids = query.getAll('project').filter(Boolean);
    const slugs = query.getAll('projectSlug').filter(Boolean);
    let wanted: string[];
    if (ids.length > 0 && !ids.includes('-1')) {
      if (ids.some((id) => !projects.some((p) => p.body.id === id))) return noPermission;
      wanted = ids;
    } else if (slugs.length > 0) {
      wanted = projects.filter((p) => slugs.includes(p.body.slug)).map((p) => p.body.id);
    } else {
      wanted = projects.map((p) => p.body.id);
    }
    const search = query.get('query') ?? 'is:unresolved';
    return issuePage(
      request,
      issues.filter((issue) => wanted.includes(issue.projectId) && issue.lastSeenMs >= since && matchesQuery(issue, search)),
    );
  }

  return {
    name: 'sentry',
    basePath: '/api/0',
    authorize: (request) => request.headers.authorization === `Bearer ${sandboxTokens.sentry}`,
    unauthorized: () => ({ body: { detail: 'Invalid token' } }),
    rateLimit: {
      limit: LIMIT,
      windowMs: WINDOW_S * 1000,
      headers: ({ limit, used, resetAt }) => ({
        'x-sentry-rate-limit-limit': String(limit),
        'x-sentry-rate-limit-remaining': String(Math.max(0, limit - used)),
        'x-sentry-rate-limit-reset': String(Math.ceil(resetAt / 1000)),
        'x-sentry-rate-limit-concurrentlimit': '25',
        'x-sentry-rate-limit-concurrentremaining': '24',
      }),
      // Sentry's middleware sends no Retry-After: the reset header above says when the window reopens.
      tooMany: () => ({
        status: 429,
        body: { detail: `You are attempting to use this endpoint too frequently. Limit is ${LIMIT} requests in ${WINDOW_S} seconds` },
      }),
    },
    routes: [
      { method: 'GET', path: '/organizations', handle: () => ({ body: [organization] }) },
      {
        method: 'GET',
        path: '/organizations/:org/projects',
        handle: ({ params, query, path, origin }) => {
          if (params.org !== demoOrg.sentryOrg) return notFound;
          // An offset cursor (`per_page:page:is_prev`), as Sentry's plain lists use.
          const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 100) || 100));
          const pageIndex = Number(/^\d+:(\d+):0$/.exec(query.get('cursor') ?? '')?.[1] ?? 0);
          const all = projects.map((p) => p.summary);
          const page = all.slice(pageIndex * perPage, (pageIndex + 1) * perPage);
          const url = new URL(path, origin);
          url.searchParams.set('per_page', String(perPage));
          const link = (rel: string, index: number, results: boolean) =>
            `<${url.toString()}&cursor=${perPage}:${index}:0>; rel="${rel}"; results="${results}"; cursor="${perPage}:${index}:0"`;
          return {
            headers: { link: [link('previous', Math.max(0, pageIndex - 1), pageIndex > 0), link('next', pageIndex + 1, (pageIndex + 1) * perPage < all.length)].join(', ') },
            body: page,
          };
        },
      },
      { method: 'GET', path: '/organizations/:org/issues', handle: (request) => (request.params.org === demoOrg.sentryOrg ? orgIssues(request) : notFound) },
      {
        method: 'GET',
        path: '/organizations/:org/stats_v2',
        handle: (request) => (request.params.org === demoOrg.sentryOrg ? usageStats(request, projects.map((p) => ({ product: p.product, id: p.body.id }))) : notFound),
      },
      {
        method: 'GET',
        path: '/projects/:org/:project',
        handle: ({ params }) => {
          const project = params.org === demoOrg.sentryOrg ? projectBySlug(params.project) : undefined;
          return project ? { body: project.detail } : notFound;
        },
      },
      {
        // Deprecated in favour of the organization's search; still answers, over all time, `statsPeriod` only shaping `stats`.
        method: 'GET',
        path: '/projects/:org/:project/issues',
        handle: (request) => {
          const project = request.params.org === demoOrg.sentryOrg ? projectBySlug(request.params.project) : undefined;
          if (!project) return notFound;
          const period = request.query.get('statsPeriod');
          if (period !== null && !['', '24h', '14d'].includes(period)) return badRequest("Invalid stats_period. Valid choices are '', '24h', and '14d'");
          const search = request.query.get('query') ?? 'is:unresolved';
          return issuePage(request, issues.filter((issue) => issue.projectId === project.body.id && matchesQuery(issue, search)));
        },
      },
    ],
  };
}
