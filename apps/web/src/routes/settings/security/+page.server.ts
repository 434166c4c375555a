import { fail } from '@sveltejs/kit';
import type { Actions, PageServerLoad } from './$types';
import { callerFor, serverEnv } from '$lib/server/app';
import { field, formFailure } from '$lib/server/forms';
import { sessionCookie } from '$lib/server/session';
import { settingsLoads } from '$lib/server/settings-loads';

export const load: PageServerLoad = async ({ locals }) => settingsLoads.security(await callerFor(locals.request));

export const actions: Actions = {
  /** Sets the first password of a local dashboard, or changes it; a form, so it can set the session cookie. */
  password: async ({ request, locals, cookies, url, setHeaders }) => {
    const form = await request.formData();
    const newPassword = field(form, 'newPassword');
    if (newPassword !== field(form, 'confirm')) return fail(400, { password: { message: 'The two new passwords differ.' } });
    const api = await callerFor(locals.request);
    try {
      const { session, devicesRemoved } = await api.auth.changePassword({ currentPassword: field(form, 'currentPassword') || undefined, newPassword });
      if (session) {
        const cookie = sessionCookie(serverEnv().ORIGIN ?? url.origin);
        cookies.set(cookie.name, session.token, cookie.options(session.maxAgeSeconds));
      }
      const devices = devicesRemoved ? ' Every device that got push notifications was removed: add them again in Settings → Notifications → Devices.' : '';
      return { password: { message: (session && !devicesRemoved ? 'Password set. This dashboard now asks for it.' : 'Password changed. Every other session is signed out.') + devices } };
    } catch (error) {
      const failure = formFailure(error, setHeaders);
      return fail(failure.status, { password: { message: failure.data.message, failed: true } });
    }
  },
};
