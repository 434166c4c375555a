import { DAY_MS, demoProducts, hexId, seededRandom } from '../demo.ts';
import type { SandboxReply, SandboxRequest } from '../service.ts';
import { API, demoUser, dependabot, iso, repository } from './repository.ts';

/**
 * The demo products' repositories and their seeded pull requests (titles, states, labels), and one page of a
 * repository's pulls as GitHub pages them.
 */

type PullState = 'merged' | 'closed' | 'open';

/** Per repository: pull requests merged over the last six weeks, some closed without merging, some open. */
const pullSpecs: Record<string, [title: string, state: PullState, label?: string][]> = {
  'pocketledger/ios-app': [
    ['Budget alerts at 80% and 100%', 'merged', 'feature'],
    ['Lock screen widgets', 'merged', 'feature'],
    ['Fix crash on launch on iOS 17.0', 'merged', 'bug'],
    ['Restore purchases button in settings', 'merged'],
    ['Haptics when a transaction is saved', 'merged'],
    ['Import YNAB export files', 'merged', 'feature'],
    ['Add the privacy manifest for App Store review', 'merged'],
    ['Bump RevenueCat SDK to 5.3', 'merged', 'dependencies'],
    ['Fix rounding in yearly totals', 'merged', 'bug'],
    ['WIP: Plaid bank sync spike', 'closed'],
    ['Try SwiftData for the local store', 'closed'],
    ['Recurring transaction templates', 'open', 'feature'],
    ['Fix duplicate transactions after offline edits', 'open', 'bug'],
    ['Bump swift-collections from 1.1.0 to 1.1.4', 'open', 'dependencies'],
  ],
  'pocketledger/sync-api': [
    ['Bulk endpoint for a faster first sync', 'merged', 'performance'],
    ['Index transactions by (account_id, updated_at)', 'merged', 'performance'],
    ['Answer 409 to stale writes', 'merged'],
    ['Structured logs with request ids', 'merged'],
    ['Upgrade to Fastify 5', 'merged', 'dependencies'],
    ['Health check includes the database', 'merged'],
    ['Experiment: GraphQL endpoint', 'closed'],
    ['Paginate the sync endpoint for accounts with 10k+ transactions', 'open', 'bug'],
    ['Node 22', 'open'],
  ],
  'formfox/web': [
    ['Multi-page forms', 'merged', 'feature'],
    ['Custom domains for hosted forms', 'merged', 'feature'],
    ['Form templates gallery', 'merged', 'feature'],
    ['Slack notifications for new submissions', 'merged', 'feature'],
    ['Respect prefers-reduced-motion in the renderer', 'merged'],
    ['Upgrade to SvelteKit 2', 'merged', 'dependencies'],
    ['GDPR data export for respondents', 'merged', 'feature'],
    ['Fix CSV export dropping line breaks', 'merged', 'bug'],
    ['Keyboard shortcuts to reorder fields in the editor', 'merged'],
    ['Rate limit the public submission endpoint', 'merged'],
    ['Typeform importer', 'closed'],
    ['Try the Tailwind 4 alpha', 'closed'],
    ['Conditional logic between pages', 'open', 'feature'],
    ['New form editor sidebar', 'open'],
    ['Export responses to Google Sheets', 'open', 'feature'],
  ],
  'formfox/worker': [
    ['Reject malformed multipart bodies instead of crashing', 'merged', 'bug'],
    ['Retry webhooks with exponential back-off', 'merged'],
    ['Drain the queue on graceful shutdown', 'merged'],
    ['Metrics endpoint for the queue depth', 'merged'],
    ['Bump undici from 6.19.2 to 6.21.1', 'merged', 'dependencies'],
    ['Move the queue to BullMQ', 'closed'],
    ['Requeue submissions stuck after a restart', 'open', 'bug'],
  ],
  'tideline-dev/tideline': [
    ['Favourite stations', 'merged', 'feature'],
    ['Fix the tide chart after the DST change', 'merged', 'bug'],
    ['Subscription paywall with a 7-day trial', 'merged', 'feature'],
    ['Faster station list on older Android phones', 'merged'],
    ['Fix crash when rotating the chart on tablets', 'merged', 'bug'],
    ['Android home screen widget', 'merged', 'feature'],
    ['Web companion landing page', 'merged'],
    ['Metric and imperial units', 'merged'],
    ['Update tide harmonics for 2026', 'merged'],
    ['CI: build Android and iOS on every pull request', 'merged'],
    ['Fix high tide times south of the equator (part 1)', 'merged', 'bug'],
    ['Apple TV target', 'closed'],
    ['Experiment: Compose Multiplatform chart', 'closed'],
    ['Tide alerts for a chosen height', 'open', 'feature'],
    ['Offline tide tables', 'open', 'feature'],
    ['Fix crash when the location permission is denied', 'open', 'bug'],
  ],
};

const labelColors: Record<string, string> = { feature: 'a2eeef', bug: 'd73a4a', dependencies: '0366d6', performance: 'fbca04' };
/** GitHub's default texts for bug, Dependabot's for dependencies; the description requires one (a string, not null). */
const labelDescriptions: Record<string, string> = {
  feature: 'New feature or request',
  bug: "Something isn't working",
  dependencies: 'Pull requests that update a dependency file',
  performance: 'Faster or lighter',
};

export function buildRepos(now: number) {
  const random = seededRandom('github');
  const between = (lo: number, hi: number) => lo + random() * (hi - lo);
  const repos = demoProducts.flatMap((product) => product.repos);
  return repos.map((fullName, repoIndex) => {
    const [owner = ''] = fullName.split('/');
    const id = 712_340_000 + repoIndex * 7919;
    const specs = pullSpecs[fullName] ?? [];
    const repo = repository(fullName, id, repoIndex !== 4, now);
    const drafted = specs.map(([title, state, label]) => {
      const closedAt = state === 'open' ? null : now - between(0.3, 42) * DAY_MS;
      const createdAt = (closedAt ?? now) - between(0.1, state === 'open' ? 20 : 6) * DAY_MS;
      // Now and then someone comments on a merged pull request, which moves its updated_at.
      const bumped = state === 'merged' && random() < 0.25;
      const updatedAt = closedAt === null ? now - between(0.05, 3) * DAY_MS : bumped ? Math.min(now - 60_000, closedAt + between(1, 9) * DAY_MS) : closedAt + 1000;
      return { title, state, label, closedAt, createdAt, updatedAt };
    });
    const pulls = [...drafted]
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((draft, index) => {
        const number = 40 + index * 3 + repoIndex;
        const sha = hexId(`${fullName}#${number}`, 40);
        const html = `https://github.com/${fullName}/pull/${number}`;
        const self = `${API}/repos/${fullName}/pulls/${number}`;
        const issue = `${API}/repos/${fullName}/issues/${number}`;
        const statuses = `${API}/repos/${fullName}/statuses/${sha}`;
        return {
          url: self,
          id: 1_900_000_000 + id + number,
          node_id: `PR_kwDOKp${hexId(`${fullName}-${number}-node`, 10)}`,
          html_url: html,
          diff_url: `${html}.diff`,
          patch_url: `${html}.patch`,
          issue_url: issue,
          commits_url: `${self}/commits`,
          review_comments_url: `${self}/comments`,
          review_comment_url: `${API}/repos/${fullName}/pulls/comments{/number}`,
          comments_url: `${issue}/comments`,
          statuses_url: statuses,
          number,
          state: draft.state === 'open' ? 'open' : 'closed',
          locked: false,
          title: draft.title,
          user: draft.label === 'dependencies' ? dependabot : demoUser,
          body: null,
          labels: draft.label ? [{ id: 5_000_000_000 + number, node_id: `LA_kwDO${number}`, url: `${API}/repos/${fullName}/labels/${draft.label}`, name: draft.label, color: labelColors[draft.label] ?? 'ededed', default: draft.label === 'bug', description: labelDescriptions[draft.label] ?? '' }] : [],
          milestone: null,
          active_lock_reason: null,
          created_at: iso(draft.createdAt),
          updated_at: iso(draft.updatedAt),
          closed_at: draft.closedAt === null ? null : iso(draft.closedAt),
          merged_at: draft.state === 'merged' && draft.closedAt !== null ? iso(draft.closedAt) : null,
          merge_commit_sha: draft.state === 'open' ? null : hexId(`${fullName}#${number}-merge`, 40),
          assignee: null,
          assignees: [],
          requested_reviewers: [],
          requested_teams: [],
          head: { label: `${owner}:change-${number}`, ref: `change-${number}`, sha, user: repo.owner, repo },
          base: { label: `${owner}:main`, ref: 'main', sha: hexId(`${fullName}-main-${number}`, 40), user: repo.owner, repo },
          _links: {
            self: { href: self },
            html: { href: html },
            issue: { href: issue },
            comments: { href: `${issue}/comments` },
            review_comments: { href: `${self}/comments` },
            review_comment: { href: `${API}/repos/${fullName}/pulls/comments{/number}` },
            commits: { href: `${self}/commits` },
            statuses: { href: statuses },
          },
          author_association: draft.label === 'dependencies' ? 'CONTRIBUTOR' : 'OWNER',
          auto_merge: null,
          draft: false,
        };
      });
    return { repo, pulls };
  });
}

/** GitHub's paging: `per_page` (30, at most 100) and `page`, with a `Link` header of next/last/prev/first. */
export function pullsPage(request: SandboxRequest, repoId: number, pulls: ReturnType<typeof buildRepos>[number]['pulls']): SandboxReply {
  const q = request.query;
  const state = q.get('state') ?? 'open';
  const sort = q.get('sort') ?? 'created';
  const direction = q.get('direction') ?? 'desc';
  const perPage = Math.min(100, Math.max(1, Number(q.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
  const key = sort === 'created' ? 'created_at' : 'updated_at';
  const matching = pulls
    .filter((p) => state === 'all' || p.state === state)
    .sort((a, b) => (direction === 'asc' ? 1 : -1) * a[key].localeCompare(b[key]) || b.number - a.number);
  const last = Math.max(1, Math.ceil(matching.length / perPage));
  const link = (n: number) => {
    const url = new URL(`/repositories/${repoId}/pulls`, request.origin);
    for (const [name, value] of q) if (name !== 'page') url.searchParams.set(name, value);
    url.searchParams.set('page', String(n));
    return url.toString();
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`<${link(page - 1)}>; rel="prev"`);
  if (page < last) rels.push(`<${link(page + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
  if (page > 1) rels.push(`<${link(1)}>; rel="first"`);
  return {
    headers: rels.length > 0 ? { link: rels.join(', ') } : {},
    body: matching.slice((page - 1) * perPage, page * perPage),
  };
}
