import { okSchema, settingsSchema, settingsUpdateSchema } from '@dash/contracts';
import { UnknownProjectsError } from '@dash/db';
import { z } from 'zod';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';

export const settingsRouter = router({
  get: publicProcedure
    .input(z.void())
    .output(settingsSchema)
    .query(({ ctx }) => ctx.store.settings.get()),

  update: publicProcedure
    .input(settingsUpdateSchema)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      try {
        await ctx.store.settings.update(input);
      } catch (error) {
        if (error instanceof UnknownProjectsError) throw fail('BAD_REQUEST', error.message, error);
        throw error;
      }
      return { ok: true as const };
    }),
});
