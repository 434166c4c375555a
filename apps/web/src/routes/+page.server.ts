import type { PageServerLoad } from './$types';
import { callerFor } from '$lib/server/app';
import { firstData } from '$lib/server/first-render';
import { readPageHistory } from '$lib/server/history';
import type { FirstData } from '$lib/first-render';
import type { PageHistory } from '$lib/history';
import { metricsOfWidgets } from '$lib/trend';

export const load: PageServerLoad = async ({ url, locals }) => {
  const api = await callerFor(locals.request);
  const [settings, { projects }, briefing] = await Promise.all([api.settings.get(), api.projects.list(), api.briefing.status()]);
  const requested = url.searchParams.get('project') ?? undefined;
  const active = projects.some((p) => p.slug === requested) ? requested : undefined;
  // The view's widgets: the six slots, then the row of every other widget set up for what is on screen.
  const view = projects.length > 0 ? await api.settings.widgets({ project: active }) : { slots: {}, more: [] };
  // The widgets' first data comes with the page; `?render=client` leaves it to the browser, as before (bench/first-visit.mjs's baseline).
  const onScreen = [...Object.values(view.slots).filter((widget) => widget !== undefined), ...view.more];
  const activeProject = projects.find((p) => p.slug === active);
  // The trends' year of history for every widget on screen (All projects: the metrics that add up), read from the local
  // store in one call beside the first data: each chart slices it by range in the browser and asks nothing more.
  const [first, history]: [FirstData, PageHistory] = await Promise.all([
    onScreen.length > 0 && url.searchParams.get('render') !== 'client'
      ? firstData(locals.request, {
          widgets: onScreen,
          project: active,
          fundingSlug: activeProject ? (activeProject.integrations.funding?.slug ?? null) : undefined,
          showOC: settings.widgetLayout.configs.revenue?.showOC ?? false,
        })
      : {},
    readPageHistory(api, active, metricsOfWidgets(onScreen, { allProjects: active === undefined })),
  ]);
  return { settings, projects, active, view, first, briefingUnread: briefing.unread, history };
};
