import { createPublicKey, verify } from 'node:crypto';
import { DAY_MS, demoProducts, hexId, seededRandom } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';
import { sandboxAppStoreKey } from './keys.ts';
import { nicknames, reviewPools, territories, type ReviewPool } from './reviews.ts';

const HOUR_MS = 3_600_000;
/** Apple turns away tokens that expire more than 20 minutes after now. */
const MAX_TOKEN_LIFETIME_S = 20 * 60;
const MAX_LIMIT = 200;

/** A stable UUID-shaped id from a seed, as Apple's error and version ids are. */
const uuid = (seed: string) => `${hexId(`${seed}:a`, 8)}-${hexId(`${seed}:b`, 4)}-4${hexId(`${seed}:c`, 3)}-a${hexId(`${seed}:d`, 3)}-${hexId(`${seed}:e`, 12)}`;

/** Apple's error document: a list of errors, each with an id, status, code, title and detail. */
const appleError = (status: number, code: string, title: string, detail: string): SandboxReply => ({
  status,
  body: { errors: [{ id: uuid(`${code}:${detail}`), status: String(status), code, title, detail }] },
});

const notAuthorized = () =>
  appleError(
    401,
    'NOT_AUTHORIZED',
    'Authentication credentials are missing or invalid.',
    'Provide a properly configured and signed bearer token, and make sure that it has not expired. Learn more about Generating Tokens for API Requests https://developer.apple.com/go/?id=api-generating-tokens',
  );

const notFound = (type: string, id: string) => appleError(404, 'NOT_FOUND', 'The specified resource does not exist', `There is no resource of type '${type}' with id '${id}'`);

const publicKey = createPublicKey(sandboxAppStoreKey.publicKey);

const decodeJson = (part: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Checks a bearer token as Apple does: an ES256 JWT (raw R||S signature) by the sandbox key's id,
 * issued by its issuer for `appstoreconnect-v1`, not expired and expiring at most 20 minutes from now.
 */
export function verifyAppStoreToken(authorization: string | undefined, now: number): boolean {
  const match = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(authorization ?? '');
  if (!match) return false;
  const [, head = '', body = '', signature = ''] = match;
  const header = decodeJson(head);
  const claims = decodeJson(body);
  if (!header || !claims) return false;
  if (header.alg !== 'ES256' || header.kid !== sandboxAppStoreKey.keyId || (header.typ !== undefined && header.typ !== 'JWT')) return false;
  const raw = Buffer.from(signature, 'base64url');
  if (raw.length !== 64 || !verify('sha256', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw)) return false;
  const { iss, aud, exp, iat } = claims;
  const nowS = now / 1000;
  if (iss !== sandboxAppStoreKey.issuerId || aud !== 'appstoreconnect-v1') return false;
  if (typeof exp !== 'number' || exp <= nowS || exp - nowS > MAX_TOKEN_LIFETIME_S) return false;
  return iat === undefined || typeof iat === 'number';
}

const pacificFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'longOffset',
});

/** Apple's dates are in Cupertino's local time with its offset: `2026-04-30T09:28:28-07:00`. */
export function appleDate(ms: number): string {
  const parts = Object.fromEntries(pacificFormat.formatToParts(ms).map((part) => [part.type, part.value]));
  const offset = (parts.timeZoneName ?? 'GMT').replace('GMT', '') || '+00:00';
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

interface Resource {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, unknown>;
  links: { self: string };
}

/** Apple's cursors are opaque; these are base64 of the offset, as Apple's often are. */
const cursorOf = (offset: number) => Buffer.from(JSON.stringify({ offset: String(offset) })).toString('base64url');
const offsetOf = (cursor: string | null) => {
  if (!cursor) return 0;
  try {
    const value = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset?: unknown }).offset;
    return Math.max(0, Number(value) || 0);
  } catch {
    return 0;
  }
};

/** Sparse fieldsets: `fields[apps]=name,bundleId` keeps only those attributes and relationships. */
function sparse(resource: Resource, fields: string | null): Resource {
  if (!fields) return resource;
  const wanted = new Set(fields.split(','));
  const pick = (record: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(record ?? {}).filter(([name]) => wanted.has(name)));
  const relationships = pick(resource.relationships);
  return { ...resource, attributes: pick(resource.attributes), ...(Object.keys(relationships).length > 0 ? { relationships } : {}) };
}

const urlOf = (request: SandboxRequest, changes: Record<string, string | undefined> = {}) => {
  const url = new URL(request.path, request.origin);
  for (const [name, value] of request.query) url.searchParams.set(name, value);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) url.searchParams.delete(name);
    else url.searchParams.set(name, value);
  }
  return url.toString();
};

/** A JSON:API list page as Apple sends it: `links.self`, `links.next` with a cursor, `meta.paging`. */
function page(request: SandboxRequest, type: string, items: Resource[], defaultLimit: number): SandboxReply {
  const asked = request.query.get('limit');
  const limit = asked === null ? defaultLimit : Number(asked);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return {
      status: 400,
      body: {
        errors: [
          {
            id: uuid(`limit:${asked}`),
            status: '400',
            code: 'PARAMETER_ERROR.INVALID',
            title: 'A parameter has an invalid value',
            detail: `'${asked}' is not a valid value for the parameter 'limit'. The maximum value is ${MAX_LIMIT}.`,
            source: { parameter: 'limit' },
          },
        ],
      },
    };
  }
  const offset = offsetOf(request.query.get('cursor'));
  const fields = request.query.get(`fields[${type}]`);
  const data = items.slice(offset, offset + limit).map((item) => sparse(item, fields));
  const next = offset + limit < items.length ? urlOf(request, { cursor: cursorOf(offset + limit), limit: String(limit) }) : undefined;
  return {
    body: {
      data,
      links: { self: urlOf(request), ...(next ? { next } : {}) },
      meta: { paging: { total: items.length, limit } },
    },
  };
}

type Rating = 1 | 2 | 3 | 4 | 5;

function pickWeighted<T>(random: () => number, weighted: [T, number][]): T {
  const total = weighted.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * total;
  for (const [value, weight] of weighted) {
    roll -= weight;
    if (roll < 0) return value;
  }
  return (weighted.at(-1) as [T, number])[0];
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** An id in the shape of Apple's review ids: `00000028-b08c-0014-729e-fbd500000000`. */
const reviewId = (seed: string) => `000000${hexId(seed, 2)}-${hexId(`${seed}b`, 4)}-00${hexId(`${seed}c`, 2)}-${hexId(`${seed}d`, 4)}-${hexId(`${seed}e`, 6)}000000`;

function reviewsOf(origin: string, slug: 'pocket-ledger' | 'tideline', appId: string, count: number, now: number, pool: ReviewPool): Resource[] {
  const random = seededRandom(`appstoreconnect:reviews:${slug}`);
  const reviews = Array.from({ length: count }, (_, i) => {
    const territory = pickWeighted(random, territories);
    const ago = Math.pow(random(), 1.4) * 150 * DAY_MS + random() * DAY_MS;
    // Pocket Ledger's 2.3.0 (about five weeks ago) broke sync: that week's reviews are angrier.
    const afterBadRelease = slug === 'pocket-ledger' && ago > 28 * DAY_MS && ago < 36 * DAY_MS;
    const rating = pickWeighted<Rating>(random, afterBadRelease ? [[5, 30], [4, 15], [3, 5], [2, 20], [1, 30]] : [[5, 58], [4, 22], [3, 8], [2, 5], [1, 7]]);
    let title = pick(random, pool.titles[rating]);
    let body = pick(random, pool.bodies[rating]);
    // Most German customers write in German: the German review of the same rating, when there is one.
    const german = pool.german.filter((review) => review.rating === rating);
    if (territory === 'DEU' && german.length > 0 && random() < 0.7) ({ title, body } = pick(random, german));
    const id = reviewId(`${appId}:${i}`);
    const self = `${origin}/v1/customerReviews/${id}`;
    return {
      at: now - ago,
      resource: {
        type: 'customerReviews',
        id,
        attributes: { rating, title, body, reviewerNickname: pick(random, nicknames), createdDate: appleDate(now - ago), territory },
        relationships: { response: { links: { self: `${self}/relationships/response`, related: `${self}/response` } } },
        links: { self },
      },
    };
  });
  return reviews.sort((a, b) => b.at - a.at).map((review) => review.resource);
}

type VersionState = 'READY_FOR_DISTRIBUTION' | 'IN_REVIEW' | 'PREPARE_FOR_SUBMISSION' | 'REPLACED_WITH_NEW_VERSION';
/** The older `appStoreState` beside the newer `appVersionState`: Apple still sends both. */
const oldState: Record<VersionState, string> = {
  READY_FOR_DISTRIBUTION: 'READY_FOR_SALE',
  IN_REVIEW: 'IN_REVIEW',
  PREPARE_FOR_SUBMISSION: 'PREPARE_FOR_SUBMISSION',
  REPLACED_WITH_NEW_VERSION: 'REPLACED_WITH_NEW_VERSION',
};

function versionsOf(origin: string, appId: string, now: number, list: [string, VersionState, number][]): Resource[] {
  return list.map(([versionString, state, daysAgo]) => {
    const id = uuid(`${appId}:${versionString}`);
    const self = `${origin}/v1/appStoreVersions/${id}`;
    const rel = (name: string) => ({ links: { self: `${self}/relationships/${name}`, related: `${self}/${name}` } });
    return {
      type: 'appStoreVersions',
      id,
      // Unset attributes (earliestReleaseDate…) are left out: Apple's description types them as strings, never null.
      attributes: {
        platform: 'IOS',
        versionString,
        appStoreState: oldState[state],
        appVersionState: state,
        copyright: `${new Date(now - daysAgo * DAY_MS).getUTCFullYear()} Demo Founder Ltd`,
        reviewType: 'APP_STORE',
        releaseType: state === 'PREPARE_FOR_SUBMISSION' ? 'MANUAL' : 'AFTER_APPROVAL',
        usesIdfa: false,
        downloadable: state === 'READY_FOR_DISTRIBUTION' || state === 'REPLACED_WITH_NEW_VERSION',
        createdDate: appleDate(now - daysAgo * DAY_MS - ((daysAgo * 7919) % 36_000) * 1000),
      },
      relationships: { app: rel('app'), build: rel('build'), appStoreVersionLocalizations: rel('appStoreVersionLocalizations'), appStoreReviewDetail: rel('appStoreReviewDetail') },
      links: { self },
    };
  });
}

/**
 * App Store Connect (`/v1/apps`, an app's customer reviews and App Store versions) for the demo
 * products sold on the App Store, signed in with a real ES256 JWT checked against the sandbox key.
 */
export function appstoreconnectService(now: number): SandboxService {
  // Links are absolute; the origin is known per request, so the data is built on first use.
  const built = new Map<string, ReturnType<typeof build>>();
  const dataFor = (origin: string) => {
    let data = built.get(origin);
    if (!data) built.set(origin, (data = build(origin)));
    return data;
  };

  function build(origin: string) {
    const stores = demoProducts.flatMap((product) => (product.storefront ? [{ slug: product.slug, ...product.storefront }] : []));
    const app = (appId: string, name: string, bundleId: string, sku: string): Resource => {
      const self = `${origin}/v1/apps/${appId}`;
      const rel = (relation: string) => ({ links: { self: `${self}/relationships/${relation}`, related: `${self}/${relation}` } });
      return {
        type: 'apps',
        id: appId,
        // No subscription status URLs set: left out, as the description types them as URLs, never null.
        attributes: {
          name,
          bundleId,
          sku,
          primaryLocale: 'en-US',
          isOrEverWasMadeForKids: false,
          contentRightsDeclaration: 'DOES_NOT_USE_THIRD_PARTY_CONTENT',
          streamlinedPurchasingEnabled: true,
        },
        relationships: { appStoreVersions: rel('appStoreVersions'), customerReviews: rel('customerReviews'), builds: rel('builds') },
        links: { self },
      };
    };
    const apps = [
      ...stores.map((store) => app(store.appId, store.name, store.bundleId, store.slug.toUpperCase().replace('-', '') + '1')),
      // An app of the same account the dashboard does not show: the listing has more than one page.
      app('1499023861', 'Pocket Ledger Classic', 'app.pocketledger.classic', 'PKTCLASSIC'),
    ];
    const reviews = new Map<string, Resource[]>([
      ['1588431207', reviewsOf(origin, 'pocket-ledger', '1588431207', 64, now, reviewPools['pocket-ledger'])],
      ['1602277354', reviewsOf(origin, 'tideline', '1602277354', 47, now, reviewPools.tideline)],
      ['1499023861', []],
    ]);
    const versions = new Map<string, Resource[]>([
      [
        '1588431207',
        versionsOf(origin, '1588431207', now, [
          ['2.4.0', 'PREPARE_FOR_SUBMISSION', 3],
          ['2.3.1', 'READY_FOR_DISTRIBUTION', 27],
          ['2.3.0', 'REPLACED_WITH_NEW_VERSION', 36],
          ['2.2.2', 'REPLACED_WITH_NEW_VERSION', 71],
          ['2.2.0', 'REPLACED_WITH_NEW_VERSION', 98],
          ['2.1.0', 'REPLACED_WITH_NEW_VERSION', 142],
          ['2.0.0', 'REPLACED_WITH_NEW_VERSION', 201],
          ['1.9.3', 'REPLACED_WITH_NEW_VERSION', 260],
        ]),
      ],
      [
        '1602277354',
        // Fourteen versions: more than the ten a page the dashboard asks for.
        versionsOf(origin, '1602277354', now, [
          ['3.8.0', 'IN_REVIEW', 1],
          ['3.7.2', 'READY_FOR_DISTRIBUTION', 12],
          ['3.7.1', 'REPLACED_WITH_NEW_VERSION', 33],
          ['3.7.0', 'REPLACED_WITH_NEW_VERSION', 47],
          ['3.6.0', 'REPLACED_WITH_NEW_VERSION', 80],
          ['3.5.1', 'REPLACED_WITH_NEW_VERSION', 104],
          ['3.5.0', 'REPLACED_WITH_NEW_VERSION', 121],
          ['3.4.0', 'REPLACED_WITH_NEW_VERSION', 166],
          ['3.3.0', 'REPLACED_WITH_NEW_VERSION', 210],
          ['3.2.0', 'REPLACED_WITH_NEW_VERSION', 255],
          ['3.1.0', 'REPLACED_WITH_NEW_VERSION', 301],
          ['3.0.0', 'REPLACED_WITH_NEW_VERSION', 349],
          ['2.9.1', 'REPLACED_WITH_NEW_VERSION', 402],
          ['2.9.0', 'REPLACED_WITH_NEW_VERSION', 431],
        ]),
      ],
      ['1499023861', versionsOf(origin, '1499023861', now, [['1.4.2', 'READY_FOR_DISTRIBUTION', 900]])],
    ]);
    return { apps, reviews, versions };
  }

  const attribute = (resource: Resource, name: string) => {
    const value = resource.attributes[name];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  };

  return {
    name: 'appstoreconnect',
    basePath: '',
    authorize: (request) => verifyAppStoreToken(request.headers.authorization, request.now),
    unauthorized: notAuthorized,
    // A rolling hour per API key, told in `X-Rate-Limit` on every answer; Apple sends no Retry-After.
    rateLimit: {
      limit: 3500,
      windowMs: HOUR_MS,
      headers: ({ limit, used }) => ({ 'x-rate-limit': `user-hour-lim:${limit};user-hour-rem:${Math.max(0, limit - used)};` }),
      tooMany: () =>
        appleError(
          429,
          'RATE_LIMIT_EXCEEDED',
          'The request rate limit has been reached.',
          "We've received too many requests for this API. Please wait and try again or slow down your request rate.",
        ),
    },
    routes: [
      {
        method: 'GET',
        path: '/v1/apps',
        handle: (request) => {
          const bundleIds = request.query.get('filter[bundleId]')?.split(',');
          const apps = dataFor(request.origin).apps.filter((app) => !bundleIds || bundleIds.includes(attribute(app, 'bundleId')));
          return page(request, 'apps', apps, 50);
        },
      },
      {
        method: 'GET',
        path: '/v1/apps/:id',
        handle: (request) => {
          const app = dataFor(request.origin).apps.find((candidate) => candidate.id === request.params.id);
          if (!app) return notFound('apps', request.params.id ?? '');
          return { body: { data: sparse(app, request.query.get('fields[apps]')), links: { self: urlOf(request) } } };
        },
      },
      {
        method: 'GET',
        path: '/v1/apps/:id/customerReviews',
        handle: (request) => {
          const all = dataFor(request.origin).reviews.get(request.params.id ?? '');
          if (!all) return notFound('apps', request.params.id ?? '');
          const ratings = request.query.get('filter[rating]')?.split(',');
          const territory = request.query.get('filter[territory]')?.split(',');
          let reviews = all.filter((r) => (!ratings || ratings.includes(attribute(r, 'rating'))) && (!territory || territory.includes(attribute(r, 'territory'))));
          const sort = request.query.get('sort');
          // Held newest first; `sort=createdDate` asks for the oldest first.
          if (sort === 'createdDate') reviews = [...reviews].reverse();
          else if (sort !== null && sort !== '-createdDate' && sort !== 'rating' && sort !== '-rating') {
            return appleError(400, 'PARAMETER_ERROR.INVALID', 'A parameter has an invalid value', `'${sort}' is not a valid field name`);
          }
          if (sort === 'rating' || sort === '-rating') {
            const sign = sort === 'rating' ? 1 : -1;
            reviews = [...reviews].sort((a, b) => sign * (Number(a.attributes.rating) - Number(b.attributes.rating)));
          }
          return page(request, 'customerReviews', reviews, 50);
        },
      },
      {
        method: 'GET',
        path: '/v1/apps/:id/appStoreVersions',
        handle: (request) => {
          const all = dataFor(request.origin).versions.get(request.params.id ?? '');
          if (!all) return notFound('apps', request.params.id ?? '');
          const states = request.query.get('filter[appVersionState]')?.split(',');
          const platforms = request.query.get('filter[platform]')?.split(',');
          const versions = all.filter((v) => (!states || states.includes(attribute(v, 'appVersionState'))) && (!platforms || platforms.includes(attribute(v, 'platform'))));
          return page(request, 'appStoreVersions', versions, 50);
        },
      },
    ],
  };
}
