import { channelAddSchema, channelConnectionsSchema, channelIdInput, channelSavedSchema, channelTestResultSchema, channelUpdateSchema, removedSchema } from '@dash/contracts';
import { z } from 'zod';
import { publicProcedure, router } from '../trpc.ts';
import { assertOwnerBrowser, ATTENTION_FOR_TOKENS, confirmOwner, readsDestinationFailures } from './auth.ts';

/** The chat and webhook connections (Settings → Notifications → Chat and webhooks). */
export const channelsRouter = router({
  /**
   * GET /api/channels: the connections, how their messages went; never a secret. What a destination last answered
   * (`lastFailure`, the reason in `needsAttention`) is the owner's alone: an API token gets null and a plain notice.
   */
  list: publicProcedure
    .input(z.void())
    .output(channelConnectionsSchema)
    .query(async ({ ctx }) => {
      const connections = await ctx.channels.list();
      if (readsDestinationFailures(ctx)) return { connections };
      return { connections: connections.map((c) => ({ ...c, lastFailure: null, needsAttention: c.needsAttention === null ? null : ATTENTION_FOR_TOKENS })) };
    }),

  /**
   * POST /api/channels: a new place our data goes, and it keeps getting it after the session that added it ends: the
   * owner's, from a signed-in browser, with the password again once one is set (as a push device is).
   */
  add: publicProcedure
    .input(channelAddSchema)
    .output(channelSavedSchema)
    .mutation(async ({ ctx, input }) => {
      await confirmOwner(ctx, input.password);
      return ctx.channels.add(input);
    }),

  /** PATCH /api/channels/:id: the owner's with the password (a new destination sends our data somewhere new). */
  update: publicProcedure
    .input(channelUpdateSchema)
    .output(channelSavedSchema)
    .mutation(async ({ ctx, input }) => {
      await confirmOwner(ctx, input.password);
      return ctx.channels.update(input);
    }),

  /** DELETE /api/channels/:id: the owner's, from a signed-in browser (no password: it only narrows where data goes). */
  remove: publicProcedure
    .input(channelIdInput)
    .output(removedSchema)
    .mutation(async ({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      return { ok: true as const, removed: await ctx.channels.remove(input.id) };
    }),

  /** POST /api/channels/:id/test: a test message to one connection now; one test a minute per connection. */
  test: publicProcedure
    .input(channelIdInput)
    .output(channelTestResultSchema)
    .mutation(async ({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      const row = await ctx.channels.get(input.id);
      await ctx.testSends.take(`channel:${row.id}`, `message to ${row.name}`);
      return ctx.channels.test(row);
    }),
});
