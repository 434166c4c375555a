import type { WidgetName } from '@dash/contracts';

/** What each widget is called on screen and what it will show. */
export const widgetInfo: Record<WidgetName, { title: string; shows: string }> = {
  revenue: { title: 'Revenue', shows: 'Gross and net revenue, MRR, subscribers and the last payment' },
  shipping: { title: 'Shipped', shows: 'Merged pull requests, completed issues and production deploys' },
  ideas: { title: 'Ideas & bugs', shows: 'Open ideas and bugs from the issue tracker, by priority' },
  analytics: { title: 'Analytics', shows: 'Visitors, page views, top pages and referrers' },
  seo: { title: 'Search', shows: 'Top search queries, clicks, impressions and position' },
  storefront: { title: 'App Store', shows: 'Ratings, newest reviews and version states' },
  errortracker: { title: 'Errors', shows: 'Unresolved issues with their counts and last seen' },
  health: { title: 'Uptime', shows: 'Monitors, response times and ongoing incidents' },
  funding: { title: 'Funding', shows: 'Balance, money raised, backers and recent transactions' },
};
