import { body, none, query, textSchema, type Answer, type RestRoute } from '../route.ts';

/** The routes of the morning briefing: the page's, the email's schedule and preview, and the other destinations'. */

/**
 * The briefing email's HTML as a page of its own, to open in a browser or frame in settings. Every value in it is
 * escaped; its CSP still allows nothing but its inline styles (no script, no request anywhere), and only this
 * dashboard may frame it.
 */
const emailDocument: Answer = {
  respond: (output) => ({
    body: (output as { html: string }).html,
    headers: { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'", 'x-frame-options': 'SAMEORIGIN' },
  }),
  mediaType: 'text/html',
  description: 'The HTML part of the email itself, as a page (it loads nothing and runs nothing)',
  headers: {
    'content-security-policy': { description: "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'", schema: textSchema, always: true },
  },
};

export const briefingRoutes: readonly RestRoute[] = [
  {
    method: 'GET',
    path: '/api/briefing',
    procedure: 'briefing.get',
    input: query,
    errors: [404],
    summary: 'The morning briefing: what changed since the last one across every product, and what needs you',
  },
  { method: 'GET', path: '/api/briefing/status', procedure: 'briefing.status', input: none, summary: "Whether today's briefing is unread" },
  { method: 'POST', path: '/api/briefing/read', procedure: 'briefing.markRead', input: body, summary: 'Mark the briefing read up to its window’s end (the next one starts there)' },
  { method: 'GET', path: '/api/briefing/thresholds', procedure: 'briefing.thresholds', input: none, summary: 'The thresholds of the briefing’s "needs you" lines' },
  { method: 'PUT', path: '/api/briefing/thresholds', procedure: 'briefing.saveThresholds', input: body, summary: 'Replace the thresholds of the briefing’s "needs you" lines' },
  {
    method: 'GET',
    path: '/api/briefing/settings',
    procedure: 'briefing.settings',
    input: none,
    summary: 'The briefing’s settings: thresholds, the email’s schedule, whether email can be offered, the next and last sends',
  },
  { method: 'PUT', path: '/api/briefing/schedule', procedure: 'briefing.saveSchedule', input: body, summary: 'Set when the briefing email goes out (local time, zone, weekdays)' },
  { method: 'GET', path: '/api/briefing/preview', procedure: 'briefing.preview', input: none, summary: 'The briefing email as it would be sent now: subject, HTML and text' },
  {
    method: 'GET',
    path: '/api/briefing/preview.html',
    procedure: 'briefing.preview',
    input: none,
    answer: emailDocument,
    operationId: 'briefingPreviewHtml',
    summary: 'The briefing email’s HTML as a page, to open or frame',
  },
  { method: 'POST', path: '/api/briefing/test', procedure: 'briefing.sendTest', input: none, errors: [502], summary: 'Send a test briefing email now (one a minute)' },
  {
    method: 'GET',
    path: '/api/briefing/destinations',
    procedure: 'briefingDestinations.list',
    input: none,
    summary: 'Where the briefing goes besides its page: every chat connection and push device, its schedule, parts, next and last send',
  },
  {
    method: 'PUT',
    path: '/api/briefing/destinations/:id',
    procedure: 'briefingDestinations.save',
    input: { build: (p) => ({ ...(p.body as object), id: p.params.id }), body: 'input' },
    access: 'owner',
    summary: 'Set one destination’s schedule (off, daily at a time, weekly on a day at a time, in the owner’s zone) and its parts',
    description: 'The id is `chat:<connection id>` or `push:<device id>`. A time already past today starts at the next one. Bad input, or a destination there is not, is a 400 naming the field, and nothing is stored.',
  },
  {
    method: 'POST',
    path: '/api/briefing/send',
    procedure: 'briefingDestinations.send',
    input: body,
    access: 'owner',
    errors: [502],
    summary: 'Send the briefing now to one destination (`{ destination, period? }`; one a minute)',
    description: 'Nothing is recorded against the destination’s schedule. A service refusing is a 502 with its words and how many of the briefing’s messages went.',
  },
];
