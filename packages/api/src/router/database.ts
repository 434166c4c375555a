import {
  databaseConfigInputSchema,
  databaseConfigResultSchema,
  databaseMigrateResultSchema,
  databaseStatusSchema,
  databaseTestInputSchema,
  databaseTestResultSchema,
  dumpSchema,
  importResultSchema,
  ownerPasswordSchema,
} from '@dash/contracts';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { exportDump, importDump, parseDump, withoutDestinationFailures } from '../database/dump.ts';
import type { DatabaseHandle } from '../database/runtime.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';
import { assertOwnerBrowser, ATTENTION_FOR_TOKENS, confirmOwner, readsDestinationFailures } from './auth.ts';

function database(ctx: Context): DatabaseHandle {
  if (!ctx.database) throw fail('SERVICE_UNAVAILABLE', 'This process does not manage its database (it was started without one)');
  return ctx.database;
}

/**
 * Where the data lives is the owner's: a switch and an import (which could bring another owner, or drop the
 * password) need a signed-in browser and the password again once one is set; a test and a migration (they reach
 * the database the owner typed or chose) a signed-in browser. Reading the status and the export (which never holds
 * sign-in material) is a read like any other.
 */
export const databaseRouter = router({
  config: publicProcedure
    .input(z.void())
    .output(databaseStatusSchema)
    .query(({ ctx }) => database(ctx).manager.status()),

  choose: publicProcedure
    .input(databaseConfigInputSchema)
    .output(databaseConfigResultSchema)
    .mutation(async ({ ctx, input: { password, ...input } }) => {
      const manager = database(ctx).manager;
      await confirmOwner(ctx, password);
      return manager.choose(input, ctx.store);
    }),

  test: publicProcedure
    .input(databaseTestInputSchema)
    .output(databaseTestResultSchema)
    .mutation(({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      return database(ctx).manager.test(input);
    }),

  migrate: publicProcedure
    .input(z.void())
    .output(databaseMigrateResultSchema)
    .mutation(({ ctx }) => {
      assertOwnerBrowser(ctx);
      return database(ctx).manager.migrate();
    }),

  export: publicProcedure
    .input(z.void())
    .output(dumpSchema)
    .query(async ({ ctx }) => {
      const dump = await exportDump(ctx);
      // What a destination answered is the owner's to read (as in the push and channel lists).
      return readsDestinationFailures(ctx) ? dump : { ...dump, tables: withoutDestinationFailures(dump.tables, ATTENTION_FOR_TOKENS) };
    }),

  /** The dump is checked here, not by the input schema, so that a newer version is refused by name first. */
  import: publicProcedure
    .input(z.strictObject({ dump: z.unknown(), dryRun: z.boolean().default(false), password: ownerPasswordSchema }))
    .output(importResultSchema)
    .mutation(async ({ ctx, input }) => {
      await confirmOwner(ctx, input.password);
      return importDump(ctx, parseDump(input.dump), { dryRun: input.dryRun });
    }),
});
