import { describeError, type Caller, type RequestInfo } from '@dash/api';
import type { DataResult, WidgetName } from '@dash/contracts';
import { TRPCError } from '@trpc/server';
import { firstInputs, type FirstAnswer, type FirstData, type Outcome, type WidgetAnswers } from '$lib/first-render';
import { cachedCallerFor, callerFor } from './app.ts';

/** A call's outcome; its error in the words the browser's call would show (the tRPC error formatter's). */
async function outcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { result: await call() };
  } catch (error) {
    return { error: error instanceof TRPCError ? describeError(error).body.error.message : 'Internal error; the server log has the details' };
  }
}

/**
 * A procedure's answer for a page's first render: read from the cache alone, in the HTML; when that needs an upstream,
 * the usual call, `pending`, for SvelteKit to stream after the HTML.
 */
export async function firstAnswer<T>(request: RequestInfo, call: (api: Caller) => Promise<T>): Promise<FirstAnswer<T>> {
  const { caller, missed } = await cachedCallerFor(request);
  const cached = await outcome(() => call(caller));
  if (!missed()) return cached;
  return { pending: outcome(async () => call(await callerFor(request))) };
}

/** What is on screen, as the widgets ask for their data. */
export interface Screen {
  widgets: WidgetName[];
  /** The project on screen; all projects when undefined. */
  project: string | undefined;
  /** The collective of the project on screen; null when it has none; undefined for all projects. */
  fundingSlug: string | null | undefined;
  /** Whether the revenue widget shows the collective's balance. */
  showOC: boolean;
}

/** Each widget's first call, with the input its component asks with first. */
const firstCalls: { [W in WidgetName]: (api: Caller, screen: Screen) => Promise<DataResult<WidgetAnswers[W]>> } = {
  revenue: (api, { project }) => api.data.revenue({ project, ...firstInputs.revenue }),
  shipping: (api, { project }) => api.data.shipping({ project }),
  ideas: (api, { project }) => api.data.ideas({ project }),
  analytics: (api, { project }) => api.data.analytics({ project, ...firstInputs.analytics }),
  seo: (api, { project }) => api.data.seo({ project }),
  storefront: (api, { project }) => api.data.storefront({ project }),
  errortracker: (api, { project }) => api.data.errortracker({ project }),
  health: (api, { project }) => api.data.health({ project }),
  funding: (api, { fundingSlug }) => api.data.funding(fundingSlug ? { slug: fundingSlug } : {}),
};

/**
 * The first data of every widget on screen, read on the server through the same procedures and cache as the widgets'
 * own calls: what the cache holds is awaited (a few milliseconds), what needs an upstream is streamed.
 */
export async function firstData(request: RequestInfo, screen: Screen): Promise<FirstData> {
  const asked = new Set(screen.widgets);
  // A project without a collective asks nothing: its widget says so, and revenue shows no balance.
  if (screen.fundingSlug === null) asked.delete('funding');
  else if (asked.has('revenue') && screen.showOC) asked.add('funding');
  const answers = await Promise.all([...asked].map(async (widget) => [widget, await firstOf(request, widget, screen)] as const));
  return Object.fromEntries(answers);
}

/** One widget's first data. */
function firstOf<W extends WidgetName>(request: RequestInfo, widget: W, screen: Screen): Promise<FirstAnswer<DataResult<WidgetAnswers[W]>>> {
  const call = firstCalls[widget];
  return firstAnswer(request, (api) => call(api, screen));
}
