import { refusedBaseUrl } from '@dash/connectors';
import { okSchema, settingsSchema, settingsUpdateSchema } from '@dash/contracts';
import { UnknownProjectsError } from '@dash/db';
import { z } from 'zod';
import { fail } from '../errors.ts';
import { relaySettings, relayUrlRefusal } from '../notifications/config.ts';
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
      // The relay is polled from this server: never at the cloud metadata service (as credentials' base URLs).
      const refused = input.relayUrl ? refusedBaseUrl(input.relayUrl) : undefined;
      if (refused) throw fail('BAD_REQUEST', `relayUrl: ${refused}`);
      // A stored poll secret goes only to the host it was saved for: another host needs it entered again with it.
      if (input.relayUrl) {
        const { secrets, env } = ctx.notifications;
        const moved = relayUrlRefusal(await relaySettings(ctx.store, secrets, env), input.relayUrl);
        if (moved) throw fail('BAD_REQUEST', `relayUrl: ${moved}`);
      }
      try {
        await ctx.store.settings.update(input);
      } catch (error) {
        if (error instanceof UnknownProjectsError) throw fail('BAD_REQUEST', error.message, error);
        throw error;
      }
      if (input.relayUrl !== undefined) ctx.notifications.poller.wake();
      return { ok: true as const };
    }),
});
