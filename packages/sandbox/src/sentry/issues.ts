import { DAY_MS, demoOrg, seededRandom, type DemoProduct } from '../demo.ts';
import { projectIds, sentryTime } from './projects.ts';

/**
 * The seeded issues of each demo project: what goes wrong and where per platform, how many are unresolved,
 * resolved and ignored, and each issue as Sentry's issue search lists it.
 */

const HOUR_MS = 3_600_000;

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


export interface Issue {
  projectId: string;
  lastSeenMs: number;
  firstSeenMs: number;
  countN: number;
  body: Record<string, unknown> & { id: string; status: string; level: string; title: string; userCount: number };
}

export function issuesOf(product: DemoProduct, now: number): Issue[] {
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
