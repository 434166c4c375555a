import {
  backfillInputSchema,
  backfillResultSchema,
  historyCsvQuerySchema,
  historyCsvSchema,
  historyImportInputSchema,
  historyImportResultSchema,
  historyMetricsQuerySchema,
  historyMetricsSchema,
  historyQuerySchema,
  historyScheduleSchema,
  historySchema,
  historySeriesQuerySchema,
  historySeriesSchema,
  historySettingsSchema,
  snapshotResultSchema,
} from '@dash/contracts';
import { z } from 'zod';
import { exportCsv, importCsv, listMetrics, readHistory, readHistoryEncoded, readSeries } from '../history/reader.ts';
import { publicProcedure, router } from '../trpc.ts';
import { assertOwnerBrowser } from './auth.ts';

/**
 * The metric history: reading it (read tokens may), taking a snapshot or reading a provider's days back now (write
 * tokens may: they only ask the providers already connected), the snapshot's schedule, and importing a CSV (the owner's:
 * it writes history that no provider said).
 */
export const historyRouter = router({
  read: publicProcedure
    .input(historyQuerySchema)
    .output(historySchema)
    .query(({ ctx, input }) => readHistory(ctx.store, ctx.data.connections.clock.now(), input)),

  /** `read`'s answer as JSON text, for the REST route: encoded once per change, not per request (reader.ts). */
  readEncoded: publicProcedure
    .input(historyQuerySchema)
    .output(z.object({ json: z.string() }))
    .query(({ ctx, input }) => readHistoryEncoded(ctx.store, ctx.data.connections.clock.now(), input)),

  series: publicProcedure
    .input(historySeriesQuerySchema)
    .output(historySeriesSchema)
    .query(({ ctx, input }) => readSeries(ctx.store, ctx.data.connections.clock.now(), input)),

  metrics: publicProcedure
    .input(historyMetricsQuerySchema)
    .output(historyMetricsSchema)
    .query(({ ctx, input }) => listMetrics(ctx.store, ctx.data.connections.clock.now(), input.project)),

  csv: publicProcedure
    .input(historyCsvQuerySchema)
    .output(historyCsvSchema)
    .query(({ ctx, input }) => exportCsv(ctx.store, ctx.data.connections.clock.now(), input)),

  snapshot: publicProcedure
    .input(z.void())
    .output(snapshotResultSchema)
    .mutation(({ ctx }) => ctx.history.snapshot()),

  backfill: publicProcedure
    .input(backfillInputSchema.optional())
    .output(backfillResultSchema)
    .mutation(({ ctx, input }) => ctx.history.backfill({ project: input?.project })),

  import: publicProcedure
    .input(historyImportInputSchema)
    .output(historyImportResultSchema)
    .mutation(async ({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      // Only days of the last 48 hours alert: an import of old data never alerts about the past.
      return importCsv(ctx.store, ctx.data.connections.clock.now(), input.csv, (written) =>
        ctx.metricAlerts.evaluate(written).catch((error: unknown) => ctx.log.warn(`metric alerts after an import: ${(error as Error).message}`)),
      );
    }),

  settings: publicProcedure
    .input(z.void())
    .output(historySettingsSchema)
    .query(({ ctx }) => ctx.history.settings()),

  saveSchedule: publicProcedure
    .input(historyScheduleSchema)
    .output(historySettingsSchema)
    .mutation(({ ctx, input }) => ctx.history.saveSchedule(input)),
});
