import type { Cookies } from '@sveltejs/kit';

type CookieOptions = Parameters<Cookies['set']>[2];

/**
 * An httpOnly cookie's options on `path`, `Secure` exactly when the origin is https (set explicitly: SvelteKit's
 * default would mark it Secure on plain http to 127.0.0.1 or a LAN address, where the browser then drops it).
 */
function httpOnly(origin: string, path: string, sameSite: 'lax' | 'strict') {
  const secure = origin.startsWith('https:');
  return { secure, options: (maxAgeSeconds: number): CookieOptions => ({ path, httpOnly: true, sameSite, secure, maxAge: maxAgeSeconds }) };
}

/**
 * The session cookie for the dashboard's origin: `HttpOnly; SameSite=Lax; Path=/`, `Secure` over https with the
 * `__Host-` prefix then. Lax keeps links from e-mails working; cross-site writes are stopped by the guard.
 */
export function sessionCookie(origin: string) {
  const { secure, options } = httpOnly(origin, '/', 'lax');
  return { name: secure ? '__Host-dash_session' : 'dash_session', options };
}

/** The first-run setup token, moved out of the URL into a cookie for the setup page only (15 minutes). */
export function setupCookie(origin: string) {
  const { options } = httpOnly(origin, '/setup', 'strict');
  return { name: 'dash_setup', options: (maxAgeSeconds = 15 * 60) => options(maxAgeSeconds) };
}

/**
 * The OAuth flow's cookie (the sealed state and PKCE verifier), for the callback only: SameSite=Lax, since the
 * provider sends the browser back with a top-level GET, which Lax lets it carry; ten minutes.
 */
export function oauthCookie(origin: string, cookie: { name: string; path: string }) {
  return { name: cookie.name, options: httpOnly(origin, cookie.path, 'lax').options };
}
