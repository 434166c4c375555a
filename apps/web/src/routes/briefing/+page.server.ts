import type { PageServerLoad } from './$types';
import { callerFor } from '$lib/server/app';

// The projects for the switch; the briefing itself is read by the page (with its loading state), from the cache.
export const load: PageServerLoad = async ({ url, locals }) => {
  const api = await callerFor(locals.request);
  const { projects } = await api.projects.list();
  const requested = url.searchParams.get('project') ?? undefined;
  return { projects: projects.map(({ slug, name, color }) => ({ slug, name, color })), active: projects.some((p) => p.slug === requested) ? requested : undefined };
};
