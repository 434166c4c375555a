import { json } from '@sveltejs/kit';
import { OAUTH_COOKIE } from '@dash/api';
import { oauthProviderSchema } from '@dash/contracts';
import type { RequestHandler } from './$types';
import { callerFor, serverEnv } from '$lib/server/app';
import { oauthCookie } from '$lib/server/session';

/**
 * GET /api/auth/{provider}/callback: where the provider sends the browser back. oauth.finish checks the flow and
 * stores the tokens; the cookie goes either way (a flow is good once), and the browser lands on
 * /settings/connections?oauth=success or ?oauth=error&reason=<code>. Nothing of the provider's answer is echoed.
 */
export const GET: RequestHandler = async ({ params, url, locals, cookies }) => {
  const provider = oauthProviderSchema.safeParse(params.provider);
  if (!provider.success) return json({ error: { code: 'NOT_FOUND', message: `No OAuth provider "${params.provider}": google or github` } }, { status: 404 });
  const cookie = oauthCookie(serverEnv().publicOrigin, OAUTH_COOKIE);
  const sent = cookies.get(cookie.name);
  cookies.delete(cookie.name, cookie.options(0));
  const caller = await callerFor(locals.request);
  const ended = await caller.oauth.finish({ provider: provider.data, query: Object.fromEntries(url.searchParams), ...(sent === undefined ? {} : { cookie: sent }) });
  const location = ended.outcome === 'success' ? '/settings/connections?oauth=success' : `/settings/connections?oauth=error&reason=${encodeURIComponent(ended.reason)}`;
  return new Response(null, { status: 302, headers: { location, 'cache-control': 'no-store' } });
};
