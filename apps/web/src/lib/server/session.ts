import type { Cookies } from '@sveltejs/kit';

type CookieOptions = Parameters<Cookies['set']>[2];

/**
 * The session cookie for the dashboard's origin: `HttpOnly; SameSite=Lax; Path=/`, and `Secure`
 * exactly when the origin is https (set explicitly: SvelteKit's default would mark it Secure on
 * plain http to 127.0.0.1 or a LAN address, where the browser then drops it), with the `__Host-`
 * prefix then. Lax keeps links from e-mails working; cross-site writes are stopped by the guard.
 */
export function sessionCookie(origin: string) {
  const secure = origin.startsWith('https:');
  return {
    name: secure ? '__Host-dash_session' : 'dash_session',
    options: (maxAgeSeconds: number): CookieOptions => ({
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge: maxAgeSeconds,
    }),
  };
}

/** The first-run setup token, moved out of the URL into a cookie for the setup page only (15 minutes). */
export function setupCookie(origin: string) {
  const secure = origin.startsWith('https:');
  return {
    name: 'dash_setup',
    options: (maxAgeSeconds = 15 * 60): CookieOptions => ({
      path: '/setup',
      httpOnly: true,
      sameSite: 'strict',
      secure,
      maxAge: maxAgeSeconds,
    }),
  };
}

/**
 * The OAuth flow's cookie (the sealed state and PKCE verifier), for the callback only: `HttpOnly; SameSite=Lax` (the
 * provider sends the browser back with a top-level GET, which Lax lets it carry), `Secure` over https, ten minutes.
 */
export function oauthCookie(origin: string, cookie: { name: string; path: string }) {
  return {
    name: cookie.name,
    options: (maxAgeSeconds: number): CookieOptions => ({
      path: cookie.path,
      httpOnly: true,
      sameSite: 'lax',
      secure: origin.startsWith('https:'),
      maxAge: maxAgeSeconds,
    }),
  };
}
