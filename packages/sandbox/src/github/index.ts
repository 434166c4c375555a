import { randomBytes } from 'node:crypto';
import { DAY_MS, demoProducts, hexId, sandboxGitHubOAuth, sandboxTokens, seededRandom } from '../demo.ts';
import { fakeOAuth } from '../oauth.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

const HOUR = 3_600_000;

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

const demoUser = {
  login: 'demo-founder',
  id: 98213745,
  node_id: 'U_kgDOBdqMcQ',
  avatar_url: 'https://avatars.githubusercontent.com/u/98213745?v=4',
  gravatar_id: '',
  url: 'https://api.github.com/users/demo-founder',
  html_url: 'https://github.com/demo-founder',
  type: 'User',
  site_admin: false,
};
const dependabot = { ...demoUser, login: 'dependabot[bot]', id: 49699333, node_id: 'MDM6Qm90NDk2OTkzMzM=', type: 'Bot', html_url: 'https://github.com/apps/dependabot', url: 'https://api.github.com/users/dependabot%5Bbot%5D', avatar_url: 'https://avatars.githubusercontent.com/in/29110?v=4' };

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function buildRepos(now: number) {
  const random = seededRandom('github');
  const between = (lo: number, hi: number) => lo + random() * (hi - lo);
  const repos = demoProducts.flatMap((product) => product.repos);
  return repos.map((fullName, repoIndex) => {
    const [owner = '', name = ''] = fullName.split('/');
    const id = 712_340_000 + repoIndex * 7919;
    const specs = pullSpecs[fullName] ?? [];
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
        return {
          url: `https://api.github.com/repos/${fullName}/pulls/${number}`,
          id: 1_900_000_000 + id + number,
          node_id: `PR_kwDOKp${hexId(`${fullName}-${number}-node`, 10)}`,
          html_url: html,
          diff_url: `${html}.diff`,
          patch_url: `${html}.patch`,
          issue_url: `https://api.github.com/repos/${fullName}/issues/${number}`,
          number,
          state: draft.state === 'open' ? 'open' : 'closed',
          locked: false,
          title: draft.title,
          user: draft.label === 'dependencies' ? dependabot : demoUser,
          body: null,
          labels: draft.label ? [{ id: 5_000_000_000 + number, node_id: `LA_kwDO${number}`, url: `https://api.github.com/repos/${fullName}/labels/${draft.label}`, name: draft.label, color: labelColors[draft.label] ?? 'ededed', default: draft.label === 'bug', description: null }] : [],
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
          head: { label: `${owner}:change-${number}`, ref: `change-${number}`, sha, user: demoUser },
          base: { label: `${owner}:main`, ref: 'main', sha: hexId(`${fullName}-main-${number}`, 40), user: demoUser },
          author_association: draft.label === 'dependencies' ? 'CONTRIBUTOR' : 'OWNER',
          auto_merge: null,
          draft: false,
        };
      });
    const repo = {
      id,
      node_id: `R_kgDOKp${hexId(fullName, 8)}`,
      name,
      full_name: fullName,
      private: repoIndex !== 4,
      owner: { ...demoUser, login: owner, type: owner === 'demo-founder' ? 'User' : 'Organization' },
      html_url: `https://github.com/${fullName}`,
      url: `https://api.github.com/repos/${fullName}`,
      default_branch: 'main',
      created_at: iso(now - 400 * DAY_MS),
      pushed_at: iso(now - DAY_MS / 3),
    };
    return { repo, pulls };
  });
}

const docs = 'https://docs.github.com/rest';

/** GitHub's paging: `per_page` (30, at most 100) and `page`, with a `Link` header of next/last/prev/first. */
function pullsPage(request: SandboxRequest, repoId: number, pulls: ReturnType<typeof buildRepos>[number]['pulls']): SandboxReply {
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

/** The GitHub REST API (`/user`, `/repos/{owner}/{repo}`, its pulls) over the demo products' repositories. */
export function githubService(now: number): SandboxService {
  const repos = buildRepos(now);
  const notFound = (path: string): SandboxReply => ({ status: 404, body: { message: 'Not Found', documentation_url: `${docs}${path}`, status: '404' } });
  const byName = (owner = '', name = '') => repos.find((r) => r.repo.full_name.toLowerCase() === `${owner}/${name}`.toLowerCase());
  const json = (reply: SandboxReply): SandboxReply => ({ ...reply, headers: { 'x-github-api-version-selected': '2022-11-28', 'x-github-media-type': 'github.v3; format=json', ...reply.headers } });

  /** github.com's web flow: an OAuth app's tokens never expire; a GitHub App's user tokens do, with rotating refresh tokens. */
  const oauth = fakeOAuth({
    label: 'GitHub',
    clients: [
      sandboxGitHubOAuth.oauthApp,
      { ...sandboxGitHubOAuth.githubApp, expiring: { accessMs: 8 * HOUR, refreshMs: 184 * DAY_MS, rotate: true } },
    ],
    // With `Accept: application/json` GitHub answers a refused token request 200, the error in the body.
    error: (_status, code, description) => ({ body: { error: code, error_description: description, error_uri: 'https://docs.github.com/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors' } }),
    accessToken: (client) => `${client.expiring ? 'ghu' : 'gho'}_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x')}`,
    refreshToken: () => `ghr_${randomBytes(56).toString('base64url').replace(/[-_]/g, 'x')}`,
    refreshOnCode: (client) => client.expiring !== undefined,
    account: demoUser.login,
    refusals: { code: 'bad_verification_code', refresh: 'bad_refresh_token', refreshDescription: 'The refresh token passed is incorrect or expired.' },
    wrongClient: { unknown: 'The client_id and/or client_secret passed are incorrect.', secret: 'The client_id and/or client_secret passed are incorrect.' },
  });
  const isOAuthPath = (path: string) => path.startsWith('/login/oauth/');

  return {
    name: 'github',
    basePath: '',
    oauth,
    // GitHub takes a token as `Bearer` or, the older way, `token`; the web flow's own pages need none.
    authorize: (request) => {
      if (isOAuthPath(request.path)) return true;
      const header = request.headers.authorization ?? '';
      const token = /^(?:Bearer|token) (.+)$/.exec(header)?.[1] ?? '';
      return token === sandboxTokens.github || oauth.accepts(token, request.now);
    },
    unauthorized: () => ({ status: 401, body: { message: 'Bad credentials', documentation_url: docs, status: '401' } }),
    rateLimit: {
      limit: 5000,
      windowMs: HOUR,
      headers: ({ limit, used, resetAt }) => ({
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(Math.max(0, limit - used)),
        'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
        'x-ratelimit-used': String(used),
        'x-ratelimit-resource': 'core',
      }),
      // A used-up primary limit is a 403 with x-ratelimit-remaining: 0 and the reset in epoch seconds.
      tooMany: () => ({
        status: 403,
        body: {
          message: `API rate limit exceeded for user ID ${demoUser.id}. If you reach out to GitHub Support for help, please include the request ID 8C2A:1F0B:4E5D6A:9B1C2D:6650A1B2.`,
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
          status: '403',
        },
      }),
    },
    routes: [
      { method: 'GET', path: '/login/oauth/authorize', handle: oauth.authorizePage },
      { method: 'POST', path: '/login/oauth/access_token', handle: oauth.token },
      { method: 'GET', path: '/user', handle: () => json({ body: { ...demoUser, name: 'Demo Founder', company: null, blog: '', location: null, email: null, bio: null, public_repos: 1, followers: 12, following: 3, created_at: iso(now - 900 * DAY_MS), updated_at: iso(now - 5 * DAY_MS) } }) },
      {
        method: 'GET',
        path: '/repos/:owner/:repo',
        handle: ({ params }) => {
          const found = byName(params.owner, params.repo);
          return found ? json({ body: found.repo }) : notFound('/repos/repos#get-a-repository');
        },
      },
      {
        method: 'GET',
        path: '/repos/:owner/:repo/pulls',
        handle: (request) => {
          const found = byName(request.params.owner, request.params.repo);
          return found ? json(pullsPage(request, found.repo.id, found.pulls)) : notFound('/pulls/pulls#list-pull-requests');
        },
      },
      {
        // Where GitHub's own `Link` headers point: the repository by id.
        method: 'GET',
        path: '/repositories/:id/pulls',
        handle: (request) => {
          const found = repos.find((r) => String(r.repo.id) === request.params.id);
          return found ? json(pullsPage(request, found.repo.id, found.pulls)) : notFound('/pulls/pulls#list-pull-requests');
        },
      },
    ],
  };
}
