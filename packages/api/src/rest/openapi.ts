import { z } from 'zod';
import { errorBodySchema, integrationNames, notConfiguredSchema, oauthProviderSchema } from '@dash/contracts';
import { appRouter } from '../root.ts';
import { MAX_BODY_BYTES } from './dispatch.ts';
import { restRoutes, type Method, type RequestPart, type RestRoute } from './routes.ts';

/**
 * The REST API's OpenAPI 3.1 document, written from the route table and the procedures' own zod schemas (zod's
 * `toJSONSchema`, whose 2020-12 dialect is OpenAPI 3.1's), so a route that changes changes its description too.
 * Only the few /api paths that are SvelteKit routes rather than table entries (they redirect, stream, or check a
 * provider's signature) are described here by hand, in `outsideTheTable`.
 */

type Json = Record<string, unknown>;
type Io = 'input' | 'output';

/** The REST API's own version: the paths carry none (SPEC.md), so a change that breaks callers bumps this. */
const API_VERSION = '1.0.0';

const METHODS_WITH_BODY = new Set<Method>(['POST', 'PATCH', 'PUT', 'DELETE']);

/** Schemas written once under components.schemas and referred to wherever a procedure's schema uses them. */
const namedSchemas = new Map<z.ZodType, string>([
  [errorBodySchema, 'Error'],
  [notConfiguredSchema, 'NotConfigured'],
]);

/** Every error answer, under components.responses: the status, what it means here, and the one error body. */
const errorResponses = {
  400: ['BadRequest', 'Bad input: the body is not JSON, or a field, query or path parameter is invalid (`issues` lists each, with its path).'],
  401: ['Unauthorized', 'Not signed in, or the API token is revoked, expired or mistyped.'],
  403: ['Forbidden', 'Refused (as plain text when SvelteKit refuses a form-like body from elsewhere): a read token on a change, a token where only the owner may act, a cross-site request (CROSS_SITE), a Host not allowed, or a proxied request to a local dashboard without a password (PROXIED_WITHOUT_PASSWORD).'],
  404: ['NotFound', 'No such resource (a project, a stored credential, an OAuth provider, a webhook integration).'],
  409: ['Conflict', 'Conflicts with the current state (a taken slug, a backup already running, a webhook delivered twice).'],
  413: ['PayloadTooLarge', `The body is larger than the route takes (${MAX_BODY_BYTES / 1024} KB for most; the import takes a whole export).`],
  415: ['UnsupportedMediaType', 'A body that is not `application/json`.'],
  429: ['TooManyRequests', 'Too many failed sign-ins or token checks from this address (or webhook deliveries, test sends: one a minute, or emails through POST /api/alerts/send: 10 an hour per token, 30 in all); wait Retry-After seconds.'],
  500: ['InternalError', 'An unexpected failure; the server log has the details, the answer never does.'],
  502: ['BadGateway', 'The upstream service failed and nothing was cached (or it refused, e.g. the email provider).'],
  503: ['ServiceUnavailable', 'Not available: first-run setup not done yet (SETUP_REQUIRED), a feature switched off, or a dependency down.'],
} as const satisfies Record<number, readonly [string, string]>;
export type DescribedErrorStatus = keyof typeof errorResponses;

/** What the guards in front of every /api route may answer, whoever the route is (hooks.server.ts). */
const GUARD_STATUSES: readonly DescribedErrorStatus[] = [401, 403, 429, 500, 503];

const tagDescriptions: Record<string, string> = {
  data: "The data routes: each upstream's numbers for one project (`project=`) or all, cached (see the X-Cache headers).",
  settings: 'Tab order, widget layout, exchange rates, relay URL.',
  projects: 'The projects and the integrations each uses.',
  credentials: 'Encrypted credentials per service; values are never returned.',
  database: 'Which database, migrations, export and import.',
  oauth: 'Connecting accounts: OAuth redirects and the command-line login import.',
  tokens: 'API tokens (read or write), managed from a signed-in browser.',
  notifications: 'The inbox, its live stream, and the notification policy.',
  relay: 'The webhook relay poller, and the local webhook receiver.',
  backup: 'Refreshing every cache entry (a cron trigger) and its progress.',
  alerts: 'Email alerts and their deliveries.',
  push: 'Web Push: the VAPID key, the contact push services write to, the devices and their test push.',
  reference: 'This description and its readable reference.',
};

const pathTemplate = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');
const pathParamNames = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1] ?? '');

/** `notifications.saveQuietHours` → `notificationsSaveQuietHours`: one id per procedure, as a generated client names it. */
const operationIdOf = (procedure: string) => procedure.replace(/\.(\w)/, (_, c: string) => c.toUpperCase());

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** zod schemas as OpenAPI 3.1 schema objects; named ones become `$ref`s into components.schemas. */
class SchemaWriter {
  readonly components: Record<string, Json> = {};
  /** Each recursive shape written so far (its self-reference as `#self`) and its component's name. */
  private readonly shapes = new Map<string, string>();

  write(schema: z.ZodType, io: Io): Json {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      // A `z.custom` or a transform's output has no JSON Schema: it is described as "any value".
      unrepresentable: 'any',
      override: ({ zodSchema, jsonSchema, path }) => {
        const name = namedSchemas.get(zodSchema as unknown as z.ZodType);
        if (name === undefined || path.length === 0) return;
        this.component(name, zodSchema as unknown as z.ZodType);
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Json)[key];
        (jsonSchema as Json).$ref = `#/components/schemas/${name}`;
      },
    }) as Json;
    delete json.$schema;
    return this.hoistDefs(json);
  }

  /** A named schema, written once; a reference to it. */
  ref(schema: z.ZodType): Json {
    const name = namedSchemas.get(schema);
    if (name === undefined) throw new Error('not a named schema');
    this.component(name, schema);
    return { $ref: `#/components/schemas/${name}` };
  }

  private component(name: string, schema: z.ZodType) {
    if (name in this.components) return;
    this.components[name] = {};
    this.components[name] = this.write(schema, 'output');
  }

  /**
   * A recursive schema's `$defs` refer to the schema's own root (`#/$defs/…`), which inside the document would be the
   * document's: they move to components.schemas, one component per distinct shape (z.json(), the only recursive one
   * today, becomes `JsonValue`), so a generated client gets one type for it, not one per route.
   */
  private hoistDefs(json: Json): Json {
    const defs = json.$defs;
    if (!isObject(defs)) return json;
    delete json.$defs;
    const renamed = new Map<string, string>();
    for (const [key, def] of Object.entries(defs)) {
      const shape = JSON.stringify(rewriteRefs(def, new Map([[`#/$defs/${key}`, '#self']])));
      let name = this.shapes.get(shape);
      if (name === undefined) {
        name = shape === jsonValueShape() ? 'JsonValue' : `Recursive${this.shapes.size + 1}`;
        this.shapes.set(shape, name);
      }
      renamed.set(`#/$defs/${key}`, `#/components/schemas/${name}`);
    }
    for (const [key, def] of Object.entries(defs)) {
      const name = (renamed.get(`#/$defs/${key}`) ?? '').split('/').pop() ?? key;
      this.components[name] ??= rewriteRefs(def, renamed) as Json;
    }
    return rewriteRefs(json, renamed) as Json;
  }
}

/** A schema with its `$ref`s renamed as the map says. */
function rewriteRefs(node: unknown, renamed: Map<string, string>): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, renamed));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === '$ref' && typeof value === 'string' ? (renamed.get(value) ?? value) : rewriteRefs(value, renamed);
  return out;
}

/** The shape of z.json() as zod writes it, its self-reference written `#self`: what `JsonValue` names. */
let jsonValue: string | undefined;
function jsonValueShape(): string {
  if (jsonValue === undefined) {
    const written = z.toJSONSchema(z.object({ value: z.json() }), { target: 'draft-2020-12' }) as Json;
    const [key, def] = Object.entries((written.$defs ?? {}) as Json)[0] ?? ['', {}];
    jsonValue = JSON.stringify(rewriteRefs(def, new Map([[`#/$defs/${key}`, '#self']])));
  }
  return jsonValue;
}

interface ProcedureSchemas {
  input: z.ZodType | undefined;
  output: z.ZodType;
}

/** A procedure's own `.input()` and `.output()`, from the router's definition. */
function schemasOf(procedure: string): ProcedureSchemas {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { inputs: z.ZodType[]; output?: z.ZodType } }>;
  const def = procedures[procedure]?._def;
  if (!def?.output) throw new Error(`${procedure} has no output schema to describe`);
  if (def.inputs.length > 1) throw new Error(`${procedure} chains ${def.inputs.length} inputs; describe them merged`);
  return { input: def.inputs[0], output: def.output };
}

/** A part of the request as a schema: the input, one field of its object, or a schema the route gives. */
function partSchema(part: RequestPart, input: Json | undefined, writer: SchemaWriter): Json {
  if (part === 'input') return input ?? {};
  if ('field' in part && typeof part.field === 'string') return (isObject(input?.properties) ? (input.properties[part.field] as Json | undefined) : undefined) ?? {};
  return writer.write(part as z.ZodType, 'input');
}

function parameters(route: RestRoute, input: Json | undefined, writer: SchemaWriter): Json[] {
  const properties = isObject(input?.properties) ? input.properties : {};
  const path = pathParamNames(route.path).map((name) => ({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } }));
  if (!route.input.query) return path;
  const query = partSchema(route.input.query, input, writer);
  const required = new Set(Array.isArray(query.required) ? (query.required as string[]) : []);
  const fields = isObject(query.properties) ? query.properties : {};
  return [
    ...path,
    ...Object.entries(fields).map(([name, schema]) => {
      const description = isObject(schema) && typeof schema.description === 'string' ? { description: schema.description } : {};
      return { name, in: 'query', required: required.has(name), ...description, schema };
    }),
  ];
}

function requestBody(route: RestRoute, input: Json | undefined, inputSchema: z.ZodType | undefined, writer: SchemaWriter): Json | undefined {
  if (!route.input.body) return undefined;
  // The body may be left out when the procedure takes no input at all then (`POST /api/notifications/read`: all).
  const optional = route.input.body === 'input' && inputSchema !== undefined && inputSchema.safeParse(undefined).success;
  if (route.bodyMediaType) return { required: true, content: { [route.bodyMediaType]: { schema: { type: 'string' } } } };
  return { required: !optional, content: { 'application/json': { schema: partSchema(route.input.body, input, writer) } } };
}

/** The statuses a route may answer: its success, the guards', the dispatcher's for its input, and its procedure's own. */
export function statusesOf(route: RestRoute): number[] {
  const takesInput = route.input.query !== undefined || route.input.body !== undefined || route.path.includes(':');
  const readsBody = METHODS_WITH_BODY.has(route.method);
  const statuses = new Set<number>([route.status ?? 200, ...GUARD_STATUSES, ...(route.errors ?? [])]);
  if (takesInput || readsBody) statuses.add(400);
  if (readsBody) [413, 415].forEach((status) => statuses.add(status));
  // BACKUP_SECRET is checked without a throttle: no 429 there.
  if (route.access === 'backup') statuses.delete(429);
  return [...statuses].sort((a, b) => a - b);
}

function securityOf(route: RestRoute): { security: Json[]; scope: string } {
  if (route.access === 'backup') return { security: [{ backupSecret: [] }], scope: 'backup' };
  if (route.access === 'owner') return { security: [{ session: [] }], scope: 'owner' };
  const scope = route.method === 'GET' ? 'read' : 'write';
  return { security: [{ apiToken: [scope] }, { session: [] }], scope };
}

const accessNote: Record<string, string> = {
  read: 'Needs a read or write API token, or a session.',
  write: 'Needs a write API token, or a session.',
  owner: 'Only the owner in a signed-in browser (or the open local dashboard); an API token is refused with 403.',
  backup: 'Takes `Authorization: Bearer <BACKUP_SECRET>` and nothing else.',
};

function errorResponseRef(status: number): Json {
  const entry = errorResponses[status as DescribedErrorStatus] as readonly [string, string] | undefined;
  if (!entry) throw new Error(`No description of the error status ${status}`);
  return { $ref: `#/components/responses/${entry[0]}` };
}

function operationOf(route: RestRoute, writer: SchemaWriter): Json {
  const { input: inputSchema, output } = schemasOf(route.procedure);
  const input = inputSchema ? writer.write(inputSchema, 'input') : undefined;
  const success = route.status ?? 200;
  const body = route.answer?.body ? route.answer.body(output) : output;
  const headers = Object.fromEntries(
    Object.entries(route.answer?.headers ?? {}).map(([name, header]) => [name, { description: header.description, required: header.always === true, schema: header.schema }]),
  );
  const { security, scope } = securityOf(route);
  const params = parameters(route, input, writer);
  const requestBodyObject = requestBody(route, input, inputSchema, writer);
  const responses: Json = {
    [success]: {
      description: [route.summary, route.answer?.description].filter(Boolean).join('. '),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: route.answer?.mediaType ? { [route.answer.mediaType]: { schema: { type: 'string' } } } : { 'application/json': { schema: writer.write(body, 'output') } },
    },
  };
  for (const status of statusesOf(route)) if (status !== success) responses[status] = errorResponseRef(status);
  return {
    operationId: route.operationId ?? operationIdOf(route.procedure),
    summary: route.summary,
    description: [route.description, accessNote[scope]].filter(Boolean).join('\n\n'),
    tags: [route.procedure.split('.')[0]],
    'x-scope': scope,
    security,
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(requestBodyObject ? { requestBody: requestBodyObject } : {}),
    responses,
  };
}

/** An /api path that is a SvelteKit route of its own, not a table entry: described here, checked against the routes by a test. */
export interface OutsideOperation {
  method: Method;
  path: string;
  operation: Json;
}

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, errorResponseRef(status)]));
const readAccess = [{ apiToken: ['read'] }, { session: [] }];
const redirect = (description: string) => ({ description, headers: { location: { required: true, schema: { type: 'string' } } } });
const providerParam = { name: 'provider', in: 'path', required: true, schema: { type: 'string', enum: oauthProviderSchema.options } };

export const outsideTheTable: readonly OutsideOperation[] = [
  {
    method: 'GET',
    path: '/api/openapi.json',
    operation: {
      operationId: 'openApiDocument',
      summary: 'This OpenAPI 3.1 document',
      tags: ['reference'],
      'x-scope': 'read',
      security: readAccess,
      responses: { 200: { description: 'The document.', content: { 'application/json': { schema: { type: 'object' } } } }, ...errors(401, 403, 429, 500, 503) },
    },
  },
  {
    method: 'GET',
    path: '/api/docs',
    operation: {
      operationId: 'apiReference',
      summary: 'This document as a readable reference (HTML), with "try it" for each route',
      tags: ['reference'],
      'x-scope': 'read',
      security: readAccess,
      responses: { 200: { description: 'The reference page.', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(401, 403, 429, 500, 503) },
    },
  },
  {
    method: 'GET',
    path: '/api/notifications/stream',
    operation: {
      operationId: 'notificationsStream',
      summary: 'The live inbox as Server-Sent Events',
      description:
        'Each new or changed notification as `event: notification` with `id: <seq>`; reconnecting with that id as Last-Event-ID ' +
        '(or `lastEventId=`) replays what was missed, or sends `event: reset` when too much was. A `: ping` comment every 25 s. ' +
        "The stream ends when the caller's sign-in does (sign-out, a revoked token).\n\n" +
        accessNote.read,
      tags: ['notifications'],
      'x-scope': 'read',
      security: readAccess,
      parameters: [
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^\\d+$' } },
        { name: 'lastEventId', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d+$' } },
      ],
      responses: {
        200: { description: 'An event stream that stays open.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...errors(400, 401, 403, 429, 500, 503),
      },
    },
  },
  {
    method: 'GET',
    path: '/api/auth/{provider}/redirect',
    operation: {
      operationId: 'oauthRedirect',
      summary: "Start connecting an account: redirects the browser to the provider's authorization page",
      description: `A browser's link (it sets the flow's cookie), not a script's call. It changes the stored credentials.\n\n${accessNote.write}`,
      tags: ['oauth'],
      'x-scope': 'write',
      security: [{ apiToken: ['write'] }, { session: [] }],
      parameters: [
        providerParam,
        { name: 'credKey', in: 'query', required: true, description: 'The credential store key the tokens go under (google, google:work…).', schema: { type: 'string' } },
        { name: 'scopes', in: 'query', required: false, description: 'Space-separated OAuth scopes.', schema: { type: 'string' } },
      ],
      responses: { 302: redirect("To the provider's authorization page (or to the dashboard's public address first)."), ...errors(400, 401, 403, 404, 429, 500, 503) },
    },
  },
  {
    method: 'GET',
    path: '/api/auth/{provider}/callback',
    operation: {
      operationId: 'oauthCallback',
      summary: 'Where the provider sends the browser back: stores the tokens, then redirects to Settings',
      description: `To /settings/connections?oauth=success, or /settings/connections?oauth=error&reason=<code>. Its query is the provider's.\n\n${accessNote.read}`,
      tags: ['oauth'],
      'x-scope': 'read',
      security: readAccess,
      parameters: [providerParam],
      responses: { 302: redirect('To /settings/connections?oauth=success or /settings/connections?oauth=error&reason=<code>.'), ...errors(401, 403, 404, 429, 500, 503) },
    },
  },
  {
    method: 'POST',
    path: '/api/webhooks/{integration}',
    operation: {
      operationId: 'webhooksReceive',
      summary: "Receive a provider's webhook on this dashboard (no relay)",
      description:
        "Public: each delivery proves itself with its provider's signature or token (WEBHOOK_SECRET_<INTEGRATION>), checked like the relay does: " +
        'kill switch (503), body limit (413), content type (415), rate limit (429 with Retry-After), replay (409), signature (401), parse (400).',
      tags: ['relay'],
      'x-scope': 'webhook',
      security: [{ codeHostSignature: [] }, { deployHostSignature: [] }, { errorTrackerSignature: [] }, { issueTrackerSignature: [] }, { uptimeMonitorToken: [] }, { uptimeMonitorBearer: [] }],
      parameters: [{ name: 'integration', in: 'path', required: true, schema: { type: 'string', enum: integrationNames.filter((name) => name !== 'funding') } }],
      requestBody: { required: true, content: { 'application/json': { schema: { description: "The provider's own payload." } } } },
      responses: {
        200: {
          description: 'Accepted: the events it held are stored.',
          content: {
            'application/json': {
              schema: { type: 'object', required: ['received', 'eventCount'], properties: { received: { const: true }, eventCount: { type: 'integer', minimum: 0 } } },
            },
          },
        },
        ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503),
      },
    },
  },
];

export interface DocumentOptions {
  /** The session cookie's name where the document is served (`__Host-dash_session` over https). */
  sessionCookie?: string;
}

function components(writer: SchemaWriter, sessionCookie: string): Json {
  const errorSchema = writer.ref(errorBodySchema);
  const responses = Object.fromEntries(
    Object.entries(errorResponses).map(([status, [name, description]]) => {
      // The guards' throttle says how long to wait; a procedure's own 429 (a wrong password on a token's creation) may not.
      const retryAfter = status === '429' ? { headers: { 'retry-after': { required: false, description: 'Seconds to wait.', schema: { type: 'string', pattern: '^\\d+$' } } } } : {};
      // SvelteKit's own form check refuses a form-like body (text/plain, form-encoded, multipart) sent without the
      // dashboard's Origin before any route runs, even with a token, and says so in plain text.
      const formCheck = status === '403' ? { 'text/plain': { schema: { type: 'string' } } } : {};
      return [name, { description, ...retryAfter, content: { 'application/json': { schema: errorSchema }, ...formCheck } }];
    }),
  );
  const signature = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });
  return {
    schemas: writer.components,
    responses,
    securitySchemes: {
      apiToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API token from Settings → Security: `read` opens GET routes, `write` every route but the owner-only ones.',
      },
      session: { type: 'apiKey', in: 'cookie', name: sessionCookie, description: "The signed-in browser's session cookie (the dashboard's own pages)." },
      backupSecret: { type: 'http', scheme: 'bearer', description: 'BACKUP_SECRET, for POST /api/backup only.' },
      codeHostSignature: signature('X-Hub-Signature-256', 'code_host: `sha256=<hex HMAC-SHA256 of the body>`.'),
      deployHostSignature: signature('x-vercel-signature', 'deploy_host: hex HMAC-SHA1 of the body.'),
      errorTrackerSignature: signature('sentry-hook-signature', 'error_tracker: hex HMAC-SHA256 of the body.'),
      issueTrackerSignature: signature('linear-signature', 'issue_tracker: hex HMAC-SHA256 of the body.'),
      uptimeMonitorToken: signature('x-betterstack-token', 'uptime_monitor: the shared token.'),
      uptimeMonitorBearer: { type: 'http', scheme: 'bearer', description: 'uptime_monitor: the shared token as a bearer.' },
    },
  };
}

/** The whole document. */
export function buildOpenApiDocument(options: DocumentOptions = {}, routes: readonly RestRoute[] = restRoutes): Json {
  const writer = new SchemaWriter();
  const paths: Record<string, Json> = {};
  const add = (method: Method, path: string, operation: Json) => {
    const item = (paths[path] ??= {});
    item[method.toLowerCase()] = operation;
  };
  for (const route of routes) add(route.method, pathTemplate(route.path), operationOf(route, writer));
  for (const extra of outsideTheTable) add(extra.method, extra.path, extra.operation);
  const componentsObject = components(writer, options.sessionCookie ?? 'dash_session');
  const tags = [...new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => (op as { tags: string[] }).tags)))];
  return {
    openapi: '3.1.1',
    info: {
      title: 'Founder dashboard API',
      version: API_VERSION,
      description:
        'Every route answers JSON; a failure is `{ error: { code, message, issues? } }` with the status that matches its code. ' +
        'Send an API token (Settings → Security) as `Authorization: Bearer <token>`: a read token for GET routes, a write token for changes. ' +
        'A local dashboard without a password needs no sign-in at all.',
    },
    tags: tags.map((name) => ({ name, description: tagDescriptions[name] ?? '' })),
    paths,
    components: componentsObject,
  };
}

/** Built once, on first use: the route table and the schemas do not change while the process runs. */
const built = new Map<string, Json>();
export function openApiDocument(options: DocumentOptions = {}): Json {
  const key = options.sessionCookie ?? '';
  let document = built.get(key);
  if (!document) built.set(key, (document = buildOpenApiDocument(options)));
  return document;
}
