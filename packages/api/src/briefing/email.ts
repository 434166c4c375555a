import { httpUrl, type Briefing, type BriefingProject, type Compared } from '@dash/contracts';
import escapeHtml from 'escape-html';
import type { Email } from '../alerts/index.ts';

/**
 * The briefing as an email, for mail clients: one centred table, inline styles only (no <style>, no classes: Gmail
 * and Outlook drop them), every value escaped (project names, titles, reviews and referrers come from people and
 * upstreams), links absolute (the dashboard's public address) and http(s) only, and a plain-text part that says the
 * same in readable lines. "Needs you" comes first; a quiet day is one line; a source that could not be read is named.
 */

export interface BriefingEmailOptions {
  /** The dashboard's public origin (ORIGIN, or the loopback address it listens on); without it, no links. */
  origin: string | undefined;
  /** The schedule's time zone: the dates and times of the email are read there. */
  timezone: string;
}

const esc = (value: string | number) => escapeHtml(String(value));

/** A link of the briefing (`/?project=…#widget-…`) on the dashboard's address; undefined without one. */
function dashboardUrl(origin: string | undefined, link: string): string | undefined {
  if (!origin) return undefined;
  try {
    return httpUrl(new URL(link, `${origin.replace(/\/+$/, '')}/`).href);
  } catch {
    return undefined;
  }
}

/** One line: no control characters (a subject line must not carry a line break). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a line must not carry
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

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

function when(ms: number, timezone: string, withTime = true): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(withTime ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : {}),
  }).format(ms);
}

const stars = (rating: number) => `${'★'.repeat(rating)}${'☆'.repeat(Math.max(0, 5 - rating))}`;

/** A line of a project's section: what it says, where it leads (dashboard or upstream), and sub-items. */
interface Line {
  text: string;
  href?: string | undefined;
  items?: { text: string; href?: string | undefined }[];
}

interface Section {
  title: string;
  lines: Line[];
}

const TOP = 5;

function sectionsOf(project: BriefingProject, origin: string | undefined): Section[] {
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

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const colours = { text: '#1f2328', muted: '#656d76', rule: '#d0d7de', error: '#b42318', warning: '#9a6700', link: '#0969da' };

function anchor(text: string, href: string | undefined): string {
  return href ? `<a href="${esc(href)}" style="color:${colours.link};text-decoration:underline">${esc(text)}</a>` : esc(text);
}

/** The subject: the day (in the schedule's zone) and whether anything needs the founder. */
export function briefingSubject(briefing: Briefing, timezone: string): string {
  const day = when(Date.parse(briefing.window.until), timezone, false);
  const needs = briefing.needsYou.length;
  const what = needs === 0 ? (briefing.projects.length === 0 ? 'no projects yet' : 'a quiet day') : `${needs} ${needs === 1 ? 'thing needs' : 'things need'} you`;
  return oneLine(`Briefing for ${day}: ${what}`);
}

/** The briefing email: subject, HTML (tables, inline styles, escaped) and its plain-text part. */
export function briefingEmail(briefing: Briefing, options: BriefingEmailOptions): Email {
  const { origin, timezone } = options;
  const subject = briefingSubject(briefing, timezone);
  const names = new Map(briefing.projects.map((project) => [project.slug, project.name]));
  const nameOf = (slug: string) => names.get(slug) ?? slug;
  const span = `${when(Date.parse(briefing.window.since), timezone)} – ${when(Date.parse(briefing.window.until), timezone)} (${timezone})`;
  const page = dashboardUrl(origin, '/briefing');
  // Settings → Briefing, where the schedule is.
  const settings = dashboardUrl(origin, '/settings/briefing');

  // HTML: rows of one 600px table.
  const row = (inner: string, style = '') => `<tr><td style="padding:6px 24px;${style}">${inner}</td></tr>`;
  const heading = (text: string) => row(esc(text), `padding-top:18px;font-size:13px;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:${colours.muted};border-bottom:1px solid ${colours.rule}`);
  const rows: string[] = [
    row(esc('Your morning briefing'), `padding-top:24px;font-size:22px;font-weight:700;color:${colours.text}`),
    row(esc(span), `font-size:13px;color:${colours.muted}`),
  ];
  const text: string[] = ['Your morning briefing', span, ''];

  if (briefing.needsYou.length > 0) {
    rows.push(heading('Needs you'));
    text.push('NEEDS YOU');
    for (const line of briefing.needsYou) {
      const colour = line.severity === 'error' ? colours.error : colours.warning;
      const href = dashboardUrl(origin, line.link);
      rows.push(
        row(
          `<span style="color:${colour};font-weight:700">${line.severity === 'error' ? '●' : '▲'}</span> ` +
            `<strong>${esc(nameOf(line.project))}</strong>: ${anchor(line.text, href)}`,
          `font-size:15px;color:${colours.text}`,
        ),
      );
      text.push(`- ${nameOf(line.project)}: ${line.text}${href ? ` <${href}>` : ''}`);
    }
    text.push('');
  } else if (briefing.quiet) {
    rows.push(row(esc(briefing.quiet), `padding-top:16px;font-size:15px;color:${colours.text}`));
    text.push(briefing.quiet, '');
  }

  if (briefing.failed.length > 0) {
    rows.push(heading('Could not be read'));
    text.push('COULD NOT BE READ');
    for (const failure of briefing.failed) {
      const what = `${nameOf(failure.project)} · ${failure.section}: ${failure.error}`;
      rows.push(row(esc(what), `font-size:13px;color:${colours.error}`));
      text.push(`- ${what}`);
    }
    text.push('');
  }

  for (const project of briefing.projects) {
    const sections = sectionsOf(project, origin);
    rows.push(heading(project.name));
    text.push(project.name.toUpperCase());
    if (sections.length === 0) {
      rows.push(row(esc('Nothing new.'), `font-size:14px;color:${colours.muted}`));
      text.push('Nothing new.', '');
      continue;
    }
    const cells = sections
      .map((section) => {
        const lines = section.lines
          .map((line) => {
            const items = (line.items ?? []).map((item) => `<div style="padding:2px 0 0 12px;color:${colours.muted}">${anchor(item.text, item.href)}</div>`).join('');
            return `<div>${anchor(line.text, line.href)}</div>${items}`;
          })
          .join('');
        return (
          `<tr><td valign="top" style="padding:4px 12px 4px 0;width:90px;font-size:13px;color:${colours.muted}">${esc(section.title)}</td>` +
          `<td valign="top" style="padding:4px 0;font-size:14px;color:${colours.text}">${lines}</td></tr>`
        );
      })
      .join('');
    rows.push(row(`<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse">${cells}</table>`));
    for (const section of sections) {
      for (const line of section.lines) {
        text.push(`${section.title}: ${line.text}${line.href ? ` <${line.href}>` : ''}`);
        for (const item of line.items ?? []) text.push(`  - ${item.text}${item.href ? ` <${item.href}>` : ''}`);
      }
    }
    text.push('');
  }

  const footer = [
    page ? `Open it on the dashboard: ${anchor(page, page)}` : 'Open it on the dashboard, under Briefing.',
    settings ? `Change when it comes: ${anchor('Settings', settings)}` : 'Change when it comes in Settings.',
  ];
  rows.push(row(footer.join('<br>'), `padding:18px 24px 24px;font-size:12px;color:${colours.muted};border-top:1px solid ${colours.rule}`));
  text.push(page ? `Open it on the dashboard: ${page}` : 'Open it on the dashboard, under Briefing.', settings ? `Change when it comes: ${settings}` : 'Change when it comes in Settings.');

  const html =
    '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${esc(subject)}</title></head>` +
    `<body style="margin:0;padding:0;background:#f6f8fa;${FONT}">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f6f8fa"><tr><td align="center" style="padding:16px 8px">` +
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background:#ffffff;border:1px solid ${colours.rule};border-collapse:collapse;${FONT};line-height:1.45">` +
    rows.join('') +
    '</table></td></tr></table></body></html>';
  return { subject, html, text: text.join('\n'), categories: ['briefing'] };
}
