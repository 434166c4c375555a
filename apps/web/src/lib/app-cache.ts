// What the service worker keeps, and which requests it answers: shared by the worker (src/service-worker) and the
// pages (services/app-cache.ts), and pure, so a unit test can hold the rules.

/** Every cache the worker makes starts with this; the version's name follows. */
export const CACHE_PREFIX = 'dashboard-';

/** The one cache of a build: its own files and the static ones, all public (served without signing in). */
export const precacheName = (version: string) => `${CACHE_PREFIX}${version}`;

/**
 * What a page tells the worker when it sees that no one is signed in (the sign-in page): the worker then deletes every
 * cache but its version's public one, in its own time, which a page that is being left would not have.
 */
export const SIGNED_OUT_MESSAGE = 'dashboard:signed-out';

/** The page shown in place of any page when the dashboard cannot be reached (static/offline.html and its two files). */
export const OFFLINE_PAGE = '/offline.html';

/**
 * Where the pages note when they last had the dashboard's data (an ISO time, nothing else); the offline page reads it
 * (static/offline.js spells the same key). Sign-out removes it.
 */
export const LAST_SEEN_KEY = 'dashboard:last-seen';

/**
 * What the worker precaches: the build's files and the static ones, except the API reference's 4.8 MB script bundle
 * (Scalar's standalone build, imported by /api/docs as a URL), which only that page loads and which is of no use
 * without the network the page needs anyway.
 */
export function precacheList(build: readonly string[], files: readonly string[]): string[] {
  return [...build, ...files].filter((path) => !/\/_app\/immutable\/assets\/standalone\.[^/]+\.js$/.test(path));
}

/** A gateway's answer when the dashboard behind it is down (a reverse proxy that could not reach it, or gave up). */
export const UNREACHABLE_STATUSES: ReadonlySet<number> = new Set([502, 504]);

export interface SeenRequest {
  method: string;
  url: string;
  mode: RequestMode;
  /** The Accept header, or null. */
  accept: string | null;
}

/**
 * How the worker answers a request, or undefined when it leaves it to the browser (it calls no respondWith):
 * - `precache`: one of this build's precached files, from the cache (the network if it is missing);
 * - `page`: a GET navigation to a page, from the network, and the offline page when the network fails.
 * Everything else goes straight to the network as if there were no worker: the API and tRPC (their answers are never
 * cached), the live stream, every non-GET (signing in and out, form actions), other origins, and any other same-origin
 * GET. A request the worker answers is out of sight of the page's own request hooks (and of a test's), so it answers
 * as few as it can.
 */
export function routeOf(request: SeenRequest, origin: string, precached: ReadonlySet<string>): 'precache' | 'page' | undefined {
  if (request.method !== 'GET') return undefined;
  const url = new URL(request.url);
  if (url.origin !== origin) return undefined;
  const path = url.pathname;
  if (path === '/api' || path.startsWith('/api/')) return undefined;
  if (request.accept?.includes('text/event-stream')) return undefined;
  if (url.search === '' && precached.has(path)) return 'precache';
  if (request.mode === 'navigate') return 'page';
  return undefined;
}
