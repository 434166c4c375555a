import { randomBytes } from 'node:crypto';
import { DAY_MS, demoProducts, sandboxGoogle, sandboxGoogleAccount, seededRandom } from '../demo.ts';
import { fakeOAuth } from '../oauth.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';

const MINUTE = 60_000;
/** Access tokens live an hour by the sandbox clock; the token endpoint says 3599 s, as Google does. */
const TOKEN_LIFETIME_MS = 3_600_000;
/** The demo properties were added to Search Console this long before the sandbox started. */
const HISTORY_DAYS = 420;
/** Final data ends two days before today (Pacific), as the real API's default `dataState` does. */
const LAG_DAYS = 2;
/** Pocket Ledger's day without search data (Google omits the day from a `date` grouping). */
const NO_DATA_DAYS_AGO = 45;
/** Searches Sunday..Saturday: fewer at weekends. */
const WEEKLY = [0.86, 1.04, 1.08, 1.07, 1.04, 0.99, 0.88] as const;

/**
 * The revoke switch for tests: a refresh token starting with this (e.g. `1//revoked-demo`) is
 * answered `invalid_grant` "Token has been expired or revoked.", as Google answers a token the user
 * revoked, that expired, or that was replaced.
 */
export const REVOKED_REFRESH_TOKEN_PREFIX = '1//revoked';

/**
 * A refresh token minted without Search Console's scope (gcloud's default application-default login: cloud-platform
 * and openid/email): the demo client's id and secret, this token, and the token endpoint grants only those scopes.
 */
export const NARROW_REFRESH_TOKEN = '1//0sandboxCloudPlatformOnly';
const NARROW_SCOPES = 'https://www.googleapis.com/auth/cloud-platform openid https://www.googleapis.com/auth/userinfo.email';

/** Google's API error envelope (Search Console v3 still sends the legacy `errors` list). */
function apiError(code: number, status: string, message: string, reason: string): SandboxReply {
  return { status: code, body: { error: { code, message, errors: [{ message, domain: 'global', reason }], status } } };
}

const oauthError = (status: number, error: string, description: string): SandboxReply => ({
  status,
  headers: { 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate' },
  body: { error, error_description: description },
});

/** accounts.google.com's authorization endpoint, under the sandbox's one origin. */
const AUTHORIZE_PATH = '/o/oauth2/v2/auth';

/** An OpenID id token as Google's token endpoint returns it (signed there; the fake's signature is a placeholder). */
function idToken(clientId: string, now: number): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const seconds = Math.floor(now / 1000);
  const claims = { iss: 'https://accounts.google.com', aud: clientId, azp: clientId, sub: '104857600000000000001', email: sandboxGoogleAccount, email_verified: true, iat: seconds, exp: seconds + 3600 };
  return `${part({ alg: 'RS256', kid: 'sandbox', typ: 'JWT' })}.${part(claims)}.${Buffer.from('sandbox-signature').toString('base64url')}`;
}

const UNAUTHENTICATED =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

const pacific = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', year: 'numeric', month: '2-digit', day: '2-digit' });
function pacificDayMs(now: number): number {
  const parts = Object.fromEntries(pacific.formatToParts(new Date(now)).map((part) => [part.type, part.value]));
  return Date.parse(`${parts.year}-${parts.month}-${parts.day}T00:00:00Z`);
}

/** A query's steady numbers: impressions a day and average position; clicks follow from the position. */
interface QueryProfile {
  query: string;
  daily: number;
  position: number;
  brand: boolean;
}

/** Share of impressions clicked at a position (organic CTR curve); brand searches click far more. */
function ctrAt(position: number, brand: boolean): number {
  const curve = [0.3, 0.16, 0.1, 0.07, 0.052, 0.04, 0.031, 0.025, 0.021, 0.018];
  const organic = position <= 10 ? (curve[Math.max(0, Math.round(position) - 1)] ?? 0.018) : position <= 20 ? 0.008 : 0.002;
  return brand ? Math.min(0.62, organic * 1.9) : organic;
}

/** Per product: brand searches, the searches it ranks for, and long-tail variants of them. */
const catalogue: Record<string, { head: [string, number, number][]; brand: string[]; tail: { stems: string[]; modifiers: string[] } }> = {
  'https://pocketledger.app/': {
    brand: ['pocket ledger', 'pocket ledger app', 'pocketledger', 'pocket ledger review'],
    head: [
      ['budget app iphone', 140, 8.4],
      ['bill reminder app', 95, 5.2],
      ['best budgeting app', 410, 17.8],
      ['envelope budgeting app', 60, 6.9],
      ['ynab alternative', 85, 9.6],
      ['expense tracker ios', 70, 11.3],
      ['subscription tracker app', 55, 7.7],
      ['how to budget monthly bills', 120, 14.2],
      ['budget planner', 300, 32.5],
    ],
    tail: { stems: ['budget app', 'bill tracker', 'expense tracker', 'spending tracker'], modifiers: ['for couples', 'free', 'uk', 'without bank sync', 'with widgets', 'for students'] },
  },
  'sc-domain:formfox.io': {
    brand: ['formfox', 'formfox login', 'formfox forms', 'formfox pricing'],
    head: [
      ['form builder', 900, 24.1],
      ['typeform alternative', 210, 6.3],
      ['google forms alternative', 330, 9.8],
      ['free form builder', 420, 15.6],
      ['contact form html', 250, 19.4],
      ['form to email', 140, 7.1],
      ['conditional logic form', 75, 5.8],
      ['webhook form submission', 45, 3.9],
      ['survey maker', 600, 28.7],
    ],
    tail: { stems: ['online form builder', 'form backend', 'order form', 'registration form'], modifiers: ['free', 'with file upload', 'for static site', 'gdpr', 'with payments', 'template'] },
  },
  'https://tideline.app/': {
    brand: ['tideline', 'tideline app', 'tideline tides', 'tideline android'],
    head: [
      ['tide times', 2400, 21.3],
      ['tide chart', 880, 12.6],
      ['high tide today', 1300, 16.9],
      ['tide table app', 160, 4.4],
      ['moon phases calendar', 500, 26.2],
      ['spring tides', 210, 9.1],
      ['tide times brighton', 190, 6.2],
      ['best tide app for fishing', 90, 3.6],
      ['surf tide forecast', 260, 13.8],
    ],
    tail: { stems: ['tide times', 'tide chart', 'low tide'], modifiers: ['whitstable', 'cornwall', 'today', 'this weekend', 'st ives', 'holy island', 'weston-super-mare'] },
  },
};

function profilesOf(siteUrl: string): QueryProfile[] {
  const site = catalogue[siteUrl];
  if (!site) return [];
  const random = seededRandom(`google:${siteUrl}`);
  const brand = site.brand.map((query, i) => ({ query, daily: Math.round((i === 0 ? 120 : 18 / i) * (0.8 + random() * 0.4)) + 2, position: 1 + i * 0.4 + random() * 0.3, brand: true }));
  const head = site.head.map(([query, daily, position]) => ({ query, daily, position, brand: false }));
  const tail = site.tail.stems.flatMap((stem) =>
    site.tail.modifiers.map((modifier) => ({ query: `${stem} ${modifier}`, daily: 1 + Math.round(random() * 12), position: 4 + random() * 40, brand: false })),
  );
  return [...brand, ...head, ...tail];
}

interface Row {
  keys?: string[];
  clicks: number;
  impressions: number;
  ctr: number;
  position: number;
}

/** Impression-weighted, as Google aggregates a property's position. */
function total(rows: Row[]): Row {
  const clicks = rows.reduce((sum, row) => sum + row.clicks, 0);
  const impressions = rows.reduce((sum, row) => sum + row.impressions, 0);
  const weighted = rows.reduce((sum, row) => sum + row.position * row.impressions, 0);
  return { clicks, impressions, ctr: impressions ? clicks / impressions : 0, position: impressions ? weighted / impressions : 0 };
}

const isDate = (value: unknown): value is string => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));

/**
 * Google Search Console (`/webmasters/v3/...`) and Google's OAuth token endpoint (`POST /token`) on
 * one server: the connector refreshes at `${baseUrl}/token` whenever its base URL is not Google's.
 * Credentials: `sandboxGoogle` in demo.ts; see REVOKED_REFRESH_TOKEN_PREFIX for a revoked one.
 */
export function googleService(now: number): SandboxService {
  const dataSince = pacificDayMs(now) - HISTORY_DAYS * DAY_MS;
  const sites = new Map(demoProducts.map((product) => [product.seo.siteUrl as string, profilesOf(product.seo.siteUrl)]));
  // Queries Google keeps private (anonymised): in the property's totals, never in the per-query rows.
  const anonymised = new Map([...sites.keys()].map((site) => [site, seededRandom(`google:anon:${site}`)() * 0.1 + 0.12]));
  /** A property's day at today's size: its queries' steady numbers and the anonymised ones, as the totals count them. */
  const daily = new Map(
    [...sites.entries()].map(([site, profiles]) => {
      const named = total(profiles.map((p) => ({ clicks: p.daily * ctrAt(p.position, p.brand), impressions: p.daily, ctr: 0, position: p.position })));
      const share = anonymised.get(site) ?? 0.15;
      return [site, total([named, { clicks: named.clicks * share, impressions: named.impressions * share * 2, ctr: 0, position: 34.2 }])];
    }),
  );

  /** The per-query rows for a date range: each query's daily numbers times the days that have final data. */
  function queryRows(siteUrl: string, startDate: string, endDate: string, at: number): Row[] {
    const last = pacificDayMs(at) - LAG_DAYS * DAY_MS;
    const first = Math.max(Date.parse(startDate), dataSince);
    const days = Math.max(0, Math.floor((Math.min(Date.parse(endDate), last) - first) / DAY_MS) + 1);
    const random = seededRandom(`google:${siteUrl}:${startDate}:${endDate}`);
    return (sites.get(siteUrl) ?? [])
      .map((profile) => {
        const impressions = Math.round(profile.daily * days * (0.85 + random() * 0.3));
        const position = Math.max(1, profile.position * (0.95 + random() * 0.1));
        const clicks = Math.round(impressions * ctrAt(position, profile.brand) * (0.8 + random() * 0.4));
        return { keys: [profile.query], clicks, impressions, ctr: impressions ? clicks / impressions : 0, position };
      })
      .filter((row) => row.impressions > 0)
      .sort((a, b) => b.clicks - a.clicks || b.impressions - a.impressions);
  }

  /**
   * The property's rows by date, oldest first, as Google sorts a `date` grouping: each day its own clicks,
   * impressions, ctr and position, from the day the property was added. The property has grown into today's size
   * (the per-query rows' steady numbers), with a weekly rhythm; one day of Pocket Ledger's has no data at all,
   * and Google leaves it out. Final data ends two days back; `all` adds the fresh days, today's still filling in.
   */
  function dateRows(siteUrl: string, startDate: string, endDate: string, at: number, fresh: boolean): Row[] {
    const today = pacificDayMs(at);
    const last = fresh ? today : today - LAG_DAYS * DAY_MS;
    const size = daily.get(siteUrl);
    if (!size) return [];
    const rows: Row[] = [];
    for (let day = Math.max(Date.parse(startDate), dataSince); day <= Math.min(Date.parse(endDate), last); day += DAY_MS) {
      const date = new Date(day).toISOString().slice(0, 10);
      if (siteUrl === 'https://pocketledger.app/' && day === today - NO_DATA_DAYS_AGO * DAY_MS) continue;
      const random = seededRandom(`google:${siteUrl}:${date}`);
      const grown = 0.55 + 0.45 * ((day - dataSince) / (HISTORY_DAYS * DAY_MS));
      const filling = day === today ? 0.3 : 1;
      const factor = grown * (WEEKLY[new Date(day).getUTCDay()] ?? 1) * (0.88 + random() * 0.24) * filling;
      const impressions = Math.max(1, Math.round(size.impressions * factor));
      const clicks = Math.min(impressions, Math.round(size.clicks * factor * (0.85 + random() * 0.3)));
      rows.push({ keys: [date], clicks, impressions, ctr: clicks / impressions, position: size.position * (0.96 + random() * 0.08) + (1 - grown) * 4 });
    }
    return rows;
  }

  // The web-server flow (consent page at /o/oauth2/v2/auth, codes at /token) for the demo client.
  const oauth = fakeOAuth({
    label: 'Google',
    clients: [{ clientId: sandboxGoogle.clientId, clientSecret: sandboxGoogle.clientSecret }],
    error: (status, code, description) => oauthError(code === 'invalid_client' ? 401 : status, code, description),
    accessToken: () => `ya29.a0${randomBytes(60).toString('base64url')}`,
    refreshToken: () => `1//0${randomBytes(48).toString('base64url')}`,
    accessMs: TOKEN_LIFETIME_MS,
    refreshOnCode: (_client, authorize) => authorize.get('access_type') === 'offline',
    extras: (client, scope, now) => ({
      token_type: 'Bearer',
      ...(scope.split(' ').includes('openid') ? { id_token: idToken(client.clientId, now) } : {}),
    }),
    account: sandboxGoogleAccount,
    refusals: { code: 'invalid_grant', refresh: 'invalid_grant', refreshDescription: 'Token has been expired or revoked.' },
    wrongClient: { unknown: 'The OAuth client was not found.', secret: 'Unauthorized' },
    // The demo's refresh token, and one gcloud minted without Search Console's scope (issued tokens the API refuses).
    seeded: [
      { clientId: sandboxGoogle.clientId, refreshToken: sandboxGoogle.refreshToken, scope: 'https://www.googleapis.com/auth/webmasters.readonly' },
      { clientId: sandboxGoogle.clientId, refreshToken: NARROW_REFRESH_TOKEN, scope: NARROW_SCOPES },
    ],
  });

  function token(request: SandboxRequest): SandboxReply {
    if (!/application\/x-www-form-urlencoded/.test(request.headers['content-type'] ?? '')) {
      return oauthError(400, 'invalid_request', 'Invalid request: body must be application/x-www-form-urlencoded');
    }
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    if (form.grant_type === 'refresh_token' && form.refresh_token?.startsWith(REVOKED_REFRESH_TOKEN_PREFIX)) {
      return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.');
    }
    return oauth.token(request);
  }

  function searchAnalytics(request: SandboxRequest): SandboxReply {
    const siteUrl = request.params.siteUrl ?? '';
    if (!sites.has(siteUrl)) {
      return apiError(403, 'PERMISSION_DENIED', `User does not have sufficient permission for site '${siteUrl}'. See also: https://support.google.com/webmasters/answer/2451999.`, 'forbidden');
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    const { startDate, endDate } = body;
    if (!isDate(startDate) || !isDate(endDate)) return apiError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'badRequest');
    if (startDate > endDate) return apiError(400, 'INVALID_ARGUMENT', 'startDate must be earlier than or equal to endDate.', 'badRequest');
    const dimensions = Array.isArray(body.dimensions) ? (body.dimensions as unknown[]) : [];
    const rowLimit = body.rowLimit === undefined ? 1000 : Number(body.rowLimit);
    const startRow = body.startRow === undefined ? 0 : Number(body.startRow);
    if (!Number.isInteger(rowLimit) || rowLimit < 1 || rowLimit > 25_000 || !Number.isInteger(startRow) || startRow < 0) {
      return apiError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'badRequest');
    }
    const rows = queryRows(siteUrl, startDate, endDate, request.now);
    if (dimensions.length === 0) {
      const named = total(rows);
      if (named.impressions === 0) return { body: { responseAggregationType: 'byProperty' } };
      const share = anonymised.get(siteUrl) ?? 0.15;
      // Anonymised queries rank lower and click less than the named ones.
      const hidden = { clicks: Math.round(named.clicks * share), impressions: Math.round(named.impressions * share * 2), ctr: 0, position: 34.2 };
      return { body: { rows: [total([...rows, hidden])], responseAggregationType: 'byProperty' } };
    }
    // The widget asks by query, the history by date; the sandbox does not model page, country or device rows.
    if (dimensions.length !== 1 || (dimensions[0] !== 'query' && dimensions[0] !== 'date')) {
      return apiError(400, 'INVALID_ARGUMENT', 'The sandbox answers searchAnalytics.query by query, by date or without dimensions only.', 'badRequest');
    }
    const dataState = typeof body.dataState === 'string' ? body.dataState.toLowerCase() : 'final';
    if (dataState !== 'final' && dataState !== 'all') return apiError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'badRequest');
    const page = (dimensions[0] === 'date' ? dateRows(siteUrl, startDate, endDate, request.now, dataState === 'all') : rows).slice(startRow, startRow + rowLimit);
    return { body: page.length > 0 ? { rows: page, responseAggregationType: 'byProperty' } : { responseAggregationType: 'byProperty' } };
  }

  return {
    name: 'google',
    oauth,
    // The real API root is https://www.googleapis.com: paths start at /webmasters/v3.
    basePath: '',
    authorize(request) {
      if (request.path === '/token' || request.path === AUTHORIZE_PATH) return true;
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      return token !== undefined && oauth.accepts(token, request.now, (granted) => granted.some((scope) => scope.startsWith('https://www.googleapis.com/auth/webmasters')));
    },
    unauthorized: () => ({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
      body: {
        error: {
          code: 401,
          message: UNAUTHENTICATED,
          errors: [{ message: 'Invalid Credentials', domain: 'global', reason: 'authError', location: 'Authorization', locationType: 'header' }],
          status: 'UNAUTHENTICATED',
        },
      },
    }),
    // Search Analytics: 1,200 queries a minute per site and per user. Google's 429 carries no Retry-After.
    rateLimit: {
      limit: 1200,
      windowMs: MINUTE,
      tooMany: () =>
        apiError(
          429,
          'RESOURCE_EXHAUSTED',
          "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'searchconsole.googleapis.com' for consumer 'project_number:123456789012'.",
          'rateLimitExceeded',
        ),
    },
    routes: [
      { method: 'GET', path: AUTHORIZE_PATH, handle: oauth.authorizePage },
      { method: 'POST', path: '/token', handle: token },
      {
        method: 'GET',
        path: '/webmasters/v3/sites',
        handle: () => ({
          body: {
            siteEntry: [
              ...[...sites.keys()].map((siteUrl) => ({ siteUrl, permissionLevel: 'siteOwner' })),
              { siteUrl: 'https://old-blog.example.com/', permissionLevel: 'siteUnverifiedUser' },
            ],
          },
        }),
      },
      { method: 'POST', path: '/webmasters/v3/sites/:siteUrl/searchAnalytics/query', handle: searchAnalytics },
    ],
  };
}
