import { appRouter, logFailure, retryAfterOf } from '@dash/api';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { RequestHandler } from './$types';
import { getContext } from '$lib/server/app';

const serve: RequestHandler = async ({ request, locals }) => {
  const ctx = await getContext();
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req: request,
    router: appRouter,
    createContext: () => ({ ...ctx, request: locals.request }),
    onError: ({ error, path }) => logFailure(ctx.log, path, error),
    // A 429 says when to come back, as the REST routes' do.
    responseMeta: ({ errors }) => ({ headers: new Headers(Object.entries(Object.assign({}, ...errors.map(retryAfterOf)) as Record<string, string>)) }),
  });
};

export const GET = serve;
export const POST = serve;
