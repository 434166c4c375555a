import {
  alertResultSchema,
  briefingEmailSchema,
  briefingQuerySchema,
  briefingScheduleSchema,
  briefingSchema,
  briefingSettingsSchema,
  briefingThresholdsSchema,
  markBriefingReadSchema,
  okSchema,
  saveBriefingThresholdsSchema,
} from '@dash/contracts';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { EmailRefusedError } from '../alerts/index.ts';
import { briefingThresholds, briefingUnread, composeBriefing, markBriefingRead, saveBriefingThresholds, type BriefingSources } from '../briefing/briefing.ts';
import { BriefingInputError } from '../briefing/mailer.ts';
import type { Context } from '../context.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';
import { dataReadsOf } from './data.ts';

/** What a briefing reads over a request's context: its store, its clock, and the data procedures. */
const sourcesOf = (ctx: Context): BriefingSources => ({ store: ctx.store, clock: ctx.data.connections.clock, reads: (signal) => dataReadsOf(ctx, signal) });

export const briefingRouter = router({
  /** What changed over the window, per project and in all, with what needs the founder at the top. */
  get: publicProcedure
    .input(briefingQuerySchema)
    .output(briefingSchema)
    .query(async ({ ctx, input, signal }) => {
      if (input.project !== undefined && !(await ctx.store.projects.get(input.project))) throw fail('NOT_FOUND', `No project with the slug "${input.project}"`);
      if (input.since !== undefined && Date.parse(input.since) > ctx.data.connections.clock.now()) throw fail('BAD_REQUEST', 'since: it is in the future');
      return composeBriefing(sourcesOf(ctx), input, signal);
    }),

  /** Marks the briefing read up to its window's end: the next one starts there, and today's figures are kept to compare with. */
  markRead: publicProcedure
    .input(markBriefingReadSchema)
    .output(okSchema)
    .mutation(async ({ ctx, input, signal }) => {
      const until = Date.parse(input.until);
      if (until > ctx.data.connections.clock.now() + 60_000) throw fail('BAD_REQUEST', 'until: it is in the future');
      await markBriefingRead(sourcesOf(ctx), until, signal);
      return { ok: true as const };
    }),

  thresholds: publicProcedure
    .input(z.void())
    .output(z.object({ thresholds: briefingThresholdsSchema }))
    .query(async ({ ctx }) => ({ thresholds: await briefingThresholds(ctx.store) })),

  saveThresholds: publicProcedure
    .input(saveBriefingThresholdsSchema)
    .output(z.object({ thresholds: briefingThresholdsSchema }))
    .mutation(async ({ ctx, input }) => ({ thresholds: await saveBriefingThresholds(ctx.store, input.thresholds) })),

  /** Whether today's briefing is unread (the dashboard links it until it is read); reads no data. */
  status: publicProcedure
    .input(z.void())
    .output(z.object({ unread: z.boolean() }))
    .query(async ({ ctx }) => ({ unread: await briefingUnread(ctx.store, ctx.data.connections.clock.now()) })),

  /** The briefing's settings: thresholds, the email's schedule, whether email can be offered, the next and last sends. */
  settings: publicProcedure
    .input(z.void())
    .output(briefingSettingsSchema)
    .query(({ ctx }) => ctx.briefing.settings()),

  /** Saves the email's schedule; turning it on before email is set up is a 400 on `enabled`, and nothing is stored. */
  saveSchedule: publicProcedure
    .input(briefingScheduleSchema)
    .output(briefingSettingsSchema)
    .mutation(async ({ ctx, input }) => {
      try {
        return await ctx.briefing.saveSchedule(input);
      } catch (error) {
        if (!(error instanceof BriefingInputError)) throw error;
        const issue = { path: error.path, message: error.message };
        throw new TRPCError({ code: 'BAD_REQUEST', message: `${error.path.join('.')}: ${error.message}`, cause: { issues: [issue] } });
      }
    }),

  /** The email as it would be sent now, from the cache as it is (the scheduled one refreshes everything first). */
  preview: publicProcedure
    .input(z.void())
    .output(briefingEmailSchema)
    .query(async ({ ctx, signal }) => {
      const { subject, html, text } = await ctx.briefing.preview(signal);
      return { subject, html, text };
    }),

  /** Sends the preview now to the configured addresses, once a minute; SendGrid refusing is a 502 with its reason (never the key). */
  sendTest: publicProcedure
    .input(z.void())
    .output(alertResultSchema)
    .mutation(async ({ ctx, signal }) => {
      if (!(await ctx.alerts.config())) return { configured: false as const };
      await ctx.testSends.take('briefing', 'briefing email');
      try {
        return await ctx.briefing.sendTest(signal);
      } catch (error) {
        if (error instanceof EmailRefusedError) throw fail('BAD_GATEWAY', error.message, error);
        throw error;
      }
    }),
});
