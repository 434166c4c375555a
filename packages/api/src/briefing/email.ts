import type { Briefing, BriefingPart, BriefingPeriod, BriefingTrend } from '@dash/contracts';
import { addDays } from '@dash/connectors';
import escapeHtml from 'escape-html';
import type { Email } from '../alerts/index.ts';
import { dashboardUrl, sectionsOf } from './email-sections.ts';
import { againstText, barHeights, changeText, directionOf, isGoodChange, trendLine, trendValueText } from './trend.ts';

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

/** One line: no control characters (a subject line must not carry a line break). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a line must not carry
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

function when(ms: number, timezone: string, withTime = true): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    ...(withTime ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : {}),
  }).format(ms);
}

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const colours = { text: '#1f2328', muted: '#656d76', rule: '#d0d7de', error: '#b42318', warning: '#9a6700', link: '#0969da', good: '#1a7f37', bar: '#0969da', barNegative: '#b42318' };

function anchor(text: string, href: string | undefined): string {
  return href ? `<a href="${esc(href)}" style="color:${colours.link};text-decoration:underline">${esc(text)}</a>` : esc(text);
}

/** The 7 days of a weekly sparkline, oldest first, as "Mon 30 Nov" (UTC days, as the history keeps them). */
function sparkDays(last: string): string[] {
  return Array.from({ length: 7 }, (_, i) => {
    const day = addDays(last, i - 6);
    return new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' }).format(Date.parse(`${day}T00:00:00Z`));
  });
}

/** A sparkline's values with their days, as a caption and the text part say them: "Mon 30 Nov 1,020 · Tue 1 Dec 1,100 · …". */
const sparkCaption = (trend: BriefingTrend, days: readonly string[]) => (trend.spark ?? []).map((value, i) => `${days[i] ?? ''} ${trendValueText(trend, value)}`.trim()).join(' · ');

const BAR_HEIGHT = 32;
const BAR_WIDTH = 14;

/**
 * A weekly sparkline for mail clients: bars made of table cells (bgcolor and height, which Gmail, Outlook's Word engine
 * and Apple Mail all draw, with no image to block or fetch), hidden from screen readers, and under them the values
 * as plain text, which is what a screen reader (or a client that strips the styles) reads.
 */
function sparkChart(trend: BriefingTrend, days: readonly string[]): string {
  const values = trend.spark ?? [];
  if (values.length === 0) return '';
  const heights = barHeights(trend, values, BAR_HEIGHT);
  const bars = values
    .map((value, i) => {
      const colour = value < 0 ? colours.barNegative : colours.bar;
      const height = heights[i] ?? 1;
      return (
        `<td valign="bottom" width="${BAR_WIDTH + 3}" height="${BAR_HEIGHT}" style="width:${BAR_WIDTH + 3}px;height:${BAR_HEIGHT}px;padding:0;vertical-align:bottom">` +
        `<table role="presentation" width="${BAR_WIDTH}" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse"><tr>` +
        `<td width="${BAR_WIDTH}" height="${height}" bgcolor="${colour}" style="width:${BAR_WIDTH}px;height:${height}px;background-color:${colour};font-size:1px;line-height:1px;mso-line-height-rule:exactly">&nbsp;</td>` +
        `</tr></table></td>`
      );
    })
    .join('');
  const caption = `${trend.label}, ${days[0] ?? ''} – ${days.at(-1) ?? ''}: ${sparkCaption(trend, days)}`;
  return (
    `<table role="presentation" aria-hidden="true" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;margin:4px 0 2px"><tr>${bars}</tr></table>` +
    `<div style="font-size:11px;color:${colours.muted}">${esc(caption)}</div>`
  );
}

/** A project's trend lines against last week: HTML (a row of its section table) and the text part's lines. */
function trendBlock(trends: readonly BriefingTrend[], period: BriefingPeriod, last: string): { html: string; text: string[] } {
  if (trends.length === 0) return { html: '', text: [] };
  const days = sparkDays(last);
  const title = period === 'week' ? 'Against the week before' : 'Against the same day last week';
  const lines = trends.map((trend) => {
    const value = trend.value === null ? `nothing kept for ${period === 'week' ? 'the last 7 days' : 'the last day'}` : trendValueText(trend, trend.value);
    const change = changeText(trend);
    const good = isGoodChange(trend);
    const colour = good === null ? colours.muted : good ? colours.good : colours.error;
    const arrow = { up: '▲', down: '▼', flat: '■' }[directionOf(trend)];
    const against = againstText(period);
    const comparison =
      trend.previous === null
        ? `<span style="color:${colours.muted}">no history yet for ${esc(against)}</span>`
        : (change ? `<span style="color:${colour};font-weight:600">${arrow} ${esc(change)}</span> ` : '') +
          `<span style="color:${colours.muted}">against ${esc(trendValueText(trend, trend.previous))} ${esc(against)}</span>`;
    return `<div style="padding:2px 0"><strong>${esc(trend.label)}</strong> ${esc(value)} ${comparison}</div>` + (period === 'week' ? sparkChart(trend, days) : '');
  });
  const text = trends.flatMap((trend) => [`  ${trendLine(trend, period)}`, ...(period === 'week' && trend.spark ? [`    ${days[0]} – ${days.at(-1)}: ${sparkCaption(trend, days)}`] : [])]);
  return {
    html:
      `<tr><td valign="top" style="padding:4px 12px 4px 0;width:90px;font-size:13px;color:${colours.muted}">${esc(title)}</td>` +
      `<td valign="top" style="padding:4px 0;font-size:14px;color:${colours.text}">${lines.join('')}</td></tr>`,
    text: [`${title}:`, ...text],
  };
}

/** The subject: the day (in the schedule's zone) and whether anything needs the founder. */
export function briefingSubject(briefing: Briefing, timezone: string): string {
  const day = when(Date.parse(briefing.window.until), timezone, false);
  const needs = briefing.needsYou.length;
  const quiet = briefing.period === 'week' ? 'a quiet week' : 'a quiet day';
  const what = needs === 0 ? (briefing.projects.length === 0 ? 'no projects yet' : quiet) : `${needs} ${needs === 1 ? 'thing needs' : 'things need'} you`;
  return oneLine(`${briefing.period === 'week' ? 'Weekly briefing to' : 'Briefing for'} ${day}: ${what}`);
}

/** The briefing email: subject, HTML (tables, inline styles, escaped) and its plain-text part. */
/**
 * The briefing with only the chosen parts (the email's schedule chooses them, as every destination does): what needs
 * you (and the quiet line), each product's figures (its trend, revenue, traffic, search, bugs, errors, uptime,
 * funding, and the sources that could not be read), what shipped, reviews, the open metric alerts.
 */
export function withParts(briefing: Briefing, parts: readonly BriefingPart[]): Briefing {
  const has = (part: BriefingPart) => parts.includes(part);
  const figures = has('figures');
  return {
    ...briefing,
    needsYou: has('needs_you') ? briefing.needsYou : [],
    quiet: has('needs_you') ? briefing.quiet : null,
    metricAlerts: has('metric_alerts') ? (briefing.metricAlerts ?? []) : [],
    failed: figures ? briefing.failed : [],
    projects: briefing.projects.map((project) => ({
      ...project,
      ...(figures ? {} : { revenue: null, traffic: null, search: null, bugs: null, errors: null, uptime: null, funding: null, trend: [] }),
      shipping: has('shipped') ? project.shipping : null,
      reviews: has('reviews') ? project.reviews : null,
    })),
  };
}

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
  const period = briefing.period ?? 'day';
  const title = period === 'week' ? 'Your weekly briefing' : 'Your morning briefing';
  const rows: string[] = [row(esc(title), `padding-top:24px;font-size:22px;font-weight:700;color:${colours.text}`), row(esc(span), `font-size:13px;color:${colours.muted}`)];
  const text: string[] = [title, span, ''];
  // The last complete day of the window: where the trends end.
  const last = briefing.days.current.at(-1) ?? briefing.window.until.slice(0, 10);

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

  const alerts = briefing.metricAlerts ?? [];
  if (alerts.length > 0) {
    rows.push(heading('Metric alerts'));
    text.push('METRIC ALERTS');
    for (const alert of alerts) {
      const href = dashboardUrl(origin, alert.link);
      const since = `since ${when(Date.parse(alert.since), timezone, false)}`;
      rows.push(row(`<strong>${esc(nameOf(alert.project))}</strong>: ${anchor(alert.title, href)} <span style="color:${colours.muted}">(${esc(since)})</span>`, `font-size:14px;color:${colours.text}`));
      text.push(`- ${nameOf(alert.project)}: ${alert.title} (${since})${href ? ` <${href}>` : ''}`);
    }
    text.push('');
  }

  for (const project of briefing.projects) {
    const sections = sectionsOf(project, origin);
    const trend = trendBlock(project.trend ?? [], period, last);
    rows.push(heading(project.name));
    text.push(project.name.toUpperCase());
    text.push(...trend.text);
    if (sections.length === 0 && trend.text.length === 0) {
      rows.push(row(esc('Nothing new.'), `font-size:14px;color:${colours.muted}`));
      text.push('Nothing new.', '');
      continue;
    }
    const sectionCells = sections
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
    const cells = trend.html + sectionCells;
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
