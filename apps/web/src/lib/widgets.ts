import { slotNames } from '@dash/contracts/names';
import type { Range, SlotName, WidgetName } from '@dash/contracts';

/** A 24×24 stroke icon as path data (circles written as two arcs). */
const circle = (cx: number, cy: number, r: number) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`;

/** What each widget is called on screen, what it will show, and its icon. */
export const widgetInfo: Record<WidgetName, { title: string; shows: string; icon: string }> = {
  revenue: {
    title: 'Revenue',
    shows: 'Gross and net revenue, MRR, subscribers and the last payment',
    icon: 'M12 2v20M17 5H9.5a3.5 3.5 0 0 0 0 7h5a3.5 3.5 0 0 1 0 7H6',
  },
  shipping: {
    title: 'Shipped',
    shows: 'Merged pull requests, completed issues and production deploys',
    icon: `${circle(18, 18, 3)}${circle(6, 6, 3)}M6 21V9a9 9 0 0 0 9 9`,
  },
  ideas: {
    title: 'Ideas & bugs',
    shows: 'Open ideas and bugs from the issue tracker, by priority',
    icon: 'M9 18h6M10 22h4M12 2a7 7 0 0 0-4 12.7V17h8v-2.3A7 7 0 0 0 12 2z',
  },
  analytics: {
    title: 'Analytics',
    shows: 'Visitors, page views, top pages and referrers',
    icon: 'M3 3v18h18M8 17v-5M13 17V8M18 17v-8',
  },
  seo: {
    title: 'Search',
    shows: 'Top search queries, clicks, impressions and position',
    icon: `${circle(11, 11, 7)}M21 21l-4.3-4.3`,
  },
  storefront: {
    title: 'App Store',
    shows: 'Ratings, newest reviews and version states',
    icon: 'M12 2l3.1 6.3 6.9 1-5 4.9 1.2 6.8L12 17.8 5.8 21l1.2-6.8-5-4.9 6.9-1z',
  },
  errortracker: {
    title: 'Errors',
    shows: 'Unresolved issues with their counts and when they were last seen',
    icon: 'M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0zM12 9v4M12 17h.01',
  },
  health: {
    title: 'Uptime',
    shows: 'Monitors, response times and ongoing incidents',
    icon: 'M22 12h-4l-3 9L9 3l-3 9H2',
  },
  funding: {
    title: 'Funding',
    shows: 'Balance, money raised, backers and recent transactions',
    icon: 'M19 14c1.5-1.5 3-3.2 3-5.5A5.5 5.5 0 0 0 16.5 3c-1.8 0-3 .5-4.5 2-1.5-1.5-2.7-2-4.5-2A5.5 5.5 0 0 0 2 8.5c0 2.3 1.5 4 3 5.5l7 7z',
  },
};

/** Where each slot sits on the dashboard grid, in words, for the layout form. */
export const slotInfo: Record<SlotName, { label: string; span: 'one' | 'two' | 'full' }> = {
  revenue: { label: 'Top left, wide', span: 'two' },
  shipping: { label: 'Top right', span: 'one' },
  ideas: { label: 'Middle left', span: 'one' },
  analytics: { label: 'Middle', span: 'one' },
  seo: { label: 'Middle right', span: 'one' },
  detail: { label: 'Bottom, full width', span: 'full' },
};

/** Where a widget sits on the dashboard: one of the six slots, or its place in the row below them (`more-health`). */
export type Place = SlotName | `more-${WidgetName}`;

export const isSlot = (place: Place): place is SlotName => (slotNames as readonly string[]).includes(place);

/** How wide a place is on the grid: a slot's own width; a widget of the row takes one column. */
export const spanOf = (place: Place) => (isSlot(place) ? slotInfo[place].span : 'one');

/** The range switch's words for each range of the revenue and analytics routes. */
export const rangeLabels: Record<Range, string> = { '7d': '7 days', '15d': '15 days', '30d': '30 days', '3m': '3 months', '1y': '1 year', all: 'All time' };
