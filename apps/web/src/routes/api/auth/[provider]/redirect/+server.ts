import { json, redirect } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { describeError, OAUTH_COOKIE } from '@dash/api';
import { oauthProviderSchema } from '@dash/contracts';
import type { RequestHandler } from './$types';
import { callerFor, serverEnv } from '$lib/server/app';
import { oauthCookie } from '$lib/server/session';

/**
 * GET /api/auth/{provider}/redirect?credKey=&scopes=: starts a connection (oauth.start) and sends the browser to the
 * provider's authorization page with 302, the flow sealed into a cookie for the callback. A SvelteKit route, not the
 * REST table: it sets a cookie and redirects.
 */
export const GET: RequestHandler = async ({ params, url, locals, cookies, request }) => {
  const provider = oauthProviderSchema.safeParse(params.provider);
  if (!provider.success) return json({ error: { code: 'NOT_FOUND', message: `No OAuth provider "${params.provider}": google or github` } }, { status: 404 });
  const { publicOrigin, mode } = serverEnv();
  // The provider sends the browser back to the public address: the flow's cookie must be set there, not on another
  // loopback name the Host guard admits locally (localhost for 127.0.0.1; a remote dashboard's guard already sends
  // every other name to ORIGIN). `url` always says the public origin (server.ts sets ORIGIN for the adapter), so the
  // Host header tells which name the browser used; it only decides whether to redirect, never where.
  if (mode === 'local' && (request.headers.get('host') ?? '').toLowerCase() !== new URL(publicOrigin).host) {
    redirect(302, `${publicOrigin}${url.pathname}${url.search}`);
  }
  const scopes = url.searchParams.get('scopes');
  try {
    const caller = await callerFor(locals.request);
    const started = await caller.oauth.start({ provider: provider.data, credKey: url.searchParams.get('credKey') ?? '', ...(scopes === null ? {} : { scopes }) });
    const cookie = oauthCookie(publicOrigin, OAUTH_COOKIE);
    cookies.set(cookie.name, started.cookie, cookie.options(started.maxAgeSeconds));
    return new Response(null, { status: 302, headers: { location: started.location, 'cache-control': 'no-store' } });
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    const { status, body } = describeError(error);
    return json(body, { status, headers: { 'cache-control': 'no-store' } });
  }
};
