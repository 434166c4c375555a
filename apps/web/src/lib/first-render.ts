import type { Analytics, DataResult, ErrorTracker, Funding, Health, Ideas, Revenue, Seo, Shipping, Storefront, WidgetName } from '@dash/contracts';

/** A procedure's answer as a page's first render carries it: the answer, or its error as the browser's call would show it. */
export type Outcome<T> = { result: T } | { error: string };

/**
 * An answer the server read for the first render: in the HTML when the cache held it, or `pending`, a promise SvelteKit
 * streams in the same response when only the upstream has it (so a slow upstream holds its own widget, not the page).
 */
export type FirstAnswer<T> = Outcome<T> | { pending: Promise<Outcome<T>> };

/** What each widget's data procedure answers. */
export interface WidgetAnswers {
  revenue: Revenue;
  shipping: Shipping;
  ideas: Ideas;
  analytics: Analytics;
  seo: Seo;
  storefront: Storefront;
  errortracker: ErrorTracker;
  health: Health;
  funding: Funding;
}

/** The first render's data of the widgets on screen, by widget (revenue's Open Collective balance is `funding`'s). */
export type FirstData = { [W in WidgetName]?: FirstAnswer<DataResult<WidgetAnswers[W]>> };

/** The ranges and currency the widgets start at: the server asks their first data with the same input. */
export const firstInputs = { revenue: { range: '7d', currency: 'USD' }, analytics: { range: '30d' } } as const;
