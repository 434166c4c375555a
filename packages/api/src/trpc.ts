import { initTRPC, isTrackedEnvelope, tracked, type TrackedEnvelope, type TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { Context } from './context.ts';
import type { Logger } from './logger.ts';
import { describeError } from './errors.ts';

const t = initTRPC.context<Context>().create({
  // Subscriptions are Server-Sent Events; a ping keeps an idle one open through proxies.
  sse: { ping: { enabled: true, intervalMs: 25_000 }, client: { reconnectAfterInactivityMs: 60_000 } },
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

/**
 * Every procedure starts here. It carries no middleware: each layer costs a tRPC call frame on
 * every request, and failures are logged by `logFailure` from the callers' and handler's onError.
 */
export const publicProcedure = t.procedure;

/** 5xx failures go to the log with their path, never with their input. */
export function logFailure(log: Logger, path: string | undefined, error: TRPCError) {
  if (describeError(error).status < 500) return;
  const cause = error.cause instanceof Error ? `: ${error.cause.name}: ${error.cause.message}` : '';
  log.error(`${path ?? '(unknown)'} failed (${error.code}) ${error.message}${cause}`);
}

/**
 * The output schema of a subscription that yields `tracked(id, event)`: every event is checked with
 * `event` as it goes out, as a query's output is (tRPC's own recipe; a stream cannot be parsed whole).
 */
export function trackedEvents<T>(event: z.ZodType<T>) {
  return z
    .custom<AsyncIterable<TrackedEnvelope<T>>>((value) => typeof value === 'object' && value !== null && Symbol.asyncIterator in value)
    .transform(async function* (events) {
      for await (const envelope of events) {
        if (!isTrackedEnvelope(envelope)) throw new Error('A tracked stream yielded an untracked event');
        yield tracked(envelope[0], event.parse(envelope[1]));
      }
    });
}
