import type { PageServerLoad } from './$types';
import { callerFor } from '$lib/server/app';

export const load: PageServerLoad = async ({ url, locals }) => {
  const api = await callerFor(locals.request);
  const [settings, { projects }, briefing] = await Promise.all([api.settings.get(), api.projects.list(), api.briefing.status()]);
  const requested = url.searchParams.get('project') ?? undefined;
  return { settings, projects, active: projects.some((p) => p.slug === requested) ? requested : undefined, briefingUnread: briefing.unread };
};
