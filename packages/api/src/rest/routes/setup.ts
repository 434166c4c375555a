import { z } from 'zod';
import { dumpSchema, MAX_DUMP_BYTES, ownerPasswordSchema } from '@dash/contracts';
import { body, none, pathParams, query, textSchema, type Answer, type InputSource, type RestRoute } from '../route.ts';

/**
 * The routes of the dashboard's set-up: settings and widgets, projects, stored credentials, the database (its
 * export as a download, its import), the command-line login import, and API tokens.
 */

/** The export as a download, named for its day: `dashboard-export-2026-11-24.json`. */
function download(output: unknown) {
  const day = new Date().toISOString().slice(0, 10);
  return { body: output, headers: { 'content-disposition': `attachment; filename="dashboard-export-${day}.json"` } };
}
const downloadAnswer: Answer = {
  respond: download,
  headers: { 'content-disposition': { description: 'attachment; filename="dashboard-export-<day>.json"', schema: textSchema, always: true } },
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

export const setupRoutes: readonly RestRoute[] = [
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
];
