import type { PageServerLoad } from './$types';
import { callerFor } from '$lib/server/app';
import { firstAnswer } from '$lib/server/first-render';

// The projects for the switch, and the briefing itself: in the HTML when the cache holds what it reads, else streamed
// after it (the page shows its loading line until then).
export const load: PageServerLoad = async ({ url, locals }) => {
  const api = await callerFor(locals.request);
  const { projects } = await api.projects.list();
  const requested = url.searchParams.get('project') ?? undefined;
  const active = projects.some((p) => p.slug === requested) ? requested : undefined;
  // Nothing to read before there is a project. `?render=client` leaves it to the browser, as before (the baseline of
  // bench/first-visit.mjs).
  const onServer = projects.length > 0 && url.searchParams.get('render') !== 'client';
  // Daily unless `?period=week` (anything else is the daily briefing, as the switch's first link).
  const period = url.searchParams.get('period') === 'week' ? ('week' as const) : ('day' as const);
  const briefing = onServer ? await firstAnswer(locals.request, (caller) => caller.briefing.get({ ...(active ? { project: active } : {}), period })) : undefined;
  return { projects: projects.map(({ slug, name, color }) => ({ slug, name, color })), active, period, briefing };
};
