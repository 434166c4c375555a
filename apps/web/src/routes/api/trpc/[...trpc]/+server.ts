import { appRouter, logFailure } from '@dash/api';
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
  });
};

export const GET = serve;
export const POST = serve;
