import type { inferRouterInputs } from '@trpc/server';
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
}

const none = () => undefined;
const body = ({ body }: RequestParts) => body;
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
];
