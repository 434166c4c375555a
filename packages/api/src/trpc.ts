import { initTRPC } from '@trpc/server';
import type { Context } from './context.ts';
import { describeError } from './errors.ts';

const t = initTRPC.context<Context>().create({
  // tRPC clients get the same message and issues as the REST JSON body, under `data`.
  errorFormatter({ shape, error }) {
    const { body } = describeError(error);
    return {
      ...shape,
      message: body.error.message,
      data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path, issues: body.error.issues },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every procedure starts here; 5xx failures are logged with their path, never with their input. */
export const publicProcedure = t.procedure.use(async ({ ctx, path, next }) => {
  const result = await next();
  if (!result.ok && describeError(result.error).status >= 500) {
    const cause = result.error.cause instanceof Error ? `: ${result.error.cause.name}: ${result.error.cause.message}` : '';
    ctx.log.error(`${path} failed (${result.error.code}) ${result.error.message}${cause}`);
  }
  return result;
});
