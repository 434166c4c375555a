// The pages' side of the service worker's caches: when the dashboard's data was last seen, and what sign-out forgets.
import { version } from '$app/environment';
import { LAST_SEEN_KEY, SIGNED_OUT_MESSAGE, precacheName } from '$lib/app-cache';

/** Notes that a page just came with the dashboard's data, for the offline page's "last seen". */
export function recordLastSeen(now = new Date()): void {
  try {
    localStorage.setItem(LAST_SEEN_KEY, now.toISOString());
  } catch {
    // Storage can be blocked; the offline page then says it does not know.
  }
}

/**
 * What sign-out leaves behind, gone: the "last seen" time and every cache but this version's precache, which holds only
 * the public files every visitor gets before signing in (the app's scripts and styles, the icons, the offline page).
 * The worker never puts an API answer or a page in a cache; this also drops whatever an older version or a later
 * change may have put anywhere else. Run by the sign-in page, where every way out of a session ends: "Sign out", "Sign
 * out everywhere", and a session that expired or was ended from another device.
 */
export async function forgetSignedIn(): Promise<void> {
  try {
    localStorage.removeItem(LAST_SEEN_KEY);
  } catch {
    // Nothing could be stored either.
  }
  // The worker deletes them too, in its own time: the sign-in page is often left at once (a session that ended
  // elsewhere reloads it), and this page's own deletion may then never finish.
  navigator.serviceWorker?.controller?.postMessage(SIGNED_OUT_MESSAGE);
  if (typeof caches === 'undefined') return;
  const keep = precacheName(version);
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name !== keep).map((name) => caches.delete(name)));
}
