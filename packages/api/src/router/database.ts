import {
  databaseConfigInputSchema,
  databaseConfigResultSchema,
  databaseMigrateResultSchema,
  databaseStatusSchema,
  databaseTestInputSchema,
  databaseTestResultSchema,
  dumpSchema,
  importResultSchema,
} from '@dash/contracts';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { exportDump, importDump, parseDump } from '../database/dump.ts';
import type { DatabaseHandle } from '../database/runtime.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';

function database(ctx: Context): DatabaseHandle {
  if (!ctx.database) throw fail('SERVICE_UNAVAILABLE', 'This process does not manage its database (it was started without one)');
  return ctx.database;
}

export const databaseRouter = router({
  config: publicProcedure
    .input(z.void())
    .output(databaseStatusSchema)
    .query(({ ctx }) => database(ctx).manager.status()),

  choose: publicProcedure
    .input(databaseConfigInputSchema)
    .output(databaseConfigResultSchema)
    .mutation(({ ctx, input }) => database(ctx).manager.choose(input, ctx.store)),

  test: publicProcedure
    .input(databaseTestInputSchema)
    .output(databaseTestResultSchema)
    .mutation(({ ctx, input }) => database(ctx).manager.test(input)),

  migrate: publicProcedure
    .input(z.void())
    .output(databaseMigrateResultSchema)
    .mutation(({ ctx }) => database(ctx).manager.migrate()),

  export: publicProcedure
    .input(z.void())
    .output(dumpSchema)
    .query(({ ctx }) => exportDump(ctx)),

  /** The dump is checked here, not by the input schema, so that a newer version is refused by name first. */
  import: publicProcedure
    .input(z.strictObject({ dump: z.unknown(), dryRun: z.boolean().default(false) }))
    .output(importResultSchema)
    .mutation(({ ctx, input }) => importDump(ctx, parseDump(input.dump), { dryRun: input.dryRun })),
});
