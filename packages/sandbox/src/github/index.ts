import { randomBytes } from 'node:crypto';
import { DAY_MS, sandboxGitHubOAuth, sandboxTokens } from '../demo.ts';
import { fakeOAuth } from '../oauth.ts';
import type { SandboxReply, SandboxService } from '../service.ts';
import { buildRepos, pullsPage } from './pulls.ts';
import { demoUser, iso } from './repository.ts';

/** The fake GitHub's routes, its token check, web sign-in and rate limit; the repositories and pulls live beside it. */

const HOUR = 3_600_000;

const docs = 'https://docs.github.com/rest';

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
