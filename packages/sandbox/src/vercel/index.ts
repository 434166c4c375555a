import { DAY_MS, demoOrg, demoProducts, hexId, sandboxTokens, seededRandom, type DemoProduct } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

const MINUTE = 60_000;
const WEEK_MS = 7 * DAY_MS;
const HISTORY_WEEKS = 20;

/** Where each demo product's Vercel project builds from, how often it ships, and what the commits say. */
const story: Record<DemoProduct['slug'], { org: string; repo: string; perWeek: number; commits: string[]; branches: string[] }> = {
  'pocket-ledger': {
    org: 'pocketledger',
    repo: 'site',
    perWeek: 3,
    commits: [
      'Update App Store badge and pricing copy',
      'Add yearly plan comparison table',
      'Fix hero image layout on small screens',
      'Blog: How we sync your ledger offline',
      'Add privacy nutrition label page',
      'Localize landing page for German',
      'Tweak OG images for sharing',
      'Link to the new help centre',
      'Add testimonials from the 4.8 star reviews',
      'Fix broken link in footer',
      'Changelog for 3.4: shared budgets',
      'Compress screenshots (-40% LCP)',
    ],
    branches: ['copy/pricing', 'blog/offline-sync', 'feat/de-locale', 'fix/footer-links'],
  },
  formfox: {
    org: 'formfox',
    repo: 'web',
    perWeek: 12,
    commits: [
      'Add conditional logic to multi-step forms',
      'Fix file upload size check on Safari',
      'Webhook retries with exponential back-off',
      'Speed up form list query for large workspaces',
      'Add CSV export of submissions',
      'Fix date picker timezone offset',
      'Stripe: handle incomplete_expired subscriptions',
      'Drag and drop reordering of fields',
      'Add hCaptcha as spam protection option',
      'Fix embed script height on iOS',
      'Rate limit public submission endpoint',
      'Custom thank-you redirects per form',
      'Bump SvelteKit to latest',
      'Show submission count on dashboard cards',
      'Fix signature field on touch devices',
      'Zapier integration: new submission trigger',
      'Templates gallery: 12 new templates',
      'Fix duplicate emails on form edit',
    ],
    branches: ['feat/conditional-logic', 'fix/safari-upload', 'feat/csv-export', 'chore/deps', 'feat/templates'],
  },
  tideline: {
    org: 'tideline-dev',
    repo: 'tideline',
    perWeek: 4,
    commits: [
      'Web: tide chart renders moon phases',
      'Add station search by postcode',
      'Fix daylight saving shift in tide times',
      'Web companion: save favourite stations',
      'Show swell height next to tide height',
      'Fix chart tooltip overflow',
      'Add Bristol Channel stations',
      'Cache tide predictions at the edge',
      'Dark mode for the web companion',
      'Fix metric/imperial toggle persistence',
    ],
    branches: ['feat/moon-phases', 'fix/dst', 'feat/dark-mode'],
  },
};

const authors = [
  { name: 'Dana Whitlock', login: 'dana-w' },
  { name: 'Sam Okafor', login: 'samokafor' },
];

const creator = { uid: 'hQ0Xk2mNbV7rTp4sLc9wYd1e', email: 'founder@demo-founder.dev', username: 'demo-founder', githubLogin: 'dana-w' };

const forbidden = (message: string): SandboxReply => ({ status: 403, body: { error: { code: 'forbidden', message } } });

/** Vercel answers a missing or wrong token with 403, not 401. */
function checkToken(request: SandboxRequest): SandboxReply | undefined {
  const header = request.headers.authorization;
  if (!header) return { status: 403, body: { error: { code: 'forbidden', message: 'The request is missing an authentication token', missingToken: true } } };
  if (header !== `Bearer ${sandboxTokens.vercel}`) return { status: 403, body: { error: { code: 'forbidden', message: 'Not authorized', invalidToken: true } } };
  return undefined;
}

function base62(random: () => number, length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

type Deployment = Record<string, unknown> & { uid: string; projectId: string; created: number; state: string; target: string | null };

function deploymentsOf(product: DemoProduct, now: number): Deployment[] {
  const random = seededRandom(`vercel:${product.slug}`);
  const { org, repo, perWeek, commits, branches } = story[product.slug];
  const { projectId, name } = product.vercel;
  const deployments: Deployment[] = [];
  let n = 0;

  const make = (created: number, target: 'production' | null, state: string, options: { message?: string; branch?: string; cli?: boolean } = {}) => {
    const uid = `dpl_${base62(random, 28)}`;
    const author = authors[Math.floor(random() * authors.length)] ?? authors[0];
    const buildMs = Math.round((35 + random() * 90) * 1000);
    const ready = created + buildMs;
    const branch = options.branch ?? 'main';
    const message = options.message ?? commits[n++ % commits.length] ?? 'Update';
    const meta: Record<string, string> = options.cli
      ? {}
      : {
          githubCommitAuthorName: author?.name ?? '',
          githubCommitAuthorLogin: author?.login ?? '',
          githubCommitMessage: message,
          githubCommitOrg: org,
          githubCommitRef: branch,
          githubCommitRepo: repo,
          githubCommitRepoId: String(600_000_000 + Math.floor(random() * 90_000_000)),
          githubCommitSha: hexId(uid, 40),
          githubDeployment: '1',
          githubOrg: org,
          githubRepo: repo,
          githubRepoOwnerType: 'Organization',
          ...(target === null ? { githubPrId: String(40 + Math.floor(random() * 300)) } : {}),
        };
    const hash = base62(random, 9).toLowerCase();
    deployments.push({
      uid,
      name,
      projectId,
      url: `${name}-${hash}-demo-founder.vercel.app`,
      created,
      createdAt: created,
      buildingAt: created + 800,
      ...(state === 'READY' ? { ready } : {}),
      state,
      readyState: state,
      ...(state === 'READY' ? { readySubstate: target === 'production' ? 'PROMOTED' : 'STAGED' } : {}),
      type: 'LAMBDAS',
      source: options.cli ? 'cli' : 'git',
      target,
      aliasAssigned: state === 'READY' ? ready : null,
      aliasError: null,
      isRollbackCandidate: state === 'READY' && target === 'production',
      creator,
      inspectorUrl: `https://vercel.com/demo-founder/${name}/${uid.slice(4)}`,
      meta,
    });
  };

  // Weeks of history: production pushes to main (most go live, some fail or are cancelled) and previews of branches.
  const start = now - HISTORY_WEEKS * WEEK_MS;
  for (let at = start + random() * (WEEK_MS / perWeek); at < now - 3 * 60 * MINUTE; at += (0.3 + random() * 1.4) * (WEEK_MS / perWeek)) {
    const created = Math.round(at);
    const roll = random();
    if (roll < 0.35) {
      const branch = branches[Math.floor(random() * branches.length)] ?? 'preview';
      make(created, null, random() < 0.85 ? 'READY' : 'ERROR', { branch, message: `WIP: ${commits[Math.floor(random() * commits.length)] ?? 'changes'}` });
    } else if (roll < 0.41) {
      make(created, 'production', 'ERROR');
    } else if (roll < 0.44) {
      make(created, 'production', 'CANCELED');
    } else {
      make(created, 'production', 'READY');
    }
  }
  // A hotfix deployed from the CLI (no Git metadata), a commit with a body, and a build still running now.
  make(now - 2 * DAY_MS - 5 * 60 * MINUTE, 'production', 'READY', { cli: true });
  make(now - 90 * MINUTE, 'production', 'READY', {
    message: `${commits[0] ?? 'Ship it'}\n\nCo-authored-by: Sam Okafor <sam@demo-founder.dev>`,
  });
  make(now - 4 * MINUTE, 'production', 'BUILDING');
  return deployments.sort((a, b) => b.created - a.created);
}

/** Vercel's REST API (`/v2/user`, `/v6/deployments`) for the demo team's three projects. */
export function vercelService(now: number): SandboxService {
  const deployments = demoProducts.flatMap((product) => deploymentsOf(product, now));
  const projects = new Map<string, string>(demoProducts.map((p) => [p.vercel.projectId, p.vercel.name]));

  return {
    name: 'vercel',
    basePath: '',
    // Vercel's answer to a bad token is a 403, which the routes give themselves (the harness's is a 401).
    authorize: () => true,
    unauthorized: () => ({ body: { error: { code: 'forbidden', message: 'Not authorized', invalidToken: true } } }),
    rateLimit: {
      // Vercel publishes limits per endpoint and reports them in headers; the listing's is in the hundreds a minute.
      limit: 300,
      windowMs: MINUTE,
      headers: ({ limit, used, resetAt }) => ({
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(Math.max(0, limit - used)),
        'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
      }),
      tooMany: (retryAfterMs) => ({
        status: 429,
        headers: { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) },
        body: { error: { code: 'rate_limited', message: 'Rate limit exceeded' } },
      }),
    },
    routes: [
      {
        method: 'GET',
        path: '/v2/user',
        handle: (request) =>
          checkToken(request) ?? {
            body: {
              user: {
                id: creator.uid,
                email: creator.email,
                name: 'Demo Founder',
                username: creator.username,
                avatar: null,
                defaultTeamId: demoOrg.vercelTeamId,
                version: 'northstar',
                createdAt: now - 900 * DAY_MS,
                softBlock: null,
                billing: null,
                resourceConfig: {},
                stagingPrefix: 'demo-founder',
                hasTrialAvailable: false,
              },
            },
          },
      },
      {
        method: 'GET',
        path: '/v6/deployments',
        handle: (request) => {
          const denied = checkToken(request);
          if (denied) return denied;
          const { query } = request;
          const teamId = query.get('teamId');
          if (teamId !== null && teamId !== demoOrg.vercelTeamId) return forbidden('Not authorized');
          const project = query.get('projectId');
          const projectId = project === null ? undefined : projects.has(project) ? project : [...projects].find(([, name]) => name === project)?.[0];
          // The demo projects belong to the team: without teamId the token's personal scope has none of them.
          if (project !== null && (projectId === undefined || teamId === null)) {
            return { status: 404, body: { error: { code: 'not_found', message: 'Project not found' } } };
          }
          const target = query.get('target');
          const states = query.get('state')?.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
          const until = Number(query.get('until') ?? Number.POSITIVE_INFINITY);
          const since = Number(query.get('since') ?? Number.NEGATIVE_INFINITY);
          const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 20) || 20));
          const matching = deployments.filter(
            (d) =>
              (teamId !== null) &&
              (projectId === undefined || d.projectId === projectId) &&
              (target === null || (target === 'production' ? d.target === 'production' : d.target === null)) &&
              (!states?.length || states.includes(d.state)) &&
              d.created < until &&
              d.created > since,
          );
          const page = matching.slice(0, limit);
          const last = page.at(-1);
          return {
            body: {
              pagination: { count: page.length, next: matching.length > limit && last ? last.created : null, prev: page[0]?.created ?? null },
              deployments: page,
            },
          };
        },
      },
    ],
  };
}
