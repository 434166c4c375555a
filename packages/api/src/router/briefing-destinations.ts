import { TRPCError } from '@trpc/server';
import { briefingDestinationsSchema, saveBriefingDestinationSchema, sendBriefingResultSchema, sendBriefingSchema } from '@dash/contracts';
import { z } from 'zod';
import { BriefingSendError } from '../briefing/courier.ts';
import { EmailRefusedError } from '../alerts/index.ts';
import { BriefingInputError } from '../briefing/mailer.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';
import { assertOwnerBrowser } from './auth.ts';

/** Bad input only the courier can see (a destination there is not): a 400 naming the field, nothing stored. */
function asBadRequest(error: unknown): never {
  if (!(error instanceof BriefingInputError)) throw error;
  throw new TRPCError({ code: 'BAD_REQUEST', message: `${error.path.join('.')}: ${error.message}`, cause: { issues: [{ path: error.path, message: error.message }] } });
}

/**
 * The briefing on the chat connections and push devices (issue 52). Tokens read the list; a schedule, its parts and a
 * send now are the signed-in owner's: each sends the founder's figures to a chat that may so far get only alerts.
 */
export const briefingDestinationsRouter = router({
  list: publicProcedure
    .input(z.void())
    .output(briefingDestinationsSchema)
    .query(({ ctx }) => ctx.briefingCourier.destinations()),

  save: publicProcedure
    .input(saveBriefingDestinationSchema)
    .output(briefingDestinationsSchema)
    .mutation(async ({ ctx, input: { id, ...settings } }) => {
      assertOwnerBrowser(ctx);
      return ctx.briefingCourier.save(id, settings).catch(asBadRequest);
    }),

  /** The briefing now, to one destination, once a minute; a service refusing is a 502 with its words and how far it got. */
  send: publicProcedure
    .input(sendBriefingSchema)
    .output(sendBriefingResultSchema)
    .mutation(async ({ ctx, input, signal }) => {
      assertOwnerBrowser(ctx);
      if (input.destination === 'email') {
        // The email as its schedule has it (its period and parts), to the configured addresses: its own test send.
        if (!(await ctx.alerts.config())) throw fail('BAD_REQUEST', 'destination: email is not set up (SendGrid: Settings → Refresh & alerts)');
        await ctx.testSends.take('briefing', 'briefing email');
        try {
          await ctx.briefing.sendTest(signal);
        } catch (error) {
          if (error instanceof EmailRefusedError) throw fail('BAD_GATEWAY', error.message, error);
          throw error;
        }
        return { destination: 'email', posted: 1, messages: 1 };
      }
      await ctx.testSends.take('briefing-destination', 'briefing');
      try {
        return await ctx.briefingCourier.sendNow(input.destination, input.period);
      } catch (error) {
        if (error instanceof BriefingSendError) throw fail('BAD_GATEWAY', error.message, error);
        return asBadRequest(error);
      }
    }),
});
