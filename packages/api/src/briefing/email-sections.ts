import { httpUrl, type BriefingProject, type Compared } from '@dash/contracts';

/**
 * What the briefing email says of each project, before any HTML: its sections (revenue, shipping, reviews, uptime,
 * funding…), each a list of plain lines with where they lead, and the figures' words (money, counts, changes).
 * email.ts renders them as HTML and as the plain-text part.
 */

/** A link of the briefing (`/?project=…#widget-…`) on the dashboard's address; undefined without one. */
export function dashboardUrl(origin: string | undefined, link: string): string | undefined {
  if (!origin) return undefined;
  try {
    return httpUrl(new URL(link, `${origin.replace(/\/+$/, '')}/`).href);
  } catch {
    return undefined;
  }
}

function money(amount: number | null, currency: string | null): string {
  if (amount === null) return 'unknown';
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency ?? 'USD', maximumFractionDigits: 2 }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency ?? ''}`.trim();
  }
}

const count = (n: number | null) => (n === null ? 'unknown' : new Intl.NumberFormat('en-US').format(n));

/** "+12%" / "−30%" against the figure before; empty when unknown. */
function change(figure: Compared): string {
  if (figure.change === null) return '';
  const percent = Math.round(figure.change * 100);
  return percent === 0 ? 'unchanged' : `${percent > 0 ? '+' : '−'}${Math.abs(percent)}%`;
}

const stars = (rating: number) => `${'★'.repeat(rating)}${'☆'.repeat(Math.max(0, 5 - rating))}`;

/** A line of a project's section: what it says, where it leads (dashboard or upstream), and sub-items. */
interface Line {
  text: string;
  href?: string | undefined;
  items?: { text: string; href?: string | undefined }[];
}

export interface Section {
  title: string;
  lines: Line[];
}

/** The most items a line lists. */
const TOP = 5;

export function sectionsOf(project: BriefingProject, origin: string | undefined): Section[] {
  const link = (to: string) => dashboardUrl(origin, to);
  const sections: Section[] = [];
  const { revenue, shipping, bugs, reviews, traffic, search, errors, uptime, funding } = project;
  if (revenue) {
    const lines: Line[] = [
      { text: `Revenue ${money(revenue.revenue.value, revenue.currency)} ${change(revenue.revenue)}`.trim(), href: link(revenue.link) },
      { text: `Last 7 days ${money(revenue.week.value, revenue.currency)} ${change(revenue.week)}`.trim() },
    ];
    if (revenue.netWeek.value !== null) lines.push({ text: `Net, last 7 days ${money(revenue.netWeek.value, revenue.currency)} ${change(revenue.netWeek)}`.trim() });
    if (revenue.mrr.value !== null) lines.push({ text: `MRR ${money(revenue.mrr.value, revenue.currency)} ${change(revenue.mrr)}`.trim() });
    if (revenue.activeSubscribers.value !== null) lines.push({ text: `${count(revenue.activeSubscribers.value)} subscribers ${change(revenue.activeSubscribers)}`.trim() });
    sections.push({ title: 'Revenue', lines });
  }
  if (shipping && shipping.items.length > 0) {
    sections.push({
      title: 'Shipped',
      lines: [
        {
          text: `${shipping.items.length} shipped`,
          href: link(shipping.link),
          items: shipping.items.slice(0, TOP).map((item) => ({ text: `${item.title} (${item.source})`, href: httpUrl(item.url) })),
        },
      ],
    });
  }
  if (bugs && (bugs.opened.length > 0 || bugs.closed > 0)) {
    sections.push({
      title: 'Bugs',
      lines: [
        {
          text: `${bugs.opened.length} opened, ${bugs.closed} closed`,
          href: link(bugs.link),
          items: bugs.opened.slice(0, TOP).map((bug) => ({ text: bug.title, href: httpUrl(bug.url) })),
        },
      ],
    });
  }
  if (reviews && reviews.items.length > 0) {
    sections.push({
      title: 'Reviews',
      lines: [
        {
          text: `${reviews.items.length} new`,
          href: link(reviews.link),
          items: reviews.items.slice(0, TOP).map((review) => ({ text: `${stars(review.rating)} ${review.title} (${review.territory})` })),
        },
      ],
    });
  }
  if (traffic) {
    const fresh = traffic.referrers.filter((referrer) => referrer.new);
    sections.push({
      title: 'Visitors',
      lines: [
        {
          text: `${count(traffic.visitors.value)} visitors ${change(traffic.visitors)}`.trim(),
          href: link(traffic.link),
          items: fresh.map((referrer) => ({ text: `New referrer: ${referrer.source} (${count(referrer.visitors)})` })),
        },
      ],
    });
  }
  const newQueries = search?.queries.filter((query) => query.new) ?? [];
  if (search && newQueries.length > 0) {
    sections.push({ title: 'Search', lines: [{ text: 'New queries', href: link(search.link), items: newQueries.map((query) => ({ text: `${query.query} (${count(query.clicks)} clicks)` })) }] });
  }
  if (errors && (errors.new.length > 0 || errors.active > 0)) {
    sections.push({
      title: 'Errors',
      lines: [
        {
          text: `${errors.new.length} new, ${errors.active} active again, ${count(errors.usersAffected)} users affected`,
          href: link(errors.link),
          items: errors.new.slice(0, TOP).map((issue) => ({ text: `${issue.title} (${issue.level}, ${count(issue.userCount)} users)`, href: httpUrl(issue.url) })),
        },
      ],
    });
  }
  if (uptime && (uptime.incidents.length > 0 || uptime.down.length > 0)) {
    const lines: Line[] = uptime.incidents.slice(0, TOP).map((incident) => ({
      text: `${incident.title}: ${incident.open ? 'down for' : 'was down'} ${incident.durationMinutes} min`,
      href: link(incident.link),
    }));
    if (uptime.down.length > 0) lines.push({ text: `Not up now: ${uptime.down.join(', ')}`, href: link(uptime.link) });
    sections.push({ title: 'Uptime', lines });
  }
  if (funding && funding.contributions > 0) {
    sections.push({ title: 'Funding', lines: [{ text: `${money(funding.received, funding.currency)} from ${funding.contributions} contributions`, href: link(funding.link) }] });
  }
  return sections;
}
