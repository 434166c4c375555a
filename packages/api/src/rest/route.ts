import type { inferRouterInputs } from '@trpc/server';
import type { z } from 'zod';
import type { AppRouter } from '../root.ts';

/**
 * What a REST route is: its method and path, the procedure that serves it, how the request becomes that procedure's
 * input, and what the OpenAPI document says of it; with the plain input sources most routes use. The route table
 * itself is routes/, one file per part of the dashboard.
 */

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


/** No input. */
export const none: InputSource = { build: () => undefined };
/** The query string is the input. */
export const query: InputSource = { build: ({ query }) => query, query: 'input' };
/** The JSON body is the input. */
export const body: InputSource = { build: ({ body }) => body, body: 'input' };
/** The path parameters are the input. */
export const pathParams: InputSource = { build: ({ params }) => ({ ...params }) };

/** A string header's or body's schema, for the OpenAPI document. */
export const textSchema = { type: 'string' };
