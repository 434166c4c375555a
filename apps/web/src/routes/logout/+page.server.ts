import { redirect } from '@sveltejs/kit';
import type { Actions, PageServerLoad } from './$types';
import { callerFor, serverEnv } from '$lib/server/app';
import { field } from '$lib/server/forms';
import { sessionCookie } from '$lib/server/session';

/** Signing out is a POST (a link or a prefetch must not sign anyone out); a visit just goes home. */
export const load: PageServerLoad = () => redirect(303, '/');

export const actions: Actions = {
  /** `endpoint`: this browser's push subscription, which the header's form unsubscribed first; its device goes too. */
  default: async ({ request, locals, cookies, url }) => {
    const endpoint = field(await request.formData().catch(() => new FormData()), 'endpoint') || undefined;
    if (locals.request.identity) await (await callerFor(locals.request)).auth.logout({ endpoint });
    const cookie = sessionCookie(serverEnv().ORIGIN ?? url.origin);
    cookies.delete(cookie.name, cookie.options(0));
    redirect(303, '/login');
  },
};
