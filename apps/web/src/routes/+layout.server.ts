import type { LayoutServerLoad } from './$types';
import { callerFor } from '$lib/server/app';

export const load: LayoutServerLoad = async ({ locals }) => {
  // The sign-in pages are shown to nobody in particular: no demo banner, no account menu.
  if (!locals.request.identity) return { demo: { available: false, active: false, projects: [] }, auth: undefined, inbox: undefined };
  const api = await callerFor(locals.request);
  const [demo, auth, { unreadCount, seq }, { projects }] = await Promise.all([api.demo.status(), api.auth.status(), api.notifications.unreadCount(), api.projects.list()]);
  return { demo, auth, inbox: { unread: unreadCount, seq, projects: projects.map(({ slug, name, color }) => ({ slug, name, color })) } };
};
