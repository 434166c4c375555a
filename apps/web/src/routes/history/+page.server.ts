import type { PageServerLoad } from './$types';
import { metricKeys } from '@dash/contracts/names';
import type { HistoryMetric } from '@dash/contracts';
import { TRPCError } from '@trpc/server';
import { callerFor } from '$lib/server/app';
import { readPageHistory } from '$lib/server/history';

// A project's history view: what each metric keeps (configured, backfilled, since when) and a year of every metric's
// days, read once; the range switch slices it in the browser. Without `?project=`, the first project's.
export const load: PageServerLoad = async ({ url, locals }) => {
  const api = await callerFor(locals.request);
  const { projects } = await api.projects.list();
  const requested = url.searchParams.get('project');
  const project = projects.find((p) => p.slug === requested) ?? projects[0];
  const list = projects.map(({ slug, name, color }) => ({ slug, name, color }));
  if (!project) return { projects: list, project: undefined, metrics: { list: [] as HistoryMetric[] }, history: undefined };
  const [metrics, history] = await Promise.all([
    api.history.metrics({ project: project.slug }).then(
      (answer) => ({ list: answer.projects.find((one) => one.project === project.slug)?.metrics ?? [] }),
      (error: unknown) => ({ list: [] as HistoryMetric[], error: error instanceof TRPCError ? error.message.replace(/\.$/, '') : 'the server log has the details' }),
    ),
    readPageHistory(api, project.slug, [...metricKeys]),
  ]);
  return { projects: list, project: { slug: project.slug, name: project.name, color: project.color, integrations: project.integrations }, metrics, history };
};
