import type { z } from 'zod';
import { appRouter } from '../root.ts';
import { accessNote, components, errorResponseRef, GUARD_STATUSES } from './openapi-components.ts';
import { outsideTheTable } from './openapi-outside.ts';
import { isObject, SchemaWriter, type Json } from './openapi-schemas.ts';
import type { Method, RequestPart, RestRoute } from './route.ts';
import { restRoutes } from './routes/index.ts';

/**
 * The REST API's OpenAPI 3.1 document, written from the route table and the procedures' own zod schemas, so a route
 * that changes changes its description too: each route's operation (its parameters, body, answers and access), and
 * the document around them. The schemas' writing is openapi-schemas.ts, the shared error answers and security
 * schemes openapi-components.ts, and the few /api paths outside the table (described by hand) openapi-outside.ts.
 */

/** The REST API's own version: the paths carry none (SPEC.md), so a change that breaks callers bumps this. */
const API_VERSION = '1.0.0';

const METHODS_WITH_BODY = new Set<Method>(['POST', 'PATCH', 'PUT', 'DELETE']);

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


export interface DocumentOptions {
  /** The session cookie's name where the document is served (`__Host-dash_session` over https). */
  sessionCookie?: string;
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
