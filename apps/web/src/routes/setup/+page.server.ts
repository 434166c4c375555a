import { error, fail, redirect } from '@sveltejs/kit';
import type { Actions, PageServerLoad } from './$types';
import { callerFor, serverEnv } from '$lib/server/app';
import { field, formFailure } from '$lib/server/forms';
import { sessionCookie, setupCookie } from '$lib/server/session';

/**
 * First-run setup of a remote dashboard. Only the link the server printed opens it: its token is
 * checked, moved into a cookie for this page (so it leaves the address bar and the history), and
 * the first password stored wins; anyone later gets a conflict.
 */
export const load: PageServerLoad = async ({ locals, url, cookies, setHeaders, request }) => {
  const api = await callerFor(locals.request);
  if (!(await api.auth.setupRequired())) {
    // A setup that lost the race is shown its 409 on this page; anyone else is sent on.
    if (request.method === 'POST') return { done: true };
    redirect(303, locals.request.identity ? '/' : '/login');
  }
  const cookie = setupCookie(serverEnv().ORIGIN ?? url.origin);
  const token = url.searchParams.get('token');
  if (token !== null) {
    try {
      if (!(await api.auth.checkSetupToken({ token })).valid) error(403, 'This setup link is not valid. Use the newest link in the server log.');
    } catch (failure) {
      const answer = formFailure(failure, setHeaders);
      error(answer.status, answer.data.message);
    }
    cookies.set(cookie.name, token, cookie.options());
    redirect(303, '/setup');
  }
  if (cookies.get(cookie.name) === undefined) {
    error(403, 'Open the setup link the server printed in its log: only that link can set the first password.');
  }
  return { done: false };
};

export const actions: Actions = {
  default: async ({ request, locals, cookies, url, setHeaders }) => {
    const origin = serverEnv().ORIGIN ?? url.origin;
    const setup = setupCookie(origin);
    const form = await request.formData();
    const password = field(form, 'password');
    if (password !== field(form, 'confirm')) return fail(400, { message: 'The two passwords differ.' });
    const api = await callerFor(locals.request);
    try {
      const session = await api.auth.setup({ token: cookies.get(setup.name) ?? '', password });
      const cookie = sessionCookie(origin);
      cookies.set(cookie.name, session.token, cookie.options(session.maxAgeSeconds));
      cookies.delete(setup.name, setup.options(0));
    } catch (failure) {
      return formFailure(failure, setHeaders);
    }
    redirect(303, '/');
  },
};
