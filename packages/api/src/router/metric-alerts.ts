import {
  metricAlertCreateSchema,
  metricAlertIdSchema,
  metricAlertListQuerySchema,
  metricAlertListSchema,
  metricAlertPatchSchema,
  metricAlertPreviewInputSchema,
  metricAlertPreviewSchema,
  metricAlertRuleSchema,
} from '@dash/contracts';
import { z } from 'zod';
import { createRule, listRules, previewRule, removeRule, updateRule } from '../metric-alerts/rules.ts';
import { publicProcedure, router } from '../trpc.ts';
import { assertOwnerBrowser } from './auth.ts';

/**
 * Change alerts on the metric history: the rules (tokens read them and preview one; the owner changes them: a rule
 * decides what interrupts the owner, on every channel) and what a rule would have said over the last days.
 */
export const metricAlertsRouter = router({
  list: publicProcedure
    .input(metricAlertListQuerySchema)
    .output(metricAlertListSchema)
    .query(async ({ ctx, input }) => ({ rules: await listRules(ctx.store, input.project) })),

  create: publicProcedure
    .input(metricAlertCreateSchema)
    .output(metricAlertRuleSchema)
    .mutation(({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      return createRule(ctx.store, ctx.data.connections.clock.now(), input);
    }),

  update: publicProcedure
    .input(z.intersection(metricAlertIdSchema, metricAlertPatchSchema))
    .output(metricAlertRuleSchema)
    .mutation(({ ctx, input: { id, ...patch } }) => {
      assertOwnerBrowser(ctx);
      return updateRule(ctx.store, ctx.data.connections.clock.now(), id, patch);
    }),

  remove: publicProcedure
    .input(metricAlertIdSchema)
    .output(z.object({ removed: z.literal(true) }))
    .mutation(({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      return removeRule(ctx.store, input.id);
    }),

  /** A mutation for its POST body (a rule's draft), though it writes nothing: read tokens may ask it. */
  preview: publicProcedure
    .input(metricAlertPreviewInputSchema)
    .output(metricAlertPreviewSchema)
    .mutation(({ ctx, input }) => previewRule(ctx.store, ctx.data.connections.clock.now(), input)),
});
