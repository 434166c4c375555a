// The installable app's offline part: precache a version's public files, drop an old version's cache, and answer a
// page that cannot be fetched with the offline page. Which requests it answers at all is routeOf's decision.
import { CACHE_PREFIX, OFFLINE_PAGE, UNREACHABLE_STATUSES, precacheName, routeOf } from '$lib/app-cache';

/** Fetches and keeps this version's files; the install fails (and the old worker stays) if one cannot be had. */
export async function install(version: string, assets: readonly string[]): Promise<void> {
  const cache = await caches.open(precacheName(version));
  await cache.addAll([...assets]);
}

/** Deletes every cache of the worker's but this version's own: an old version's, or one a later change left. */
export async function activate(version: string): Promise<void> {
  const current = precacheName(version);
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== current).map((name) => caches.delete(name)));
}

/** After sign-out: every cache but this version's, whatever its name and whoever made it (services/app-cache.ts). */
export async function forgetSignedIn(version: string): Promise<void> {
  const current = precacheName(version);
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name !== current).map((name) => caches.delete(name)));
}

/** Answers a fetch the worker takes on (routeOf); returns without a word for every other, which the browser then makes. */
export function answer(event: FetchEvent, version: string, assets: ReadonlySet<string>, origin: string): void {
  const { request } = event;
  const route = routeOf({ method: request.method, url: request.url, mode: request.mode, accept: request.headers.get('accept') }, origin, assets);
  if (route === 'precache') event.respondWith(fromPrecache(request, version));
  else if (route === 'page') event.respondWith(pageOrOffline(request, version));
}

async function fromPrecache(request: Request, version: string): Promise<Response> {
  const cache = await caches.open(precacheName(version));
  return (await cache.match(request)) ?? fetch(request);
}

/**
 * The page from the network, never from a cache and never put in one; the offline page when the network fails, or when
 * a reverse proxy says the dashboard behind it is down.
 */
async function pageOrOffline(request: Request, version: string): Promise<Response> {
  let response: Response | undefined;
  try {
    response = await fetch(request);
    if (!UNREACHABLE_STATUSES.has(response.status)) return response;
  } catch {
    response = undefined;
  }
  const offline = await (await caches.open(precacheName(version))).match(OFFLINE_PAGE);
  return offline ?? response ?? Response.error();
}
