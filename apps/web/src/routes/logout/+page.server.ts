import { redirect } from '@sveltejs/kit';
import type { Actions, PageServerLoad } from './$types';
import { callerFor, serverEnv } from '$lib/server/app';
import { sessionCookie } from '$lib/server/session';

/** Signing out is a POST (a link or a prefetch must not sign anyone out); a visit just goes home. */
export const load: PageServerLoad = () => redirect(303, '/');

export const actions: Actions = {
  default: async ({ locals, cookies, url }) => {
    if (locals.request.identity) await (await callerFor(locals.request)).auth.logout();
    const cookie = sessionCookie(serverEnv().ORIGIN ?? url.origin);
    cookies.delete(cookie.name, cookie.options(0));
    redirect(303, '/login');
  },
};
