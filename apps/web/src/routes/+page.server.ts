import type { PageServerLoad } from './$types';
import { getCaller } from '$lib/server/app';

export const load: PageServerLoad = async ({ url }) => {
  const api = await getCaller();
  const [settings, { projects }] = await Promise.all([api.settings.get(), api.projects.list()]);
  const requested = url.searchParams.get('project') ?? undefined;
  return { settings, projects, active: projects.some((p) => p.slug === requested) ? requested : undefined };
};
