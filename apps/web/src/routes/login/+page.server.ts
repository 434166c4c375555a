import { redirect } from '@sveltejs/kit';
import type { Actions, PageServerLoad } from './$types';
import { callerFor, serverEnv } from '$lib/server/app';
import { field, formFailure, safeNext } from '$lib/server/forms';
import { sessionCookie } from '$lib/server/session';

export const load: PageServerLoad = ({ locals, url }) => {
  const next = safeNext(url.searchParams.get('next'), url.origin);
  // Already signed in, or a local dashboard without a password: nothing to sign in to.
  if (locals.request.identity) redirect(303, next);
  return { next };
};

export const actions: Actions = {
  default: async ({ request, locals, cookies, url, setHeaders }) => {
    const form = await request.formData();
    const next = safeNext(field(form, 'next') || url.searchParams.get('next'), url.origin);
    const api = await callerFor(locals.request);
    try {
      const session = await api.auth.login({ password: field(form, 'password') });
      const cookie = sessionCookie(serverEnv().ORIGIN ?? url.origin);
      cookies.set(cookie.name, session.token, cookie.options(session.maxAgeSeconds));
    } catch (error) {
      const failure = formFailure(error, setHeaders, { next });
      // One message for every wrong password, whatever was wrong with it.
      if (failure.status === 400) failure.data.message = 'That password is not right.';
      return failure;
    }
    redirect(303, next);
  },
};
