import { httpUrl, type Briefing, type BriefingMetricAlert, type BriefingPart, type BriefingPeriod, type BriefingProject, type BriefingTrend, type Compared } from '@dash/contracts';
import { formatValue } from '../../metric-alerts/format.ts';

/**
 * The briefing as every chat medium says it, before any medium's markup: a title, a one-line summary, what needs
 * you, the metric alerts, what could not be read, and a section per product, each a list of plain-text lines with
 * where they lead. Every medium renders this one outline (slack.ts, discord.ts, telegram.ts, ntfy.ts, push.ts) and
 * escapes every line for itself; the signed webhook carries the model's data instead (webhook.ts). Pure.
 */

/** What a medium's briefing is made from. */
export interface BriefingRender {
  briefing: Briefing;
  /** Which parts this destination gets. */
  parts: readonly BriefingPart[];
  /** A day (compared with the same day last week) or a week (with the week before). */
  period: BriefingPeriod;
  /** The dashboard's public address for links (`/briefing`, `/briefing?project=<slug>`); null: no links at all. */
  origin: string | null;
  /** Where the briefing's dates are read (the owner's time zone); UTC when absent. */
  timezone?: string | undefined;
}

/** A product's figure beside last week's, from the metric history (`percent` is 0-100, `change` a fraction). */
export type TrendLine = BriefingTrend;
/** An open metric-alert thread. */
export type OpenMetricAlert = BriefingMetricAlert;

/** A project's trend lines (none when the history has none for it). */
export const trendOf = (project: BriefingProject): TrendLine[] => project.trend ?? [];

/** The open metric alerts (none when the model was made without them). */
export const metricAlertsOf = (briefing: Briefing): OpenMetricAlert[] => briefing.metricAlerts ?? [];

/** A line as every medium shows it: plain text (each medium escapes it) and the dashboard page it opens (absolute), if any. */
export interface Line {
  text: string;
  href: string | null;
}

export interface Section {
  title: string;
  lines: Line[];
}

export interface ProductOutline {
  slug: string;
  name: string;
  /** `/briefing?project=<slug>` on the dashboard's address. */
  href: string | null;
  /** The project's colour as `#rrggbb`, when it has one. */
  color: string | null;
  sections: Section[];
}

export interface Outline {
  /** "Daily briefing · Thu 26 Nov". */
  title: string;
  /** The window: "Wed 25 Nov, 07:00 – Thu 26 Nov, 07:00 (UTC)". */
  span: string;
  /** One line for a phone's notification: "2 need you · 5 products · MRR $12,400 (+3 %)". */
  summary: string;
  /** `/briefing` on the dashboard's address. */
  href: string | null;
  /** Null when the part is not chosen; a quiet day is its one line. */
  needsYou: Section | null;
  metricAlerts: Section | null;
  failed: Section | null;
  products: ProductOutline[];
}

/** How many items of a list a chat message names (shipped, reviews, new errors); the page has the rest. */
export const TOP = 5;
/** A stranger's line is cut to this many characters in chat: the briefing is a summary, the page has the rest. */
export const LINE_MAX = 300;

/** A link of the dashboard (`/briefing`, `/?project=…#widget-…`) on its address, http(s) only; null without one. */
export function dashboardUrl(origin: string | null, link: string): string | null {
  if (!origin) return null;
  try {
    return httpUrl(new URL(link, `${origin.replace(/\/+$/, '')}/`).href) ?? null;
  } catch {
    return null;
  }
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what one line must not carry
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();

/** One line of a stranger's text, cut to `max` characters (never inside a surrogate pair) with an ellipsis. */
export function clip(text: string, max = LINE_MAX): string {
  const line = oneLine(text);
  if (line.length <= max) return line;
  let cut = '';
  for (const char of line) {
    if (cut.length + char.length > max - 1) break;
    cut += char;
  }
  return `${cut}…`;
}

function money(amount: number | null, currency: string | null | undefined): string {
  return amount === null ? 'unknown' : formatValue(amount, 'money', currency ?? 'USD');
}

const count = (n: number | null) => (n === null ? 'unknown' : formatValue(n, 'count'));

/** "+12 %", "−30 %", "unchanged"; empty when unknown. */
export function changeText(change: number | null): string {
  if (change === null || !Number.isFinite(change)) return '';
  const percent = Math.round(change * 100);
  return percent === 0 ? 'unchanged' : `${percent > 0 ? '+' : '−'}${Math.abs(percent)} %`;
}

const changeOf = (figure: Compared) => changeText(figure.change);
const withChange = (text: string, change: string) => (change ? `${text} (${change})` : text);

/** Eight levels of a block: a week's values as a line of characters every medium shows as text. */
const BARS = '▁▂▃▄▅▆▇█';
export function sparkline(values: readonly number[]): string {
  const finite = values.filter((value) => Number.isFinite(value));
  if (finite.length < 2) return '';
  const low = Math.min(...finite);
  const high = Math.max(...finite);
  return values.map((value) => (Number.isFinite(value) ? (BARS[high === low ? 3 : Math.round(((value - low) / (high - low)) * 7)] ?? '') : ' ')).join('');
}

function trendValue(trend: TrendLine, value: number | null): string {
  if (value === null) return 'unknown';
  return trend.unit === 'percent' ? `${value.toFixed(1)} %` : formatValue(value, trend.unit, trend.currency);
}

/** "MRR $12,400 (+3 % vs same day last week) ▁▃▅▇" */
function trendLine(trend: TrendLine, period: BriefingPeriod): string {
  const against = period === 'day' ? 'same day last week' : 'previous week';
  const change = changeText(trend.change);
  const spark = period === 'week' && trend.spark ? sparkline(trend.spark) : '';
  return [`${clip(trend.label, 60)} ${trendValue(trend, trend.value)}${change ? ` (${change} vs ${against})` : ''}`, spark].filter(Boolean).join(' ');
}

const plain = (text: string): Line => ({ text, href: null });
const stars = (rating: number) => `${'★'.repeat(rating)}${'☆'.repeat(Math.max(0, 5 - rating))}`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A project's figures: its trend lines first, then what the history does not cover, in the email's order. */
function figuresOf(project: BriefingProject, period: BriefingPeriod): Line[] {
  const trend = trendOf(project);
  const covered = new Set(trend.map((line) => line.metric));
  const lines: Line[] = trend.map((line) => plain(trendLine(line, period)));
  const { revenue, traffic, search, bugs, errors, uptime, funding } = project;
  if (revenue) {
    if (!covered.has('revenue.gross')) {
      const figure = period === 'day' ? revenue.revenue : revenue.week;
      lines.push(plain(withChange(`${period === 'day' ? 'Revenue' : 'Revenue, 7 days'} ${money(figure.value, revenue.currency)}`, changeOf(figure))));
    }
    if (!covered.has('revenue.mrr') && revenue.mrr.value !== null) lines.push(plain(withChange(`MRR ${money(revenue.mrr.value, revenue.currency)}`, changeOf(revenue.mrr))));
    if (!covered.has('revenue.subscribers') && revenue.activeSubscribers.value !== null) {
      lines.push(plain(withChange(`${count(revenue.activeSubscribers.value)} subscribers`, changeOf(revenue.activeSubscribers))));
    }
  }
  if (traffic) {
    if (!covered.has('analytics.visitors')) lines.push(plain(withChange(`${count(traffic.visitors.value)} visitors`, changeOf(traffic.visitors))));
    for (const referrer of traffic.referrers.filter((item) => item.new).slice(0, 3)) lines.push(plain(`New referrer: ${clip(referrer.source, 100)} (${count(referrer.visitors)})`));
  }
  for (const query of search?.queries.filter((item) => item.new).slice(0, 3) ?? []) lines.push(plain(`New search query: ${clip(query.query, 100)} (${plural(query.clicks ?? 0, 'click')})`));
  if (bugs && (bugs.opened.length > 0 || bugs.closed > 0)) lines.push(plain(`${plural(bugs.opened.length, 'bug')} opened, ${plural(bugs.closed, 'issue')} completed`));
  if (errors && (errors.new.length > 0 || errors.active > 0)) {
    lines.push(plain(`${plural(errors.new.length, 'new error issue')}, ${errors.active} active again, ${plural(errors.usersAffected, 'user')} affected`));
    for (const issue of errors.new.slice(0, 3)) lines.push(plain(`Error: ${clip(issue.title, 160)} (${clip(issue.level, 20)}, ${plural(issue.userCount, 'user')})`));
  }
  if (uptime) {
    for (const incident of uptime.incidents.slice(0, 3)) lines.push(plain(`${clip(incident.title, 120)}: ${incident.open ? 'down for' : 'was down'} ${incident.durationMinutes} min`));
    if (uptime.down.length > 0) lines.push(plain(`Not up now: ${clip(uptime.down.join(', '), 200)}`));
  }
  if (funding && funding.contributions > 0) lines.push(plain(`Funding ${money(funding.received, funding.currency)} from ${plural(funding.contributions, 'contribution')}`));
  return lines.length > 0 ? lines : [plain('Nothing new.')];
}

function sectionsOf(project: BriefingProject, input: BriefingRender): Section[] {
  const sections: Section[] = [];
  const { parts, period } = input;
  if (parts.includes('figures')) sections.push({ title: 'Figures', lines: figuresOf(project, period) });
  const shipped = project.shipping?.items ?? [];
  if (parts.includes('shipped') && shipped.length > 0) {
    const lines = shipped.slice(0, TOP).map((item) => plain(`${clip(item.title)} (${clip(item.source, 40)})`));
    if (shipped.length > TOP) lines.push(plain(`and ${shipped.length - TOP} more`));
    sections.push({ title: `Shipped (${shipped.length})`, lines });
  }
  const reviews = project.reviews?.items ?? [];
  if (parts.includes('reviews') && reviews.length > 0) {
    const lines = reviews.slice(0, TOP).map((review) => plain(`${stars(review.rating)} ${clip(review.title)} (${clip(review.territory, 10)})`));
    if (reviews.length > TOP) lines.push(plain(`and ${reviews.length - TOP} more`));
    sections.push({ title: `Reviews (${reviews.length})`, lines });
  }
  return sections;
}

function dateLabel(iso: string, timezone: string, withTime: boolean): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(withTime ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : {}),
  }).format(Date.parse(iso));
}

/** MRR across the products in one currency, against the history's (or the last briefing's) figure; undefined otherwise. */
function totalMrr(projects: readonly BriefingProject[]): string | undefined {
  const figures = projects.flatMap((project) => {
    const trend = trendOf(project).find((line) => line.metric === 'revenue.mrr');
    if (trend && trend.value !== null) return [{ value: trend.value, previous: trend.previous, currency: trend.currency ?? project.revenue?.currency ?? 'USD' }];
    const mrr = project.revenue?.mrr;
    return mrr && mrr.value !== null && project.revenue ? [{ value: mrr.value, previous: mrr.previous, currency: project.revenue.currency }] : [];
  });
  const [first] = figures;
  if (!first || figures.some((figure) => figure.currency !== first.currency)) return undefined;
  const value = figures.reduce((sum, figure) => sum + figure.value, 0);
  const previous = figures.every((figure) => figure.previous !== null) ? figures.reduce((sum, figure) => sum + (figure.previous ?? 0), 0) : null;
  const change = previous === null || previous === 0 ? null : (value - previous) / previous;
  return withChange(`MRR ${money(value, first.currency)}`, changeText(change));
}

/** "2 need you · 5 products · MRR $12,400 (+3 %)", with what the destination's parts hold. */
function summaryOf(input: BriefingRender, alerts: readonly OpenMetricAlert[]): string {
  const { briefing, parts } = input;
  const words: string[] = [];
  const needs = briefing.needsYou.length;
  if (parts.includes('needs_you')) words.push(needs === 0 ? 'Nothing needs you' : `${needs} need${needs === 1 ? 's' : ''} you`);
  words.push(plural(briefing.projects.length, 'product'));
  if (parts.includes('figures')) {
    const mrr = totalMrr(briefing.projects);
    if (mrr) words.push(mrr);
  }
  const shipped = briefing.projects.reduce((sum, project) => sum + (project.shipping?.items.length ?? 0), 0);
  if (parts.includes('shipped') && shipped > 0) words.push(`${shipped} shipped`);
  const reviews = briefing.projects.reduce((sum, project) => sum + (project.reviews?.items.length ?? 0), 0);
  if (parts.includes('reviews') && reviews > 0) words.push(plural(reviews, 'new review'));
  if (parts.includes('metric_alerts') && alerts.length > 0) words.push(plural(alerts.length, 'metric alert'));
  return words.join(' · ');
}

/** The briefing as every chat medium says it, for the destination's parts and period. */
export function outline(input: BriefingRender): Outline {
  const { briefing, parts, period, origin } = input;
  const timezone = input.timezone ?? 'UTC';
  const names = new Map(briefing.projects.map((project) => [project.slug, project.name]));
  const nameOf = (slug: string) => clip(names.get(slug) ?? slug, 120);
  const alerts = metricAlertsOf(briefing);
  const link = (to: string) => dashboardUrl(origin, to);

  let needsYou: Section | null = null;
  if (parts.includes('needs_you')) {
    const lines = briefing.needsYou.map((line) => ({ text: `${line.severity === 'error' ? '●' : '▲'} ${nameOf(line.project)}: ${clip(line.text)}`, href: link(line.link) }));
    needsYou = { title: 'Needs you', lines: lines.length > 0 ? lines : [plain(clip(briefing.quiet ?? 'Nothing needs you.'))] };
  }
  const metricAlerts: Section | null =
    parts.includes('metric_alerts') && alerts.length > 0
      ? {
          title: `Metric alerts (${alerts.length})`,
          lines: alerts.map((alert) => ({ text: `${nameOf(alert.project)}: ${clip(alert.title)} (since ${dateLabel(alert.since, timezone, false)})`, href: link(alert.link) })),
        }
      : null;
  const failed: Section | null =
    parts.includes('figures') && briefing.failed.length > 0
      ? { title: 'Not read this time', lines: briefing.failed.map((failure) => plain(`${nameOf(failure.project)} · ${failure.section}: ${clip(failure.error, 200)}`)) }
      : null;
  const products = briefing.projects
    .map((project) => ({
      slug: project.slug,
      name: clip(project.name, 200),
      href: link(`/briefing?project=${encodeURIComponent(project.slug)}`),
      color: project.color !== null && /^#[0-9a-fA-F]{6}$/.test(project.color) ? project.color : null,
      sections: sectionsOf(project, input),
    }))
    .filter((product) => product.sections.length > 0);

  return {
    title: `${period === 'day' ? 'Daily' : 'Weekly'} briefing · ${dateLabel(briefing.window.until, timezone, false)}`,
    span: `${dateLabel(briefing.window.since, timezone, true)} – ${dateLabel(briefing.window.until, timezone, true)} (${timezone})`,
    summary: summaryOf(input, alerts),
    href: link('/briefing'),
    needsYou,
    metricAlerts,
    failed,
    products,
  };
}

/** "and 4 more products: open the briefing" */
export const moreProducts = (count: number) => `and ${plural(count, 'more product')}: open the briefing`;
