import {
  deliveryDetailSchema,
  deliveryPageSchema,
  deliveryQuerySchema,
  deliveryReplayInputSchema,
  deliveryReplayResultSchema,
  refusalSummarySchema,
} from '@dash/contracts';
import { z } from 'zod';
import { publicProcedure, router } from '../trpc.ts';
import { assertOwnerBrowser, readsDestinationFailures } from './auth.ts';

const DAY = 24 * 60 * 60_000;

/**
 * The webhook inspector (issue 53): every webhook taken in and what it became, tokens may list and read rows; a
 * body only for the owner (a signed-in browser or the open local dashboard: a body is a stranger's payload, with
 * whatever the service put in it); a replay only for the owner (it sends to every channel again).
 */
export const deliveriesRouter = router({
  list: publicProcedure
    .input(deliveryQuerySchema)
    .output(deliveryPageSchema)
    .query(({ ctx, input }) => ctx.notifications.deliveries.list(input)),

  get: publicProcedure
    .input(z.strictObject({ id: z.string().min(1).max(100) }))
    .output(deliveryDetailSchema)
    .query(({ ctx, input }) => ctx.notifications.deliveries.get(input.id, { owner: readsDestinationFailures(ctx) })),

  replay: publicProcedure
    .input(deliveryReplayInputSchema)
    .output(deliveryReplayResultSchema)
    .mutation(({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      return ctx.notifications.deliveries.replay(input);
    }),

  /** What the relay and the local route turned away, per hour (the last 24 hours unless `since` says). */
  refusals: publicProcedure
    .input(z.strictObject({ since: z.iso.datetime({ offset: true }).optional() }).default({}))
    .output(refusalSummarySchema)
    .query(({ ctx, input }) => ctx.notifications.deliveries.refusals(input.since === undefined ? ctx.data.connections.clock.now() - DAY : Date.parse(input.since))),
});
