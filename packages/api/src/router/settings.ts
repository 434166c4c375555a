import { refusedBaseUrl } from '@dash/connectors';
import { okSchema, settingsSchema, settingsUpdateSchema, widgetRow, widgetViewQuerySchema, widgetViewSchema } from '@dash/contracts';
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

  /** What a view shows: the slots, then the row of every other widget set up for the project (or any project). */
  widgets: publicProcedure
    .input(widgetViewQuerySchema)
    .output(widgetViewSchema)
    .query(async ({ ctx, input }) => {
      const [{ widgetLayout }, projects] = await Promise.all([ctx.store.settings.get(), ctx.store.projects.list()]);
      const shown = input.project === undefined ? projects : projects.filter((project) => project.slug === input.project);
      if (shown.length === 0 && input.project !== undefined) throw fail('NOT_FOUND', `No project with the slug "${input.project}"`);
      return { slots: widgetLayout.slots, more: widgetRow(widgetLayout, shown) };
    }),

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
