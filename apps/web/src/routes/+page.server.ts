import type { PageServerLoad } from './$types';
import { callerFor } from '$lib/server/app';

export const load: PageServerLoad = async ({ url, locals }) => {
  const api = await callerFor(locals.request);
  const [settings, { projects }, briefing] = await Promise.all([api.settings.get(), api.projects.list(), api.briefing.status()]);
  const requested = url.searchParams.get('project') ?? undefined;
  const active = projects.some((p) => p.slug === requested) ? requested : undefined;
  // The view's widgets: the six slots, then the row of every other widget set up for what is on screen.
  const view = projects.length > 0 ? await api.settings.widgets({ project: active }) : { slots: {}, more: [] };
  return { settings, projects, active, view, briefingUnread: briefing.unread };
};
