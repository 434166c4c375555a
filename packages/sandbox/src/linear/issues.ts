import { DAY_MS, demoProducts, hexId, seededRandom } from '../demo.ts';

/** Where an issue stands, by the team's workflow state it is in. */
type StateKey = 'triage' | 'backlog' | 'todo' | 'progress' | 'review' | 'done' | 'canceled' | 'duplicate';

/** Title, labels, state, Linear priority (0 none, 1 urgent … 4 low), and optionally its age in days. */
type IssueSpec = [title: string, labels: string[], state: StateKey, priority: number, ageDays?: number];

const states: Record<StateKey, { name: string; type: string; color: string; position: number }> = {
  triage: { name: 'Triage', type: 'triage', color: '#fc7840', position: 0 },
  backlog: { name: 'Backlog', type: 'backlog', color: '#bec2c8', position: 1 },
  todo: { name: 'Todo', type: 'unstarted', color: '#e2e2e2', position: 2 },
  progress: { name: 'In Progress', type: 'started', color: '#f2c94c', position: 3 },
  review: { name: 'In Review', type: 'started', color: '#0f783c', position: 4 },
  done: { name: 'Done', type: 'completed', color: '#5e6ad2', position: 5 },
  canceled: { name: 'Canceled', type: 'canceled', color: '#95a2b3', position: 6 },
  duplicate: { name: 'Duplicate', type: 'canceled', color: '#95a2b3', position: 7 },
};

/** Workspace labels: the ones the dashboard sorts into ideas and bugs, and some it leaves alone. */
const labelColors: Record<string, string> = {
  Feature: '#bb87fc',
  Bug: '#eb5757',
  Idea: '#4cb782',
  Feedback: '#f2994a',
  Improvement: '#4ea7fc',
  Crash: '#c52828',
  Regression: '#db6e1f',
  Design: '#f7c8c1',
  Docs: '#95a2b3',
  Infra: '#26b5ce',
  Performance: '#5e6ad2',
};

const priorityLabels = ['No priority', 'Urgent', 'High', 'Medium', 'Low'];

/** Per product: what its founder is building, fixing, has shipped and has given up on. */
const issueSpecs: Record<string, IssueSpec[]> = {
  PKT: [
    ['Export transactions to CSV', ['Feature'], 'todo', 2],
    ['Shared budgets with a partner', ['Feature', 'Feedback'], 'backlog', 3],
    ['Home screen widget for the remaining budget', ['Idea'], 'backlog', 4],
    ['Apple Watch complication for daily spend', ['Idea'], 'triage', 0],
    ['Sync duplicates transactions after an offline edit', ['Bug'], 'progress', 1, 6],
    ['Crash when deleting a category that has split transactions', ['Bug', 'Crash'], 'todo', 1, 12],
    ['Budget rollover is a day early in UTC+ time zones', ['Bug'], 'triage', 2],
    ['CSV import fails on semicolon-separated files', ['Bug'], 'backlog', 3],
    ['Recurring transaction templates', ['Feature'], 'review', 2],
    ['Split one transaction across several categories', ['Improvement'], 'backlog', 3],
    ['Lock the app with Face ID', ['Feedback'], 'triage', 0],
    ['Search transactions by note text', ['Improvement'], 'todo', 3],
    ['Redesign the onboarding screens', ['Design'], 'backlog', 3],
    ['Update App Store screenshots for the new widgets', ['Docs'], 'todo', 4],
    ['Widget shows a stale balance after midnight', ['Bug'], 'backlog', 2],
    ['Monthly report as a PDF', ['Idea'], 'backlog', 0],
    ['Dark app icon', ['Design', 'Idea'], 'triage', 4],
    ['Currency conversion for travel expenses', ['Feature'], 'backlog', 3],
    ['Sync API answers 500 for accounts with 10k+ transactions', ['Bug', 'Performance'], 'progress', 2],
    ['Upgrade sync-api to Node 22', ['Infra'], 'todo', 3],
    ['Reorder categories by drag and drop', [], 'backlog', 0],
    ['Faster first sync on new devices', ['Improvement'], 'done', 2],
    ['Fix rounding in yearly totals', ['Bug'], 'done', 1],
    ['Budget alerts at 80% and 100%', ['Feature'], 'done', 2],
    ['Lock screen widgets', ['Feature'], 'done', 3],
    ['Crash on launch on iOS 17.0', ['Bug', 'Regression'], 'done', 1],
    ['Restore purchases button in settings', ['Improvement'], 'done', 3],
    ['Haptic feedback when a transaction is saved', ['Design'], 'done', 4],
    ['Import from YNAB export files', ['Feature'], 'done', 2],
    ['Privacy manifest for App Store review', ['Docs'], 'done', 2],
    ['Android version', ['Idea'], 'canceled', 0],
    ['Bank sync via Plaid', ['Feature'], 'duplicate', 3],
  ],
  FOX: [
    ['Conditional logic between pages', ['Feature'], 'progress', 1],
    ['File upload fields larger than 10 MB', ['Feature', 'Feedback'], 'todo', 2],
    ['Webhook retries with exponential back-off', ['Improvement'], 'review', 2],
    ['Submissions stuck in the queue when the worker restarts', ['Bug'], 'progress', 1],
    ['Date picker ignores the form locale', ['Bug'], 'triage', 3],
    ['Zapier integration', ['Idea'], 'backlog', 3],
    ['Signature field', ['Feature', 'Feedback'], 'backlog', 2],
    ['Export responses to Google Sheets', ['Feature'], 'todo', 2],
    ['Duplicate email notifications for one submission', ['Bug'], 'todo', 2],
    ['Embed code breaks on sites with a strict CSP', ['Bug'], 'triage', 2],
    ['Custom thank-you page redirects', ['Improvement'], 'backlog', 4],
    ['Drop-off per question in form analytics', ['Idea'], 'triage', 0],
    ['Let respondents save and continue later', ['Feedback'], 'triage', 0],
    ['Stripe payment field for paid forms', ['Feature'], 'backlog', 3],
    ['Publishing fails when a form has 200+ fields', ['Bug'], 'backlog', 3],
    ['Pricing page copy refresh', ['Docs'], 'todo', 4],
    ['New form editor sidebar', ['Design'], 'progress', 3],
    ['Move the worker to a dedicated queue host', ['Infra'], 'backlog', 3],
    ['Hidden fields prefilled from URL parameters', ['Improvement'], 'backlog', 0],
    ['Spam protection without a captcha', ['Idea', 'Feedback'], 'backlog', 3],
    ['Slow dashboard for workspaces with 50k submissions', ['Bug', 'Performance'], 'todo', 3],
    ['Multi-page forms', ['Feature'], 'done', 2],
    ['Fix CSV export dropping line breaks', ['Bug'], 'done', 2],
    ['Slack notifications for new submissions', ['Feature'], 'done', 3],
    ['Rate limit the public submission endpoint', ['Improvement'], 'done', 1],
    ['Worker crashes on malformed multipart bodies', ['Bug', 'Crash'], 'done', 1],
    ['Custom domains for hosted forms', ['Feature'], 'done', 2],
    ['Respect prefers-reduced-motion in the form renderer', ['Improvement'], 'done', 4],
    ['Update SvelteKit to v2', ['Infra'], 'done', 3],
    ['GDPR data export for respondents', ['Feature'], 'done', 2],
    ['Form templates gallery', ['Feature'], 'done', 3],
    ['Native mobile app', ['Idea'], 'canceled', 0],
    ['Typeform importer', ['Feature'], 'canceled', 4],
  ],
  TDL: [
    ['Tide alerts for a chosen height', ['Feature'], 'progress', 2],
    ['Wrong high tide times for stations south of the equator', ['Bug'], 'progress', 1],
    ['Moon phase on the daily view', ['Idea'], 'backlog', 4],
    ['Offline tide tables for a saved station', ['Feature', 'Feedback'], 'todo', 2],
    ['Crash when the location permission is denied on Android 14', ['Bug', 'Crash'], 'todo', 1],
    ['Surf forecast overlay', ['Idea'], 'triage', 0],
    ['Station search does not find accented names', ['Bug'], 'triage', 3],
    ['Wear OS tile', ['Idea'], 'backlog', 0],
    ['Pinch to zoom on the tide chart', ['Improvement'], 'backlog', 3],
    ['Shareable station links in the web companion', ['Feature'], 'todo', 3],
    ['Sunrise and sunset on the tide chart', ['Feedback'], 'triage', 4],
    ['Tide data API times out for week-long ranges', ['Bug', 'Performance'], 'review', 2],
    ['iOS home screen widget', ['Feature'], 'backlog', 2],
    ['Tidy up the dark mode palette', ['Design'], 'backlog', 4],
    ['Translate the app into Portuguese', ['Docs'], 'backlog', 0],
    ['Units setting ignored in the widget', ['Bug'], 'backlog', 3],
    ['Solunar fishing times view', ['Idea', 'Feedback'], 'backlog', 0],
    ['Import stations from NOAA CO-OPS', ['Infra'], 'todo', 3],
    ['Better empty state when no station is nearby', ['Improvement'], 'triage', 0],
    ['Water temperature for stations that report it', ['Feature'], 'backlog', 4],
    ['Favourite stations', ['Feature'], 'done', 2],
    ['Tide chart drawn an hour off after the DST change', ['Bug', 'Regression'], 'done', 1],
    ['Subscription paywall with a 7-day trial', ['Feature'], 'done', 2],
    ['Faster station list on older Android phones', ['Improvement'], 'done', 3],
    ['Crash when rotating the chart on tablets', ['Bug'], 'done', 2],
    ['Android home screen widget', ['Feature'], 'done', 2],
    ['Web companion landing page', ['Design'], 'done', 3],
    ['Metric and imperial units', ['Improvement'], 'done', 3],
    ['Apple TV app', ['Idea'], 'canceled', 4],
    ['Tide clock face', ['Idea'], 'duplicate', 0],
  ],
};

const uuid = (seed: string) => {
  const hex = hexId(seed, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60)
    .replace(/-$/, '');

const iso = (ms: number) => new Date(ms).toISOString();

export const demoOrganization = { __typename: 'Organization', id: uuid('linear-org'), name: 'Demo Founder', urlKey: 'demo-founder' };

export const demoViewer = {
  __typename: 'User',
  id: uuid('linear-viewer'),
  name: 'Demo Founder',
  displayName: 'demo',
  email: 'founder@demo-founder.dev',
  active: true,
  admin: true,
};

export type LinearIssue = ReturnType<typeof buildIssues>[number];

/**
 * Every demo product's issues as Linear's `Issue` objects, dates relative to `now`: open work created
 * over the last four months, completed work spread over the last five weeks, a few canceled.
 */
export function buildIssues(now: number) {
  const random = seededRandom('linear');
  const between = (lo: number, hi: number) => lo + random() * (hi - lo);
  const issues = demoProducts.flatMap((product) => {
    const team = { __typename: 'Team', id: product.linearTeam.id, key: product.linearTeam.key, name: product.linearTeam.name };
    const teamStates = Object.fromEntries(
      Object.entries(states).map(([key, state]) => [key, { __typename: 'WorkflowState', id: uuid(`${team.key}-state-${key}`), ...state }]),
    ) as Record<StateKey, { __typename: string; id: string; name: string; type: string; color: string; position: number }>;
    const specs = issueSpecs[team.key] ?? [];
    const drafted = specs.map(([title, labels, stateKey, priority, ageDays], index) => {
      const state = teamStates[stateKey];
      const closed = stateKey === 'done' || stateKey === 'canceled' || stateKey === 'duplicate';
      // Closed work ended within the last five weeks; it was opened some weeks before that.
      const closedAt = closed ? now - between(0.5, 35) * DAY_MS : null;
      const createdAt = ageDays !== undefined ? now - ageDays * DAY_MS - between(0, 3_600_000) : (closedAt ?? now) - between(3, 110) * DAY_MS;
      const started = stateKey === 'progress' || stateKey === 'review' || stateKey === 'done';
      const startedAt = started ? createdAt + ((closedAt ?? now) - createdAt) * between(0.3, 0.8) : null;
      const updatedAt = Math.min(now - 60_000, (closedAt ?? startedAt ?? createdAt) + between(0, 2) * DAY_MS);
      return { index, title, labels, state, stateKey, priority, createdAt, closedAt, startedAt, updatedAt };
    });
    // Linear numbers a team's issues in the order they were created.
    const numbered = [...drafted].sort((a, b) => a.createdAt - b.createdAt);
    return numbered.map((draft, position) => {
      const number = 101 + position;
      const identifier = `${team.key}-${number}`;
      const assigned = draft.stateKey === 'progress' || draft.stateKey === 'review' || draft.stateKey === 'done';
      return {
        __typename: 'Issue',
        id: uuid(`${identifier}-issue`),
        identifier,
        number,
        title: draft.title,
        description: null,
        url: `https://linear.app/${demoOrganization.urlKey}/issue/${identifier}/${slug(draft.title)}`,
        priority: draft.priority,
        priorityLabel: priorityLabels[draft.priority] ?? 'No priority',
        estimate: draft.stateKey === 'triage' ? null : [1, 2, 3, 5][draft.index % 4],
        createdAt: iso(draft.createdAt),
        updatedAt: iso(draft.updatedAt),
        startedAt: draft.startedAt === null ? null : iso(draft.startedAt),
        completedAt: draft.stateKey === 'done' && draft.closedAt !== null ? iso(draft.closedAt) : null,
        canceledAt: draft.stateKey !== 'done' && draft.closedAt !== null ? iso(draft.closedAt) : null,
        archivedAt: null,
        dueDate: null,
        state: draft.state,
        team,
        assignee: assigned ? demoViewer : null,
        creator: demoViewer,
        project: null,
        labels: {
          __typename: 'IssueLabelConnection',
          nodes: draft.labels.map((name) => ({ __typename: 'IssueLabel', id: uuid(`label-${name}`), name, color: labelColors[name] ?? '#bec2c8' })),
          pageInfo: { __typename: 'PageInfo', hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
        },
      };
    });
  });
  return issues;
}
