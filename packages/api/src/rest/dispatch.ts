import { TRPCError } from '@trpc/server';
import type { ErrorCode } from '@dash/contracts';
import { isJsonType, readBodyWithin } from '@dash/webhooks';
import type { Caller } from '../root.ts';
import { describeError, retryAfterOf } from '../errors.ts';
import type { Method, RestRoute } from './route.ts';

/** Dashboard request bodies are small JSON documents; anything larger is refused before it is read whole. */
export const MAX_BODY_BYTES = 256 * 1024;

const METHODS_WITH_BODY = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const json = (status: number, data: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(data), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });

interface CompiledRoute {
  route: RestRoute;
  segments: string[];
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of pattern.entries()) {
    const value = actual[i] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}

/** Reads the body while counting bytes, so neither a missing nor a lying Content-Length lets more through. */
async function readBody(request: Request, limit: number, mediaType: RestRoute['bodyMediaType']): Promise<unknown> {
  // `connection: close`: the unread rest of the body is dropped with the connection, never read.
  const size = limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MB` : `${limit / 1024} KB`;
  const tooLarge = () => new RestError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${size}`, { connection: 'close' });
  let body: Uint8Array | undefined;
  try {
    body = await readBodyWithin(request, limit);
  } catch (error) {
    // The server in front may cut the stream for its own size limit; say so the same way.
    if ((error as { status?: number }).status === 413) throw tooLarge();
    throw error;
  }
  if (!body) throw tooLarge();
  if (body.byteLength === 0) return undefined;

  if (mediaType !== undefined) {
    const type = request.headers.get('content-type') ?? '';
    if (!new RegExp(`^${mediaType.replace('/', '\\/')}\\s*(;|$)`, 'i').test(type)) {
      throw new RestError(415, 'UNSUPPORTED_MEDIA_TYPE', `Send the request body as ${mediaType} with Content-Type: ${mediaType}`);
    }
    return new TextDecoder('utf-8', { fatal: false }).decode(body);
  }
  if (!isJsonType(request.headers.get('content-type'))) {
    throw new RestError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with Content-Type: application/json');
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RestError(400, 'BAD_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Calls a procedure by its dotted path; its own zod schema validates whatever input it gets. */
function procedureAt(caller: Caller, path: string): (input: unknown) => Promise<unknown> {
  const [domain = '', name = ''] = path.split('.');
  const procedures = caller[domain as keyof Caller] as unknown as Record<string, (input: unknown) => Promise<unknown>>;
  const procedure = procedures[name];
  if (!procedure) throw new Error(`The REST route table names a missing procedure: ${path}`);
  return procedure;
}

/**
 * Serves a route table from the procedures: matches method and path, turns the request into the
 * procedure's input, and answers with its output as plain JSON, or with the error JSON.
 */
export function createRestHandler(routes: readonly RestRoute[]) {
  const compiled: CompiledRoute[] = routes.map((route) => ({ route, segments: route.path.split('/').filter(Boolean) }));

  return async function handleRest(request: Request, caller: Caller): Promise<Response> {
    const url = new URL(request.url);
    const segments = url.pathname.split('/').filter(Boolean);
    try {
      const onPath = compiled.flatMap(({ route, segments: pattern }) => {
        const params = matchSegments(pattern, segments);
        return params ? [{ route, params }] : [];
      });
      if (onPath.length === 0) throw new RestError(404, 'NOT_FOUND', `No route for ${request.method} ${url.pathname}`);
      const match = onPath.find(({ route }) => route.method === (request.method as Method));
      if (!match) {
        const allow = [...new Set(onPath.map(({ route }) => route.method))].join(', ');
        throw new RestError(405, 'METHOD_NOT_SUPPORTED', `${request.method} is not supported on ${url.pathname}; use ${allow}`, { allow });
      }

      const body = METHODS_WITH_BODY.has(request.method) ? await readBody(request, match.route.maxBodyBytes ?? MAX_BODY_BYTES, match.route.bodyMediaType) : undefined;
      const input = match.route.input.build({ params: match.params, query: Object.fromEntries(url.searchParams), body });
      const output = await procedureAt(caller, match.route.procedure)(input);
      if (!match.route.answer) return json(match.route.status ?? 200, output);
      const { body: answer, headers } = match.route.answer.respond(output);
      const { mediaType, encoded } = match.route.answer;
      if (encoded === true && typeof answer === 'string') {
        return new Response(answer, { status: match.route.status ?? 200, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers } });
      }
      if (mediaType !== undefined && typeof answer === 'string') {
        return new Response(answer, { status: match.route.status ?? 200, headers: { 'content-type': `${mediaType}; charset=utf-8`, 'cache-control': 'no-store', ...headers } });
      }
      return json(match.route.status ?? 200, answer, headers);
    } catch (error) {
      if (error instanceof RestError) {
        return json(error.status, { error: { code: error.code, message: error.message } }, error.headers);
      }
      const trpcError = error instanceof TRPCError ? error : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: error });
      const { status, body } = describeError(trpcError);
      return json(status, body, retryAfterOf(trpcError));
    }
  };
}
