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
/** GitHub's default texts for bug, Dependabot's for dependencies; the description requires one (a string, not null). */
const labelDescriptions: Record<string, string> = {
  feature: 'New feature or request',
  bug: "Something isn't working",
  dependencies: 'Pull requests that update a dependency file',
  performance: 'Faster or lighter',
};

const API = 'https://api.github.com';

/** An account as GitHub embeds it (`simple-user`): every URL its description requires. */
function account(login: string, id: number, nodeId: string, type: 'User' | 'Organization' | 'Bot', html = `https://github.com/${login}`, avatar = `https://avatars.githubusercontent.com/u/${id}?v=4`) {
  const url = `${API}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: nodeId,
    avatar_url: avatar,
    gravatar_id: '',
    url,
    html_url: html,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    user_view_type: 'public',
    site_admin: false,
  };
}

const demoUser = account('demo-founder', 98213745, 'U_kgDOBdqMcQ', 'User');
const dependabot = account('dependabot[bot]', 49699333, 'MDM6Qm90NDk2OTkzMzM=', 'Bot', 'https://github.com/apps/dependabot', 'https://avatars.githubusercontent.com/in/29110?v=4');

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A repository as GitHub describes it (`repository`): the owner, the URL templates and the counters its description requires. */
function repository(fullName: string, id: number, isPrivate: boolean, now: number) {
  const [owner = '', name = ''] = fullName.split('/');
  const url = `${API}/repos/${fullName}`;
  const html = `https://github.com/${fullName}`;
  return {
    id,
    node_id: `R_kgDOKp${hexId(fullName, 8)}`,
    name,
    full_name: fullName,
    private: isPrivate,
    owner: owner === demoUser.login ? demoUser : account(owner, 150_000_000 + id % 100_000, `O_kgDOC${hexId(owner, 6)}`, 'Organization'),
    html_url: html,
    description: null,
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git://github.com/${fullName}.git`,
    hooks_url: `${url}/hooks`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@github.com:${fullName}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    clone_url: `${html}.git`,
    mirror_url: null,
    svn_url: html,
    homepage: null,
    language: null,
    size: 2048 + (id % 4096),
    forks: 0,
    forks_count: 0,
    stargazers_count: isPrivate ? 0 : 37,
    watchers: isPrivate ? 0 : 37,
    watchers_count: isPrivate ? 0 : 37,
    open_issues: 3,
    open_issues_count: 3,
    has_issues: true,
    has_projects: false,
    has_downloads: true,
    has_wiki: false,
    has_pages: false,
    archived: false,
    disabled: false,
    license: null,
    default_branch: 'main',
    visibility: isPrivate ? 'private' : 'public',
    created_at: iso(now - 400 * DAY_MS),
    updated_at: iso(now - 2 * DAY_MS),
    pushed_at: iso(now - DAY_MS / 3),
  };
}

function buildRepos(now: number) {
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
  // The token's own account, as GitHub's `private-user`: the public profile plus what only its owner sees.
  const signedInUser = {
    ...demoUser,
    user_view_type: 'private',
    name: 'Demo Founder',
    company: null,
    blog: '',
    location: null,
    email: null,
    notification_email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: 1,
    public_gists: 0,
    followers: 12,
    following: 3,
    created_at: iso(now - 900 * DAY_MS),
    updated_at: iso(now - 5 * DAY_MS),
    private_gists: 2,
    total_private_repos: 4,
    owned_private_repos: 1,
    disk_usage: 18_544,
    collaborators: 0,
    two_factor_authentication: true,
    plan: { name: 'pro', space: 976_562_499, collaborators: 0, private_repos: 9999 },
  };

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
      { method: 'GET', path: '/user', handle: () => json({ body: signedInUser }) },
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
