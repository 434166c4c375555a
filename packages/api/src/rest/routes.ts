import type { inferRouterInputs } from '@trpc/server';
import { MAX_DUMP_BYTES, type DataResult } from '@dash/contracts';
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

export interface RestRoute {
  method: Method;
  /** `/api/...`, with `:name` for a path parameter. */
  path: string;
  procedure: ProcedurePath;
  /** Builds the procedure's input; the procedure's own zod schema then validates it. */
  input: (parts: RequestParts) => unknown;
  /** 200 unless said otherwise. */
  status?: number;
  /**
   * Turns the procedure's output into the body and headers; the output as it is when absent. With `raw` (a content
   * type), `body` is a string sent as it is with that type instead of JSON (the briefing email's HTML).
   */
  respond?: (output: unknown) => { body: unknown; headers: Record<string, string>; raw?: string };
  /** The largest body the route reads; `MAX_BODY_BYTES` when absent. */
  maxBodyBytes?: number;
}

const none = () => undefined;
const query = ({ query }: RequestParts) => query;

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
const body = ({ body }: RequestParts) => body;

/** The export as a download, named for its day: `dashboard-export-2026-11-24.json`. */
function download(output: unknown) {
  const day = new Date().toISOString().slice(0, 10);
  return { body: output, headers: { 'content-disposition': `attachment; filename="dashboard-export-${day}.json"` } };
}
/**
 * The briefing email's HTML as a page of its own, to open in a browser or frame in settings. Every value in it is
 * escaped; its CSP still allows nothing but its inline styles (no script, no request anywhere), and only this
 * dashboard may frame it.
 */
function emailDocument(output: unknown) {
  return {
    body: (output as { html: string }).html,
    raw: 'text/html; charset=utf-8',
    headers: { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'", 'x-frame-options': 'SAMEORIGIN' },
  };
}
const flag = (value: string | undefined) => value === '1' || value === 'true';

/** An import's body: the export as it was downloaded, or `{ password, dump }` (an export has no `dump` key). */
function importBody(body: unknown): { dump: unknown; password?: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('dump' in body)) return { dump: body };
  const { dump, password, ...rest } = body as Record<string, unknown>;
  // Anything else beside them goes to the procedure's strict schema, which names it.
  return { dump, ...(password === undefined ? {} : { password }), ...rest };
}
const slug = ({ params }: RequestParts) => ({ slug: params.slug });

/** The spec's REST paths, each served by one procedure. */
export const restRoutes: readonly RestRoute[] = [
  { method: 'GET', path: '/api/settings', procedure: 'settings.get', input: none },
  { method: 'POST', path: '/api/settings', procedure: 'settings.update', input: body },

  { method: 'GET', path: '/api/projects', procedure: 'projects.list', input: none },
  { method: 'POST', path: '/api/projects', procedure: 'projects.create', input: body, status: 201 },
  { method: 'GET', path: '/api/projects/:slug', procedure: 'projects.get', input: slug },
  { method: 'PATCH', path: '/api/projects/:slug', procedure: 'projects.update', input: (p) => ({ slug: p.params.slug, patch: p.body }) },
  { method: 'DELETE', path: '/api/projects/:slug', procedure: 'projects.remove', input: slug },

  { method: 'GET', path: '/api/credentials', procedure: 'credentials.list', input: none },
  { method: 'POST', path: '/api/credentials', procedure: 'credentials.save', input: body },
  { method: 'DELETE', path: '/api/credentials', procedure: 'credentials.remove', input: body },
  { method: 'POST', path: '/api/credentials/test', procedure: 'credentials.test', input: body },

  { method: 'GET', path: '/api/database/config', procedure: 'database.config', input: none },
  { method: 'POST', path: '/api/database/config', procedure: 'database.choose', input: body },
  { method: 'POST', path: '/api/database/test', procedure: 'database.test', input: body },
  { method: 'POST', path: '/api/database/migrate', procedure: 'database.migrate', input: none },
  { method: 'GET', path: '/api/database/export', procedure: 'database.export', input: none, respond: download },
  {
    method: 'POST',
    path: '/api/database/import',
    procedure: 'database.import',
    // `?dryRun=1` answers what the import would do, writing nothing. The body is the export, or `{ password, dump }`
    // once a password is set (an import is the owner's).
    input: ({ body, query }) => ({ ...importBody(body), dryRun: flag(query.dryRun) }),
    maxBodyBytes: MAX_DUMP_BYTES,
  },

  // Reads this computer's gcloud / Workspace CLI login files; local dashboards only.
  { method: 'POST', path: '/api/auth/cli-import', procedure: 'oauth.cliImport', input: none },

  { method: 'GET', path: '/api/tokens', procedure: 'tokens.list', input: none },
  { method: 'POST', path: '/api/tokens', procedure: 'tokens.create', input: body, status: 201 },
  { method: 'DELETE', path: '/api/tokens/:id', procedure: 'tokens.remove', input: ({ params }) => ({ id: params.id }) },

  { method: 'GET', path: '/api/notifications', procedure: 'notifications.list', input: query },
  { method: 'GET', path: '/api/notifications/unread', procedure: 'notifications.unreadCount', input: none },
  { method: 'GET', path: '/api/notifications/:id/events', procedure: 'notifications.events', input: ({ params }) => ({ id: params.id }) },
  { method: 'POST', path: '/api/notifications/read', procedure: 'notifications.markRead', input: body },
  { method: 'GET', path: '/api/notifications/policy', procedure: 'notifications.policy', input: none },
  { method: 'PUT', path: '/api/notifications/preferences', procedure: 'notifications.savePreferences', input: body },
  { method: 'PUT', path: '/api/notifications/rules', procedure: 'notifications.saveRules', input: body },
  { method: 'PUT', path: '/api/notifications/quiet-hours', procedure: 'notifications.saveQuietHours', input: body },
  { method: 'PUT', path: '/api/notifications/flap-hold', procedure: 'notifications.saveFlapHold', input: body },
  { method: 'POST', path: '/api/notifications/pause', procedure: 'notifications.pause', input: body },
  { method: 'POST', path: '/api/notifications/dry-run', procedure: 'notifications.dryRun', input: body },
  { method: 'POST', path: '/api/notifications/snooze', procedure: 'notifications.snooze', input: body },
  { method: 'POST', path: '/api/notifications/mute', procedure: 'notifications.mute', input: body },
  { method: 'POST', path: '/api/relay/poll', procedure: 'relay.poll', input: none },
  { method: 'GET', path: '/api/relay/status', procedure: 'relay.status', input: none },

  // POST takes BACKUP_SECRET as its bearer (checked before dispatch, with the other guards); GET the usual sign-in.
  { method: 'POST', path: '/api/backup', procedure: 'backup.run', input: none },
  { method: 'GET', path: '/api/backup', procedure: 'backup.status', input: none },

  { method: 'POST', path: '/api/alerts/send', procedure: 'alerts.send', input: body },
  { method: 'GET', path: '/api/alerts', procedure: 'alerts.status', input: none },
  { method: 'POST', path: '/api/alerts/test', procedure: 'alerts.test', input: none },
  { method: 'GET', path: '/api/alerts/deliveries', procedure: 'alerts.deliveries', input: none },

  { method: 'GET', path: '/api/briefing', procedure: 'briefing.get', input: query },
  { method: 'POST', path: '/api/briefing/read', procedure: 'briefing.markRead', input: body },
  { method: 'GET', path: '/api/briefing/thresholds', procedure: 'briefing.thresholds', input: none },
  { method: 'PUT', path: '/api/briefing/thresholds', procedure: 'briefing.saveThresholds', input: body },
  { method: 'GET', path: '/api/briefing/settings', procedure: 'briefing.settings', input: none },
  { method: 'PUT', path: '/api/briefing/schedule', procedure: 'briefing.saveSchedule', input: body },
  { method: 'GET', path: '/api/briefing/preview', procedure: 'briefing.preview', input: none },
  { method: 'GET', path: '/api/briefing/preview.html', procedure: 'briefing.preview', input: none, respond: emailDocument },
  { method: 'POST', path: '/api/briefing/test', procedure: 'briefing.sendTest', input: none },

  { method: 'GET', path: '/api/revenue', procedure: 'data.revenue', input: query, respond: dataResponse },
  { method: 'GET', path: '/api/ideas', procedure: 'data.ideas', input: query, respond: dataResponse },
  { method: 'GET', path: '/api/shipping', procedure: 'data.shipping', input: query, respond: dataResponse },
  { method: 'GET', path: '/api/errortracker', procedure: 'data.errortracker', input: query, respond: dataResponse },
  { method: 'GET', path: '/api/health', procedure: 'data.health', input: query, respond: dataResponse },
  { method: 'GET', path: '/api/storefront', procedure: 'data.storefront', input: query, respond: dataResponse },
  { method: 'GET', path: '/api/analytics', procedure: 'data.analytics', input: query, respond: dataResponse },
  { method: 'GET', path: '/api/seo', procedure: 'data.seo', input: query, respond: dataResponse },
  { method: 'GET', path: '/api/funding', procedure: 'data.funding', input: query, respond: dataResponse },
];
