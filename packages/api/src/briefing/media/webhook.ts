import type { BriefingProject } from '@dash/contracts';
import { dashboardUrl, metricAlertsOf, trendOf, type BriefingRender, type OpenMetricAlert, type TrendLine } from './outline.ts';

/**
 * The briefing as the signed webhook's body (Standard Webhooks' `type`, `timestamp`, `data`): `briefing.ready` with the
 * briefing's structured data, only the parts the destination chose, every link absolute on the dashboard's address (or
 * null without one). Strangers' text is JSON string data, escaped by JSON alone. Its shape is in docs/briefing.md
 * ("On every channel").
 */

type Link = string | null;

export interface BriefingReadyProject {
  slug: string;
  name: string;
  link: Link;
  /** With `figures`: the model's figures (each section null when the project has no such integration) and the trend lines. */
  figures?: {
    revenue: (Omit<NonNullable<BriefingProject['revenue']>, 'link'> & { link: Link }) | null;
    traffic: (Omit<NonNullable<BriefingProject['traffic']>, 'link'> & { link: Link }) | null;
    search: (Omit<NonNullable<BriefingProject['search']>, 'link'> & { link: Link }) | null;
    bugs: (Omit<NonNullable<BriefingProject['bugs']>, 'link'> & { link: Link }) | null;
    errors: (Omit<NonNullable<BriefingProject['errors']>, 'link'> & { link: Link }) | null;
    uptime: { incidents: (Omit<NonNullable<BriefingProject['uptime']>['incidents'][number], 'link'> & { link: Link })[]; down: string[]; link: Link } | null;
    funding: (Omit<NonNullable<BriefingProject['funding']>, 'link'> & { link: Link }) | null;
    trend: TrendLine[];
  };
  /** With `shipped`. */
  shipped?: { items: NonNullable<BriefingProject['shipping']>['items']; link: Link } | null;
  /** With `reviews`. */
  reviews?: { items: NonNullable<BriefingProject['reviews']>['items']; link: Link } | null;
}

export interface BriefingReady {
  type: 'briefing.ready';
  /** When the briefing was made (the same on every try of it). */
  timestamp: string;
  data: {
    period: BriefingRender['period'];
    parts: BriefingRender['parts'];
    window: { since: string; until: string };
    days: { current: string[]; previous: string[]; weekAgo: string[] };
    generatedAt: string;
    link: Link;
    needsYou?: { rule: string; project: string; section: string; severity: 'warning' | 'error'; text: string; value: number; threshold: number; link: Link }[];
    quiet?: string | null;
    metricAlerts?: (Omit<OpenMetricAlert, 'link'> & { link: Link })[];
    failed?: { project: string; section: string; error: string }[];
    projects: BriefingReadyProject[];
  };
}

/** `{ …, link }` with its link made absolute (or null). */
function linked<T extends { link: string }>(value: T | null, origin: string | null): (Omit<T, 'link'> & { link: Link }) | null {
  if (value === null) return null;
  return { ...value, link: dashboardUrl(origin, value.link) };
}

export function webhookBriefing(input: BriefingRender): BriefingReady {
  const { briefing, parts, period, origin } = input;
  const has = (part: BriefingRender['parts'][number]) => parts.includes(part);
  const projects = briefing.projects.map((project): BriefingReadyProject => {
    const out: BriefingReadyProject = { slug: project.slug, name: project.name, link: dashboardUrl(origin, `/briefing?project=${encodeURIComponent(project.slug)}`) };
    if (has('figures')) {
      out.figures = {
        revenue: linked(project.revenue, origin),
        traffic: linked(project.traffic, origin),
        search: linked(project.search, origin),
        bugs: linked(project.bugs, origin),
        errors: linked(project.errors, origin),
        uptime: project.uptime && {
          incidents: project.uptime.incidents.map((incident) => ({ ...incident, link: dashboardUrl(origin, incident.link) })),
          down: project.uptime.down,
          link: dashboardUrl(origin, project.uptime.link),
        },
        funding: linked(project.funding, origin),
        trend: trendOf(project),
      };
    }
    if (has('shipped')) out.shipped = project.shipping && { items: project.shipping.items, link: dashboardUrl(origin, project.shipping.link) };
    if (has('reviews')) out.reviews = project.reviews && { items: project.reviews.items, link: dashboardUrl(origin, project.reviews.link) };
    return out;
  });
  return {
    type: 'briefing.ready',
    timestamp: briefing.generatedAt,
    data: {
      period,
      parts: [...parts],
      window: briefing.window,
      days: briefing.days,
      generatedAt: briefing.generatedAt,
      link: dashboardUrl(origin, '/briefing'),
      ...(has('needs_you') && { needsYou: briefing.needsYou.map((line) => ({ ...line, link: dashboardUrl(origin, line.link) })), quiet: briefing.quiet }),
      ...(has('metric_alerts') && { metricAlerts: metricAlertsOf(briefing).map((alert) => ({ ...alert, link: dashboardUrl(origin, alert.link) })) }),
      ...(has('figures') && { failed: briefing.failed }),
      projects,
    },
  };
}
