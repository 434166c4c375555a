import { httpUrl, type AlertMonitor } from '@dash/contracts';
import escapeHtml from 'escape-html';
import { convert } from 'html-to-text';
import { sanitizeEmailHtml } from './sanitize.ts';

/** An email as the dashboard sends it: a subject, an HTML body and its plain-text part. */
export interface Email {
  subject: string;
  html: string;
  text: string;
  /** Threading headers (`Message-ID`, `In-Reply-To`, `References`) when the email answers another one. */
  headers?: Record<string, string>;
  /** SendGrid categories, for its activity feed. */
  categories?: string[];
}

/** A value fit for a subject line: one line, no control characters, not too long. */
const oneLine = (text: string, max = 120) => {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a subject line must not carry
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

const colours: Record<string, string> = { down: '#c62828', degraded: '#b26a00', up: '#2e7d32' };

/**
 * The health alert: a subject that says what is down (`[DOWN] api.formfox.app`, or how many), an HTML table and
 * the same in plain text. Every value is escaped; a URL is a link only when it is http(s).
 */
export function healthEmail(monitors: readonly AlertMonitor[]): Email {
  const down = monitors.filter((m) => m.status.toLowerCase() !== 'up');
  const shown = down.length > 0 ? down : monitors;
  const state = down.length > 0 ? (down.every((m) => m.status.toLowerCase() === 'degraded') ? 'DEGRADED' : 'DOWN') : 'UP';
  const what = shown.length === 1 ? oneLine(shown[0]?.name ?? '') : `${shown.length} monitors`;
  const subject = `[${state}] ${what}`;

  const rows = monitors
    .map((m) => {
      const href = httpUrl(m.url);
      const colour = colours[m.status.toLowerCase()] ?? '#555555';
      const url = href ? `<a href="${escapeHtml(href)}">${escapeHtml(m.url)}</a>` : escapeHtml(m.url);
      return (
        `<tr><td style="padding:4px 12px 4px 0;color:${colour};font-weight:600">${escapeHtml(m.status.toUpperCase())}</td>` +
        `<td style="padding:4px 12px 4px 0">${escapeHtml(m.name)}</td><td style="padding:4px 0">${url}</td></tr>`
      );
    })
    .join('');
  const headline = down.length > 0 ? `${down.length} of ${monitors.length} monitors ${down.length === 1 ? 'is' : 'are'} not up.` : 'Every monitor is up.';
  const html =
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:14px;color:#222">` +
    `<p>${escapeHtml(headline)}</p><table style="border-collapse:collapse">${rows}</table>` +
    `<p style="color:#777;font-size:12px">Sent by your founder dashboard.</p></body></html>`;
  const text = [headline, '', ...monitors.map((m) => `${m.status.toUpperCase().padEnd(9)} ${m.name}${m.url ? `  ${m.url}` : ''}`), '', 'Sent by your founder dashboard.'].join('\n');
  return { subject, html, text, categories: ['health'] };
}

/** Who asked for a custom email through the API: an API token by its name, the signed-in owner, or the open local dashboard. */
export type EmailCaller = { via: 'token'; name: string } | { via: 'session' } | { via: 'open' };

/** The footer's sentence naming who sent a custom email; a token's name is anyone's text (one line, escaped in the HTML). */
export function sentThrough(caller: EmailCaller): string {
  if (caller.via === 'token') return `Sent through your founder dashboard's API by the token “${oneLine(caller.name, 80)}”.`;
  if (caller.via === 'session') return "Sent through your founder dashboard's API by its owner, signed in.";
  return "Sent through your founder dashboard's API from the local dashboard, which has no password.";
}

/**
 * A custom email: its HTML through the sanitizer's allow-list (sanitize.ts), the plain-text part made from what the
 * sanitizer kept, and, when `caller` is given (POST /api/alerts/send), a footer in both saying who sent it.
 */
export function customEmail(subject: string, html: string, caller?: EmailCaller): Email {
  const body = sanitizeEmailHtml(html);
  const footer = caller ? sentThrough(caller) : undefined;
  return {
    subject: oneLine(subject, 200),
    html: footer === undefined ? body : `${body}<p style="color:#777;font-size:12px">${escapeHtml(footer)}</p>`,
    text: footer === undefined ? plainText(body) : `${plainText(body)}\n\n${footer}`,
    categories: ['custom'],
  };
}

/** The plain-text part of an HTML body (links as `text [url]`, lists and tables kept readable). */
export const plainText = (html: string) => convert(html, { wordwrap: 100, selectors: [{ selector: 'img', format: 'skip' }] });

/** What a notification email needs from its outbox row. */
export interface NotificationMessage {
  purpose: 'first' | 'resolve' | 'repeat' | 'flap_start' | 'flap_end' | 'digest';
  message: { title: string; body: string; severity: string; url: string | null };
  /** The thread it belongs to (the inbox row), for mail clients to group its emails. */
  notificationId: string | null;
}

const severityPrefix: Record<string, string> = { error: '[ALERT] ', warning: '[WARNING] ', success: '[RECOVERED] ' };

/** A notification email's own subject: its title, marked by severity (a digest's as it is). */
export const notificationSubject = ({ message, purpose }: NotificationMessage): string =>
  purpose === 'digest' ? oneLine(message.title, 200) : `${severityPrefix[message.severity] ?? ''}${oneLine(message.title, 180)}`;

/**
 * A notification as an email: the outage, its recovery (a reply in the same thread: `Re:` the first email's subject,
 * and the same `References`: `thread` is the first email's row), a reminder, a flapping notice, or the digest after quiet hours. Every value escaped.
 */
export function notificationEmail(item: NotificationMessage, thread?: NotificationMessage): Email {
  const { message, purpose } = item;
  const subject = purpose === 'resolve' && thread ? `Re: ${notificationSubject(thread)}` : notificationSubject(item);
  const href = message.url ? httpUrl(message.url) : undefined;
  const lines = message.body.split('\n').filter((line) => line.trim() !== '');
  const html =
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:14px;color:#222">` +
    `<p style="font-size:16px;font-weight:600">${escapeHtml(message.title)}</p>` +
    (purpose === 'digest'
      ? `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`
      : lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('')) +
    (href ? `<p><a href="${escapeHtml(href)}">${escapeHtml(message.url ?? href)}</a></p>` : '') +
    `<p style="color:#777;font-size:12px">Sent by your founder dashboard's notifications.</p></body></html>`;
  const text = [message.title, '', ...lines.map((line) => (purpose === 'digest' ? `- ${line}` : line)), ...(message.url ? ['', message.url] : []), '', "Sent by your founder dashboard's notifications."].join('\n');
  // One reference per inbox row: its outage, reminders and recovery group as one conversation. A recovery replies only
  // to an email that was sent (told by the digest alone, it has none to answer).
  const headers = item.notificationId ? { References: `<notification-${item.notificationId}@founder-dashboard>` } : undefined;
  const replies = purpose === 'resolve' && thread !== undefined;
  return { subject, html, text, ...(headers ? { headers: replies ? { ...headers, 'In-Reply-To': headers.References } : headers } : {}), categories: ['notification', purpose] };
}
