import type {
  Analytics,
  BriefingProject,
  BriefingThresholds,
  Compared,
  ErrorTracker,
  Funding,
  Health,
  Ideas,
  NeedsYou,
  Revenue,
  Seo,
  Shipping,
  Storefront,
} from '@dash/contracts';

/**
 * The briefing's arithmetic, pure: which days a window covers, what each widget's answer says about them, and
 * which lines cross a threshold. The inputs are the data procedures' own answers (what the widgets show), so no
 * figure here is computed twice from an upstream; what needs history (MRR's change, new referrers, error events)
 * comes from the snapshot the last briefings left.
 */

const DAY = 86_400_000;

/**
 * The revenue widget's range whose daily chart the briefing compares (two weeks and a day); the other answers it reads
 * are the widgets' defaults (analytics' 30 days, the first ideas and shipped items), which the backup refreshes.
 */
export const BRIEFING_REVENUE_RANGE = '15d' as const;

/** A window of the briefing: [since, until), ms UTC. */
export interface Window {
  since: number;
  until: number;
}

/** The daily figures' days (UTC dates): the complete days of the window, at least the last one before `until`. */
export interface Days {
  current: string[];
  previous: string[];
  weekAgo: string[];
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The complete UTC days a window covers (a window of 24 hours ending this morning covers yesterday), at least one,
 * with as many days before them and the same days a week earlier.
 */
export function daysOf({ since, until }: Window): Days {
  const lastDay = Math.floor(until / DAY) - 1;
  const firstDay = Math.min(lastDay, Math.ceil(since / DAY));
  const span = lastDay - firstDay + 1;
  const range = (from: number) => Array.from({ length: span }, (_, i) => dateOf((from + i) * DAY));
  return { current: range(firstDay), previous: range(firstDay - span), weekAgo: range(firstDay - 7) };
}

/** A figure with what it was before, and its change as a fraction (null when unknown or from zero). */
export function compared(value: number | null, previous: number | null, weekAgo: number | null = null): Compared {
  const change = value === null || previous === null || previous === 0 ? null : (value - previous) / previous;
  return { value, previous, weekAgo, change };
}

/** The sum of a daily series over `days`; null when the series does not reach back to the first of them. */
function sumOver<T extends { date: string }>(chart: readonly T[] | undefined, days: readonly string[], value: (point: T) => number): number | null {
  if (!chart || chart.length === 0 || days.length === 0) return null;
  const first = chart.reduce((min, point) => (point.date < min ? point.date : min), chart[0]?.date ?? '');
  if ((days[0] ?? '') < first) return null;
  const wanted = new Set(days);
  return chart.filter((point) => wanted.has(point.date)).reduce((sum, point) => sum + value(point), 0);
}

const within = (iso: string, { since, until }: Window) => {
  const at = Date.parse(iso);
  return at >= since && at < until;
};

/** What the last briefings recorded of a project (for what needs history). */
export interface ProjectSnapshot {
  /** ms UTC. */
  at: number;
  mrr: number | null;
  /** Net revenue of the 7 days before it (absent from the snapshots kept before it was recorded). */
  netWeek?: number | null;
  activeSubscribers: number | null;
  /** The events of the error tracker's listed issues, summed (Sentry's per-issue counts). */
  errorEvents: number | null;
  referrers: string[];
  queries: string[];
}

/** The widgets' answers for one project; a section is absent when the project has no such integration. */
export interface ProjectAnswers {
  slug: string;
  name: string;
  color: string | null;
  /** The revenue widget's two-week answer (its daily chart) and its 7-day one (net revenue). */
  revenue?: { fortnight: Revenue; week: Revenue; currency: string };
  shipping?: Shipping;
  ideas?: Ideas;
  storefront?: Storefront;
  analytics?: Analytics;
  seo?: Seo;
  errors?: ErrorTracker;
  health?: Health;
  /** Outage threads of the inbox (the uptime monitor's), with their inbox ids. */
  outages?: { id: string; title: string; firstAt: string; resolvedAt: string | null; open: boolean }[];
  funding?: Funding;
}

export interface ComposeInput {
  answers: ProjectAnswers;
  window: Window;
  days: Days;
  /** The latest snapshot from before the window's end, and the snapshots of the week before (oldest first). */
  last: ProjectSnapshot | undefined;
  week: readonly ProjectSnapshot[];
}

/** Where a line leads: the widget on the project's dashboard. */
export const widgetLink = (slug: string, widget: string) => `/?project=${encodeURIComponent(slug)}#widget-${widget}`;
/** An inbox thread: the dashboard opens the bell at it. */
export const threadLink = (id: string) => `/?notification=${encodeURIComponent(id)}`;

const TOP = 5;

/** One project's briefing from its widgets' answers. */
export function composeProject({ answers, window, days, last }: ComposeInput): BriefingProject {
  const { slug } = answers;
  const link = (widget: string) => widgetLink(slug, widget);
  return {
    slug,
    name: answers.name,
    color: answers.color,
    revenue: answers.revenue ? revenueSection(answers.revenue, days, last, link('revenue')) : null,
    shipping: answers.shipping
      ? {
          items: answers.shipping.items
            .filter((item) => within(item.shippedAt, window))
            .map((item) => ({ title: item.title, source: item.source, url: item.url ?? null, shippedAt: item.shippedAt })),
          link: link('shipping'),
        }
      : null,
    bugs: answers.ideas
      ? {
          opened: answers.ideas.items
            .filter((idea) => idea.type === 'bug' && within(idea.createdAt, window))
            .map((idea) => ({ title: idea.title, priority: idea.priority, url: idea.url ?? null, createdAt: idea.createdAt })),
          closed: (answers.shipping?.items ?? []).filter((item) => item.source === 'issue_tracker' && within(item.shippedAt, window)).length,
          link: link('ideas'),
        }
      : null,
    reviews: answers.storefront
      ? {
          items: answers.storefront.reviews
            .filter((review) => within(review.createdAt, window))
            .sort((a, b) => a.rating - b.rating || b.createdAt.localeCompare(a.createdAt))
            .map(({ rating, title, territory, createdAt }) => ({ rating, title, territory, createdAt })),
          link: link('storefront'),
        }
      : null,
    traffic: answers.analytics
      ? {
          visitors: compared(
            sumOver(answers.analytics.chart, days.current, (p) => p.visitors),
            sumOver(answers.analytics.chart, days.previous, (p) => p.visitors),
            sumOver(answers.analytics.chart, days.weekAgo, (p) => p.visitors),
          ),
          referrers: answers.analytics.referrers.slice(0, TOP).map(({ source, visitors }) => ({ source, visitors, new: last !== undefined && !last.referrers.includes(source) })),
          link: link('analytics'),
        }
      : null,
    search: answers.seo
      ? {
          queries: answers.seo.queries.slice(0, TOP).map(({ query, clicks }) => ({ query, clicks, new: last !== undefined && !last.queries.includes(query) })),
          link: link('seo'),
        }
      : null,
    errors: answers.errors ? errorsSection(answers.errors, window, last, link('errortracker')) : null,
    uptime:
      answers.health || answers.outages
        ? {
            incidents: (answers.outages ?? [])
              .filter((outage) => outage.open || within(outage.firstAt, window) || (outage.resolvedAt !== null && within(outage.resolvedAt, window)))
              .map((outage) => {
                const end = outage.resolvedAt === null ? window.until : Date.parse(outage.resolvedAt);
                return {
                  title: outage.title,
                  startedAt: outage.firstAt,
                  resolvedAt: outage.resolvedAt,
                  durationMinutes: Math.max(0, Math.round((end - Date.parse(outage.firstAt)) / 60_000)),
                  open: outage.open,
                  link: threadLink(outage.id),
                };
              })
              .sort((a, b) => b.durationMinutes - a.durationMinutes),
            down: (answers.health?.monitors ?? []).filter((monitor) => monitor.status !== 'up').map((monitor) => monitor.name),
            link: link('health'),
          }
        : null,
    funding: answers.funding ? fundingSection(answers.funding, window, link('funding')) : null,
  };
}

/** Money to the cent: a sum of a chart's amounts carries floating-point dust. */
const cents = (amount: number | null) => (amount === null ? null : Math.round(amount * 100) / 100);

function revenueSection(revenue: NonNullable<ProjectAnswers['revenue']>, days: Days, last: ProjectSnapshot | undefined, link: string): BriefingProject['revenue'] {
  const { chart } = revenue.fortnight;
  const daily = (set: readonly string[]) => cents(sumOver(chart, set, (p) => p.revenue));
  // The last seven complete days of the chart against the seven before them.
  const lastDay = days.current.at(-1) ?? '';
  const weekDays = (offset: number) => Array.from({ length: 7 }, (_, i) => dateOf(Date.parse(`${lastDay}T00:00:00Z`) - (offset + 6 - i) * DAY));
  const { mrr, activeSubscribers } = revenue.week;
  return {
    currency: revenue.currency,
    revenue: compared(daily(days.current), daily(days.previous), daily(days.weekAgo)),
    week: compared(daily(weekDays(0)), daily(weekDays(7))),
    netWeek: compared(revenue.week.netRevenue, last?.netWeek ?? null),
    mrr: compared(mrr, last?.mrr ?? null),
    activeSubscribers: compared(activeSubscribers, last?.activeSubscribers ?? null),
    link,
  };
}

/** The events of the listed issues, summed; null when the tracker's counts are unknown. */
export function errorEventsOf(errors: ErrorTracker): number | null {
  let sum = 0;
  for (const issue of errors.issues) {
    if (issue.count === null) return null;
    sum += issue.count;
  }
  return sum;
}

function errorsSection(errors: ErrorTracker, window: Window, last: ProjectSnapshot | undefined, link: string): BriefingProject['errors'] {
  const seen = errors.issues.filter((issue) => within(issue.lastSeen, window));
  const fresh = seen.filter((issue) => within(issue.firstSeen, window));
  const now = errorEventsOf(errors);
  return {
    new: fresh.map((issue) => ({ title: issue.title, level: issue.level, userCount: issue.userCount, count: issue.count, url: issue.url ?? null })),
    active: seen.length - fresh.length,
    usersAffected: seen.reduce((sum, issue) => sum + issue.userCount, 0),
    events: compared(now === null || !last || last.errorEvents === null ? null : Math.max(0, now - last.errorEvents), null),
    link,
  };
}

function fundingSection(funding: Funding, window: Window, link: string): BriefingProject['funding'] {
  const credits = funding.transactions.filter((transaction) => transaction.type.toUpperCase() === 'CREDIT' && within(transaction.createdAt, window));
  return { currency: funding.currency ?? credits[0]?.currency ?? null, received: cents(credits.reduce((sum, credit) => sum + credit.amount, 0)) ?? 0, contributions: credits.length, link };
}

/** The daily average of error events over the snapshots of the week before (one delta per day between two of them). */
export function dailyErrorAverage(week: readonly ProjectSnapshot[]): number | null {
  const known = week.filter((snapshot) => snapshot.errorEvents !== null);
  const first = known[0];
  const last = known.at(-1);
  if (!first || !last || last.at - first.at < DAY) return null;
  return Math.max(0, (last.errorEvents as number) - (first.errorEvents as number)) / ((last.at - first.at) / DAY);
}

const percent = (fraction: number) => `${Math.round(Math.abs(fraction) * 100)}%`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const spelled = ['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine'];
const counted = (n: number) => spelled[n] ?? String(n);
const hours = (minutes: number) => (minutes < 90 ? `${minutes} min` : `${Math.round(minutes / 60)} h`);

/** The lines of one project that cross a threshold, most severe first. */
export function needsYou(project: BriefingProject, thresholds: BriefingThresholds, context: { days: Days; errorAverage: number | null }): NeedsYou[] {
  const lines: NeedsYou[] = [];
  const { slug } = project;
  const week = project.revenue?.week;
  if (project.revenue && week?.change !== null && week?.change !== undefined && -week.change * 100 >= thresholds.revenueDropPercent) {
    lines.push({
      rule: 'revenue_drop',
      project: slug,
      section: 'revenue',
      severity: -week.change * 100 >= thresholds.revenueDropPercent * 2 ? 'error' : 'warning',
      text: `Revenue down ${percent(week.change)} against the previous 7 days`,
      value: Math.round(-week.change * 100),
      threshold: thresholds.revenueDropPercent,
      link: project.revenue.link,
    });
  }
  const visitors = project.traffic?.visitors;
  if (project.traffic && visitors?.change !== null && visitors?.change !== undefined && -visitors.change * 100 >= thresholds.trafficDropPercent) {
    const span = context.days.current.length === 1 ? 'the day before' : `the ${context.days.current.length} days before`;
    lines.push({
      rule: 'traffic_drop',
      project: slug,
      section: 'traffic',
      severity: 'warning',
      text: `Visitors down ${percent(visitors.change)} against ${span}`,
      value: Math.round(-visitors.change * 100),
      threshold: thresholds.trafficDropPercent,
      link: project.traffic.link,
    });
  }
  const low = (project.reviews?.items ?? []).filter((review) => review.rating <= thresholds.lowRatingStars);
  if (project.reviews && low.length >= thresholds.lowRatingCount) {
    const worst = Math.min(...low.map((review) => review.rating));
    const allWorst = low.every((review) => review.rating === worst);
    lines.push({
      rule: 'low_ratings',
      project: slug,
      section: 'reviews',
      severity: worst === 1 ? 'error' : 'warning',
      text: allWorst ? `${counted(low.length)} ${worst}-star ${low.length === 1 ? 'review' : 'reviews'}` : `${counted(low.length)} reviews at ${thresholds.lowRatingStars} stars or fewer`,
      value: low.length,
      threshold: thresholds.lowRatingCount,
      link: project.reviews.link,
    });
  }
  const events = project.errors?.events.value ?? null;
  const average = context.errorAverage;
  if (project.errors && events !== null && average !== null && average > 0) {
    const perDay = events / Math.max(1, context.days.current.length);
    if (perDay >= average * thresholds.errorSpikeFactor) {
      lines.push({
        rule: 'error_spike',
        project: slug,
        section: 'errors',
        severity: 'error',
        text: `Errors: ${Math.round(perDay / average)}× more events than the daily average of the last week`,
        value: Math.round((perDay / average) * 10) / 10,
        threshold: thresholds.errorSpikeFactor,
        link: project.errors.link,
      });
    }
  }
  const fresh = project.errors?.new.length ?? 0;
  if (project.errors && fresh >= thresholds.newErrorIssues) {
    lines.push({
      rule: 'new_errors',
      project: slug,
      section: 'errors',
      severity: 'warning',
      text: `${plural(fresh, 'new error issue')}, ${plural(project.errors.usersAffected, 'user')} affected`,
      value: fresh,
      threshold: thresholds.newErrorIssues,
      link: project.errors.link,
    });
  }
  // An outage still open needs the founder however short it is so far; the threshold decides for those that ended.
  for (const incident of project.uptime?.incidents ?? []) {
    if (!incident.open && incident.durationMinutes < thresholds.outageMinutes) continue;
    lines.push({
      rule: incident.open ? 'down_now' : 'long_outage',
      project: slug,
      section: 'uptime',
      severity: incident.open ? 'error' : 'warning',
      text: incident.open ? `${incident.title}: down for ${hours(incident.durationMinutes)}, still open` : `${incident.title}: was down ${hours(incident.durationMinutes)}`,
      value: incident.durationMinutes,
      threshold: incident.open ? 0 : thresholds.outageMinutes,
      link: incident.link,
    });
  }
  // A monitor the uptime service says is not up, with no open outage in the inbox (no webhook told of it).
  const open = (project.uptime?.incidents ?? []).filter((incident) => incident.open);
  for (const name of project.uptime?.down ?? []) {
    if (open.some((incident) => incident.title.includes(name))) continue;
    lines.push({ rule: 'down_now', project: slug, section: 'uptime', severity: 'error', text: `${name}: not up now`, value: 0, threshold: 0, link: project.uptime?.link ?? '' });
  }
  return lines.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

/** What a project's answers leave for the next briefing to compare with. */
export function snapshotOf(answers: ProjectAnswers, at: number): ProjectSnapshot {
  return {
    at,
    mrr: answers.revenue?.week.mrr ?? null,
    netWeek: answers.revenue?.week.netRevenue ?? null,
    activeSubscribers: answers.revenue?.week.activeSubscribers ?? null,
    errorEvents: answers.errors ? errorEventsOf(answers.errors) : null,
    referrers: (answers.analytics?.referrers ?? []).slice(0, TOP).map((referrer) => referrer.source),
    queries: (answers.seo?.queries ?? []).slice(0, TOP).map((query) => query.query),
  };
}
