import type { inferRouterInputs } from '@trpc/server';
import { z } from 'zod';
import { dumpSchema, historySchema, MAX_DUMP_BYTES, MAX_IMPORT_BYTES, ownerPasswordSchema, type DataResult, type HistoryCsv } from '@dash/contracts';
import type { AppRouter } from '../root.ts';

type Inputs = inferRouterInputs<AppRouter>;
/** "settings.get", "projects.update", …: every procedure of the app router. */
export type ProcedurePath = { [D in keyof Inputs]: `${D & string}.${keyof Inputs[D] & string}` }[keyof Inputs];

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestParts {
  /** Path parameters, decoded. */
  params: Record<string, string>;
  /** The query string; a repeated name keeps its last value. */
  query: Record<string, string>;
  /** The parsed JSON body, or undefined when there was none. */
  body: unknown;
}

/**
 * Where a part of the request is described from, for the OpenAPI document: the procedure's input itself (`'input'`),
 * one field of it (`{ field }`), or a schema of its own when the route reshapes the request (an import).
 */
export type RequestPart = 'input' | { field: string } | z.ZodType;

/**
 * How a route turns a request into its procedure's input (`build`), and which parts of the request that reads, so
 * the OpenAPI document says the same. Path parameters are always the input's fields of their name.
 */
export interface InputSource {
  build: (parts: RequestParts) => unknown;
  query?: RequestPart;
  body?: RequestPart;
}

/** A success header, as the OpenAPI document describes it. */
export interface HeaderDescription {
  description: string;
  schema: Record<string, unknown>;
  /** Sent on every success (false: only in some cases, as its description says). */
  always?: boolean;
}

/**
 * A route whose body or headers are not the procedure's output as it is: `respond` makes them, `body` says which
 * part of the output schema the body is (the whole output when absent), `headers` which headers it may set.
 */
export interface Answer {
  respond: (output: unknown) => { body: unknown; headers: Record<string, string> };
  body?: (output: z.ZodType) => z.ZodType;
  /** A media type other than JSON (the briefing email's `text/html`): `respond`'s body is then a string sent as it is. */
  mediaType?: string;
  /** `respond`'s body is JSON already encoded (and checked against `body`'s schema when it was): sent as it is. */
  encoded?: boolean;
  headers: Record<string, HeaderDescription>;
  /** One more sentence for the success's description. */
  description?: string;
}

/**
 * Who may call a route, beyond what the method asks of a token (a read token for GET, a write token otherwise; a
 * session may do both): `owner`, only a signed-in browser (or the open local dashboard), never an API token, and
 * with the password again where the procedure says so; `backup`, only BACKUP_SECRET as the bearer.
 */
export type RouteAccess = 'token' | 'owner' | 'backup';

/** The error statuses a procedure answers itself; those of the guards and the dispatcher are added to every route. */
export type ProcedureError = 404 | 409 | 502 | 503;

export interface RestRoute {
  method: Method;
  /** `/api/...`, with `:name` for a path parameter. */
  path: string;
  procedure: ProcedurePath;
  /** Builds the procedure's input; the procedure's own zod schema then validates it. */
  input: InputSource;
  /** One line: the reference's title for it and a generated client's comment. */
  summary: string;
  /** The operation's id when two routes serve one procedure (the id is the procedure's otherwise: `briefingPreview`). */
  operationId?: string;
  /** Longer notes for the reference, when the summary is not enough. */
  description?: string;
  /** `token` (a read or write token, or a session) unless said otherwise. */
  access?: RouteAccess;
  /** What its procedure may fail with besides bad input (400) and the guards' 401/403/429/503. */
  errors?: readonly ProcedureError[];
  /** 200 unless said otherwise. */
  status?: number;
  /** The body and headers, when they are not the procedure's output as it is. */
  answer?: Answer;
  /** The largest body the route reads; `MAX_BODY_BYTES` when absent. */
  maxBodyBytes?: number;
  /**
   * A body that is not JSON (a CSV import): the request must say this media type, and `input.build` gets the body as
   * text. Never a form-like type (text/plain, form-encoded, multipart): those are what a cross-site form can send.
   */
  bodyMediaType?: 'text/csv';
}

const none: InputSource = { build: () => undefined };
const query: InputSource = { build: ({ query }) => query, query: 'input' };
const body: InputSource = { build: ({ body }) => body, body: 'input' };
const pathParams: InputSource = { build: ({ params }) => ({ ...params }) };

/** Header values are ASCII; an upstream's reason may not be. */
const headerText = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 300);

/**
 * A data procedure answers `{ data, meta }`: the body is SPEC.md's JSON (`data`), the freshness goes
 * in headers: `X-Cache: HIT|MISS|STALE`, when it was fetched, why it is stale, and any conversion.
 */
function dataResponse(output: unknown) {
  const { data, meta } = output as DataResult<unknown>;
  const headers: Record<string, string> = {};
  if (meta) {
    headers['x-cache'] = meta.cache;
    headers['x-cache-fetched-at'] = meta.fetchedAt;
    if (meta.staleReason) headers['x-cache-stale-reason'] = headerText(meta.staleReason);
    if (meta.failed) headers['x-upstream-failures'] = headerText(meta.failed.map((failure) => failure.error).join(' | '));
    if (meta.conversion) {
      const { from, to, rate } = meta.conversion;
      headers['x-currency-conversion'] = `${from}->${to} at ${rate} (exchangeRates in settings)`;
    }
  }
  return { body: data, headers };
}

const text = { type: 'string' };
/** The data routes' answer: `data` as the body, `meta` as the x-cache headers (none when not configured). */
const dataAnswer: Answer = {
  respond: dataResponse,
  body: (output) => (output as z.ZodObject<{ data: z.ZodType }>).shape.data,
  description:
    'The data, or `{ configured: false, integration, message }` when the integration is not set up for the project (or for any): ' +
    'that is an answer, not an error, and it comes without the cache headers.',
  headers: {
    'x-cache': { description: 'HIT (from the cache), MISS (fetched now) or STALE (the upstream failed; the last good answer).', schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE'] } },
    'x-cache-fetched-at': { description: 'When the oldest part of the answer was fetched from the upstream (ISO 8601).', schema: { type: 'string', format: 'date-time' } },
    'x-cache-stale-reason': { description: 'With STALE: why the answer could not be refreshed (the upstream\'s error, without secrets).', schema: text },
    'x-upstream-failures': { description: 'Projects left out of an all-projects answer because their upstream failed and nothing was cached.', schema: text },
    'x-currency-conversion': { description: 'Set when amounts were converted with the exchange rates in settings: `USD->CAD at 1.38 (exchangeRates in settings)`.', schema: text },
  },
};

/** GET /api/history's body: `history.readEncoded`'s JSON, encoded once per change of the history, not per request. */
const encodedHistory: Answer = {
  respond: (output) => ({ body: (output as { json: string }).json, headers: {} }),
  body: () => historySchema,
  encoded: true,
  headers: {},
};

/** The history's CSV as a download, named for its project, metric and days. */
const csvDownload: Answer = {
  respond: (output) => {
    const { csv, filename } = output as HistoryCsv;
    return { body: csv, headers: { 'content-disposition': `attachment; filename="${filename}"` } };
  },
  mediaType: 'text/csv',
  headers: { 'content-disposition': { description: 'attachment; filename="history-<project>[-<metric>]-<from>-to-<to>.csv"', schema: text, always: true } },
};

/** The export as a download, named for its day: `dashboard-export-2026-11-24.json`. */
function download(output: unknown) {
  const day = new Date().toISOString().slice(0, 10);
  return { body: output, headers: { 'content-disposition': `attachment; filename="dashboard-export-${day}.json"` } };
}
const downloadAnswer: Answer = {
  respond: download,
  headers: { 'content-disposition': { description: 'attachment; filename="dashboard-export-<day>.json"', schema: text, always: true } },
};
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
    'content-security-policy': { description: "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'", schema: text, always: true },
  },
};
const flag = (value: string | undefined) => value === '1' || value === 'true';

/** An import's body: the export as it was downloaded, or `{ password, dump }` (an export has no `dump` key). */
function importBody(body: unknown): { dump: unknown; password?: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('dump' in body)) return { dump: body };
  const { dump, password, ...rest } = body as Record<string, unknown>;
  // Anything else beside them goes to the procedure's strict schema, which names it.
  return { dump, ...(password === undefined ? {} : { password }), ...rest };
}
const importInput: InputSource = {
  // `?dryRun=1` answers what the import would do, writing nothing. The body is the export, or `{ password, dump }`
  // once a password is set (an import is the owner's).
  build: ({ body, query }) => ({ ...importBody(body), dryRun: flag(query.dryRun) }),
  query: z.object({ dryRun: z.enum(['1', 'true', '0', 'false']).optional().describe('1 or true: say what the import would do, and write nothing') }),
  body: z.union([dumpSchema, z.strictObject({ dump: dumpSchema, password: ownerPasswordSchema })]),
};

/** The spec's REST paths, each served by one procedure, with what the OpenAPI document says of it. */
export const restRoutes: readonly RestRoute[] = [
  { method: 'GET', path: '/api/settings', procedure: 'settings.get', input: none, summary: 'Read the tab order, widget layout, exchange rates and relay URL' },
  {
    method: 'POST',
    path: '/api/settings',
    procedure: 'settings.update',
    input: body,
    summary: 'Change settings; only the fields sent change',
    description:
      'Slots and configs merge key by key; null removes one. `widgetLayout.more` replaces the order of the row below the slots ' +
      '(widgets it leaves out follow in the default order; null restores that). A projectOrder naming an unknown project is refused.',
  },
  {
    method: 'GET',
    path: '/api/widgets',
    procedure: 'settings.widgets',
    input: query,
    errors: [404],
    summary: "The widgets a project's view (or All projects, without project) shows: the slots, then every other set-up widget in the row's order",
  },

  { method: 'GET', path: '/api/projects', procedure: 'projects.list', input: none, summary: 'List the projects in tab order' },
  { method: 'POST', path: '/api/projects', procedure: 'projects.create', input: body, status: 201, errors: [409], summary: 'Create a project (409 when the slug is taken)' },
  { method: 'GET', path: '/api/projects/:slug', procedure: 'projects.get', input: pathParams, errors: [404], summary: 'Read one project' },
  {
    method: 'PATCH',
    path: '/api/projects/:slug',
    procedure: 'projects.update',
    input: { build: (p) => ({ slug: p.params.slug, patch: p.body }), body: { field: 'patch' } },
    errors: [404],
    summary: "Change a project's name, color or integrations (null removes an integration)",
  },
  { method: 'DELETE', path: '/api/projects/:slug', procedure: 'projects.remove', input: pathParams, errors: [404], summary: 'Delete a project' },

  { method: 'GET', path: '/api/credentials', procedure: 'credentials.list', input: none, summary: 'List the keys that have stored credentials (never the values)' },
  {
    method: 'POST',
    path: '/api/credentials',
    procedure: 'credentials.save',
    input: body,
    summary: "Store a service's credentials, encrypted; SendGrid's (where our email goes) only by the owner, with the password once one is set",
  },
  { method: 'DELETE', path: '/api/credentials', procedure: 'credentials.remove', input: body, summary: "Remove a service's stored credentials" },
  {
    method: 'POST',
    path: '/api/credentials/test',
    procedure: 'credentials.test',
    input: body,
    errors: [404],
    summary: "Test credentials (the values sent, or the stored ones) with the service's lightest call",
  },

  { method: 'GET', path: '/api/database/config', procedure: 'database.config', input: none, errors: [503], summary: 'Which database is in use, and whether it is configured' },
  {
    method: 'POST',
    path: '/api/database/config',
    procedure: 'database.choose',
    input: body,
    access: 'owner',
    errors: [409, 502, 503],
    summary: 'Switch the database (the owner, with the password once one is set)',
  },
  { method: 'POST', path: '/api/database/test', procedure: 'database.test', input: body, access: 'owner', errors: [503], summary: 'Test a connection to a database' },
  {
    method: 'POST',
    path: '/api/database/migrate',
    procedure: 'database.migrate',
    input: none,
    access: 'owner',
    errors: [502, 503],
    summary: 'Create the tables (or, for the hosted providers that need it, answer the SQL to run)',
  },
  { method: 'GET', path: '/api/database/export', procedure: 'database.export', input: none, answer: downloadAnswer, summary: 'Export every stored setting as a download' },
  {
    method: 'POST',
    path: '/api/database/import',
    procedure: 'database.import',
    input: importInput,
    access: 'owner',
    maxBodyBytes: MAX_DUMP_BYTES,
    summary: 'Import an export (the owner, with the password once one is set); dryRun=1 only says what would change',
  },

  // Reads this computer's gcloud / Workspace CLI login files; local dashboards only.
  {
    method: 'POST',
    path: '/api/auth/cli-import',
    procedure: 'oauth.cliImport',
    input: none,
    errors: [404],
    summary: "Import Google's login from this computer's gcloud or Workspace CLI (local dashboards only)",
  },

  { method: 'GET', path: '/api/tokens', procedure: 'tokens.list', input: none, access: 'owner', summary: 'List the API tokens (never their secrets)' },
  {
    method: 'POST',
    path: '/api/tokens',
    procedure: 'tokens.create',
    input: body,
    status: 201,
    access: 'owner',
    summary: 'Create an API token; its secret is in this answer only (the owner, with the password once one is set)',
  },
  { method: 'DELETE', path: '/api/tokens/:id', procedure: 'tokens.remove', input: pathParams, access: 'owner', summary: 'Revoke an API token' },

  { method: 'GET', path: '/api/notifications', procedure: 'notifications.list', input: query, summary: 'List notifications, newest first, with filters and a cursor' },
  { method: 'GET', path: '/api/notifications/unread', procedure: 'notifications.unreadCount', input: none, summary: 'Count the unread notifications' },
  {
    method: 'GET',
    path: '/api/notifications/:id/events',
    procedure: 'notifications.events',
    input: pathParams,
    errors: [404],
    summary: "A notification's events in the order they happened, each with its own decision trace",
  },
  { method: 'POST', path: '/api/notifications/read', procedure: 'notifications.markRead', input: body, summary: 'Mark notifications read (some, or all)' },
  {
    method: 'GET',
    path: '/api/notifications/policy',
    procedure: 'notifications.policy',
    input: none,
    summary: 'Read the notification policy: preferences, rules, quiet hours, flap hold, pauses',
  },
  { method: 'PUT', path: '/api/notifications/preferences', procedure: 'notifications.savePreferences', input: body, summary: 'Replace the notification preferences' },
  { method: 'PUT', path: '/api/notifications/rules', procedure: 'notifications.saveRules', input: body, summary: 'Replace the notification rules' },
  { method: 'PUT', path: '/api/notifications/quiet-hours', procedure: 'notifications.saveQuietHours', input: body, summary: 'Replace the quiet hours' },
  { method: 'PUT', path: '/api/notifications/flap-hold', procedure: 'notifications.saveFlapHold', input: body, summary: "Set how long an uptime monitor's flapping is held (0-3600 s)" },
  { method: 'POST', path: '/api/notifications/pause', procedure: 'notifications.pause', input: body, summary: 'Pause notifications for a while, or resume them' },
  { method: 'POST', path: '/api/notifications/dry-run', procedure: 'notifications.dryRun', input: body, summary: 'Say what the policy would do with an event, on every channel, sending nothing' },
  { method: 'POST', path: '/api/notifications/snooze', procedure: 'notifications.snooze', input: body, summary: 'Snooze a notification until a time' },
  { method: 'POST', path: '/api/notifications/mute', procedure: 'notifications.mute', input: body, summary: 'Mute a subject (a monitor, a repository…) for a while' },
  { method: 'POST', path: '/api/relay/poll', procedure: 'relay.poll', input: none, errors: [502], summary: 'Poll the webhook relay now (`configured: false` when no relay URL is set)' },
  { method: 'GET', path: '/api/relay/status', procedure: 'relay.status', input: none, summary: "The relay poller's state: last poll, last error, events seen" },

  // POST takes BACKUP_SECRET as its bearer (checked before dispatch, with the other guards); GET the usual sign-in.
  {
    method: 'POST',
    path: '/api/backup',
    procedure: 'backup.run',
    input: none,
    access: 'backup',
    errors: [409],
    summary: "Refresh every project's cache now and answer the result (a cron's trigger)",
    description: 'Takes BACKUP_SECRET as its bearer and nothing else; without BACKUP_SECRET set the route is off (503). 409 while another process backs up.',
  },
  { method: 'GET', path: '/api/backup', procedure: 'backup.status', input: none, summary: 'What backup runs, what ran last, and the schedule' },

  {
    method: 'POST',
    path: '/api/alerts/send',
    procedure: 'alerts.send',
    input: body,
    errors: [502],
    summary: 'Send an email alert (health or custom; 10 an hour per token, 30 in all); `configured: false` when email is not set up',
  },
  { method: 'GET', path: '/api/alerts', procedure: 'alerts.status', input: none, summary: 'Where alerts go and what is missing (never the key)' },
  { method: 'POST', path: '/api/alerts/test', procedure: 'alerts.test', input: none, errors: [502], summary: 'Send a test email (one a minute)' },
  { method: 'GET', path: '/api/alerts/deliveries', procedure: 'alerts.deliveries', input: none, summary: 'The newest notification emails and how each went' },

  { method: 'GET', path: '/api/push/key', procedure: 'push.key', input: none, summary: 'The VAPID public key (base64url) a browser subscribes with as its applicationServerKey' },
  {
    method: 'POST',
    path: '/api/push/subscriptions',
    procedure: 'push.subscribe',
    input: body,
    status: 201,
    access: 'owner',
    summary: "Add a device for Web Push: the browser's PushSubscription JSON plus a name (the owner, with the password once one is set)",
    description:
      'The endpoint must be https (plain http only to a loopback address) and not a link-local or cloud-metadata address; keys.p256dh a P-256 point, keys.auth 16 bytes. Bad input is a 400 and stores nothing. The same endpoint again replaces its device.',
  },
  {
    method: 'GET',
    path: '/api/push/contact',
    procedure: 'push.contact',
    input: none,
    summary: 'Whether push services have a contact (the VAPID subject) and where it comes from; the addresses only for the owner',
  },
  {
    method: 'PUT',
    path: '/api/push/contact',
    procedure: 'push.saveContact',
    input: body,
    access: 'owner',
    summary: 'Save the email address push services may write to about our pushes (`{ email }`; `null` removes it)',
    description:
      'Used when VAPID_SUBJECT is not set, before the alert address and an https ORIGIN; without any contact every push is refused. Bad input is a 400 naming `email` and stores nothing.',
  },
  { method: 'GET', path: '/api/push/subscriptions', procedure: 'push.list', input: none, summary: 'The Web Push devices and how their pushes went (never their keys)' },
  { method: 'DELETE', path: '/api/push/subscriptions/:id', procedure: 'push.remove', input: pathParams, access: 'owner', summary: 'Remove a Web Push device' },
  {
    method: 'POST',
    path: '/api/push/test',
    procedure: 'push.test',
    input: body,
    access: 'owner',
    errors: [404],
    summary: 'Send a test push to every device (`{}`) or one (`{ id }`); one test a minute',
    description: "Each device's result: sent, retry (429/5xx, with retryAt from Retry-After), gone (404/410: the device is removed), or refused.",
  },
  { method: 'GET', path: '/api/channels', procedure: 'channels.list', input: none, summary: 'The chat and webhook connections and how their messages went (never a secret)' },
  {
    method: 'POST',
    path: '/api/channels',
    procedure: 'channels.add',
    input: body,
    status: 201,
    access: 'owner',
    summary: 'Add a Slack, Discord, Telegram, ntfy or signed-webhook connection (the owner, with the password once one is set)',
    description:
      "`destination` by kind: slack/discord `{ webhookUrl }`, telegram `{ botToken, chatId }`, ntfy `{ server?, topic, token? | username, password }`, webhook `{ url }`. A signed webhook's `secret` (whsec_…) is answered once. Bad input is a 400 and stores nothing.",
  },
  {
    method: 'PATCH',
    path: '/api/channels/:id',
    procedure: 'channels.update',
    input: { build: (p) => ({ ...(p.body as object), id: p.params.id }), body: 'input' },
    access: 'owner',
    errors: [404],
    summary: "Change a connection's name, floor or destination (a new host needs its secret again; the owner, with the password once one is set)",
  },
  { method: 'DELETE', path: '/api/channels/:id', procedure: 'channels.remove', input: pathParams, access: 'owner', summary: 'Remove a chat or webhook connection' },
  {
    method: 'POST',
    path: '/api/channels/:id/test',
    procedure: 'channels.test',
    input: pathParams,
    access: 'owner',
    errors: [404],
    summary: 'Send a test message to one connection now; one test a minute per connection',
    description: "The service's answer: sent, retry (429/5xx), gone (404/410: the connection needs attention) or refused (401/403 and the like).",
  },
  {
    method: 'GET',
    path: '/api/push/messages/:id',
    procedure: 'push.message',
    input: pathParams,
    errors: [404],
    summary: 'A sent push notification, by the id its push carried when it was too large to carry it whole (the service worker asks)',
  },

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

  {
    method: 'GET',
    path: '/api/history',
    procedure: 'history.readEncoded',
    input: query,
    answer: encodedHistory,
    operationId: 'historyRead',
    errors: [404],
    summary: 'A metric’s daily history for a project: one value per day, oldest first; a day without one is absent',
    description: '`from` and `to` (YYYY-MM-DD, inclusive) default to the year up to today. `late: true` marks a snapshot taken after its time (the dashboard was off then).',
  },
  {
    method: 'GET',
    path: '/api/history.csv',
    procedure: 'history.csv',
    input: query,
    answer: csvDownload,
    operationId: 'historyCsv',
    errors: [404],
    summary: 'A project’s history as CSV (`date,project,metric,value,unit`): one metric, or every one without `metric`',
  },
  {
    method: 'GET',
    path: '/api/history/series',
    procedure: 'history.series',
    input: query,
    errors: [404],
    summary: 'Several metrics’ history at once: one project’s or (no `project`) every project’s; `metrics` a comma-separated list, or all',
  },
  { method: 'GET', path: '/api/history/metrics', procedure: 'history.metrics', input: query, errors: [404], summary: 'Every metric per project: its unit, whether it is set up, whether its provider gives past days, and what is kept' },
  { method: 'POST', path: '/api/history/snapshot', procedure: 'history.snapshot', input: none, errors: [409], summary: 'Take today’s snapshot now (a second the same day replaces the first’s values)' },
  {
    method: 'POST',
    path: '/api/history/backfill',
    procedure: 'history.backfill',
    input: body,
    errors: [404, 409],
    summary: 'Read back the days each provider still keeps, for one project or all (done by itself when an integration is connected)',
  },
  {
    method: 'POST',
    path: '/api/history/import',
    procedure: 'history.import',
    input: { build: ({ body }) => ({ csv: typeof body === 'string' ? body : '' }), body: z.string().meta({ description: 'CSV: `date,project,metric,value,unit`' }) },
    bodyMediaType: 'text/csv',
    access: 'owner',
    maxBodyBytes: MAX_IMPORT_BYTES,
    summary: 'Import history from CSV (`date,project,metric,value,unit`); a bad row is a 400 naming its line and nothing is stored',
  },
  { method: 'GET', path: '/api/history/settings', procedure: 'history.settings', input: none, summary: 'When the daily snapshot is taken, the last one, the next, and how many rows are kept' },
  { method: 'PUT', path: '/api/history/schedule', procedure: 'history.saveSchedule', input: body, summary: 'Set the daily snapshot’s local time and time zone' },

  {
    method: 'GET',
    path: '/api/metric-alerts',
    procedure: 'metricAlerts.list',
    input: query,
    errors: [404],
    summary: 'The change alert rules of every project (or one, `?project=`), the built-in unusual ones included',
  },
  {
    method: 'POST',
    path: '/api/metric-alerts',
    procedure: 'metricAlerts.create',
    input: body,
    status: 201,
    access: 'owner',
    errors: [404],
    summary: 'Add a rule: `{ project, metric, params: { kind: threshold | change | unusual, … }, severity?, enabled? }`',
  },
  {
    method: 'PATCH',
    path: '/api/metric-alerts/:id',
    procedure: 'metricAlerts.update',
    input: { build: (p) => ({ ...(p.body as object), id: p.params.id }), body: 'input' },
    access: 'owner',
    errors: [404],
    summary: 'Change a rule’s params, severity or whether it is on (a built-in rule too)',
  },
  { method: 'DELETE', path: '/api/metric-alerts/:id', procedure: 'metricAlerts.remove', input: pathParams, access: 'owner', errors: [404], summary: 'Delete a rule (a built-in one is switched off instead)' },
  {
    method: 'POST',
    path: '/api/metric-alerts/preview',
    procedure: 'metricAlerts.preview',
    input: body,
    errors: [404],
    summary: 'What a rule would have said over the last 90 days (or `days`) of the history: each alert, reminder and return to range',
  },

  {
    method: 'GET',
    path: '/api/deliveries',
    procedure: 'deliveries.list',
    input: query,
    summary: 'Every webhook taken in (relay polls and the local route), newest first, with what it became; filters and cursor paging',
    description:
      'Filters: `integration`, `outcome` (notified, threaded, duplicate, ignored, invalid), `since` and `until` (ISO 8601), `q` (text in the title, event type, delivery id or source event id), `notification` (the rows that became or joined it). `limit` 1-200 (50). Pass `nextCursor` back as `cursor` for the next, older page.',
  },
  {
    method: 'GET',
    path: '/api/deliveries/refusals',
    procedure: 'deliveries.refusals',
    input: query,
    summary: 'What the relay and the local route turned away, per hour, integration and reason (the last 24 hours, or since `since`), with what to check',
  },
  {
    method: 'GET',
    path: '/api/deliveries/:id',
    procedure: 'deliveries.get',
    input: pathParams,
    errors: [404],
    summary: 'One delivery: what it became, the policy’s decision and its trace, its replays, and its body (the signed-in owner only, for 24 hours)',
  },
  {
    method: 'POST',
    path: '/api/deliveries/replay',
    procedure: 'deliveries.replay',
    input: body,
    access: 'owner',
    summary: 'Replay deliveries (`{ ids, requestId }`, 1-100) through today’s projects and policy, as new events marked replayed',
    description: 'The same `requestId` again answers the first replay’s rows with `repeated: true` and sends nothing. A row that carried no event (ignored, invalid) is listed in `skipped` with why.',
  },

  { method: 'GET', path: '/api/revenue', procedure: 'data.revenue', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Revenue: gross, MRR, net, subscribers and a daily chart' },
  { method: 'GET', path: '/api/ideas', procedure: 'data.ideas', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Ideas and bugs from the issue tracker' },
  {
    method: 'GET',
    path: '/api/shipping',
    procedure: 'data.shipping',
    input: query,
    answer: dataAnswer,
    errors: [404, 502],
    summary: 'Shipped work: merged pull requests, completed issues, production deploys',
  },
  { method: 'GET', path: '/api/errortracker', procedure: 'data.errortracker', input: query, answer: dataAnswer, errors: [404, 502], summary: "The error tracker's open issues" },
  { method: 'GET', path: '/api/health', procedure: 'data.health', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Uptime monitors and incidents' },
  { method: 'GET', path: '/api/storefront', procedure: 'data.storefront', input: query, answer: dataAnswer, errors: [404, 502], summary: 'The app store: app, reviews and versions' },
  { method: 'GET', path: '/api/analytics', procedure: 'data.analytics', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Web analytics: visitors, pages, referrers' },
  { method: 'GET', path: '/api/seo', procedure: 'data.seo', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Search analytics: queries and totals' },
  { method: 'GET', path: '/api/funding', procedure: 'data.funding', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Funding: balance, transactions and members' },
];
