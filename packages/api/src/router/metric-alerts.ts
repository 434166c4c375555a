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
import type { Context } from '../context.ts';
import { publicProcedure, router } from '../trpc.ts';
import { assertOwnerBrowser } from './auth.ts';

/**
 * Change alerts on the metric history: the rules (tokens read them and preview one; the owner changes them: a rule
 * decides what interrupts the owner, on every channel) and what a rule would have said over the last days.
 */
/**
 * A rule made, changed or removed is judged at once on the history as it is: a metric already out of range is told now,
 * a thread nothing watches any more resolves. Its failure is the log's; the rule is saved all the same.
 */
async function judgeAgain(ctx: Context, project: string): Promise<void> {
  await ctx.metricAlerts.evaluate({ projects: [project] }).catch((error: unknown) => ctx.log.warn(`metric alerts after a rule changed: ${(error as Error).message}`));
}

export const metricAlertsRouter = router({
  list: publicProcedure
    .input(metricAlertListQuerySchema)
    .output(metricAlertListSchema)
    .query(async ({ ctx, input }) => ({ rules: await listRules(ctx.store, input.project) })),

  create: publicProcedure
    .input(metricAlertCreateSchema)
    .output(metricAlertRuleSchema)
    .mutation(async ({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      const rule = await createRule(ctx.store, ctx.data.connections.clock.now(), input);
      await judgeAgain(ctx, rule.project);
      return rule;
    }),

  update: publicProcedure
    .input(z.intersection(metricAlertIdSchema, metricAlertPatchSchema))
    .output(metricAlertRuleSchema)
    .mutation(async ({ ctx, input: { id, ...patch } }) => {
      assertOwnerBrowser(ctx);
      const rule = await updateRule(ctx.store, ctx.data.connections.clock.now(), id, patch);
      await judgeAgain(ctx, rule.project);
      return rule;
    }),

  remove: publicProcedure
    .input(metricAlertIdSchema)
    .output(z.object({ removed: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      const removed = await removeRule(ctx.store, input.id);
      await judgeAgain(ctx, removed.project);
      return { removed: true as const };
    }),

  /** A mutation for its POST body (a rule's draft), though it writes nothing (a read token's POST stops at the guard). */
  preview: publicProcedure
    .input(metricAlertPreviewInputSchema)
    .output(metricAlertPreviewSchema)
    .mutation(({ ctx, input }) => previewRule(ctx.store, ctx.data.connections.clock.now(), input)),
});
