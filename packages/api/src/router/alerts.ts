import { alertInputSchema, alertResultSchema, emailDeliveriesSchema, emailStatusSchema } from '@dash/contracts';
import { z } from 'zod';
import { customEmail, EmailRefusedError, healthEmail, type Email, type EmailCaller } from '../alerts/index.ts';
import type { Context } from '../context.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';

/** SendGrid refusing is the upstream's failure: a 502 with its own reason (never the key). */
async function sent(ctx: Context, email: Email) {
  try {
    return await ctx.alerts.send(email);
  } catch (error) {
    if (error instanceof EmailRefusedError) throw fail('BAD_GATEWAY', error.message, error);
    throw error;
  }
}

/** Who sends a custom email through the API, for its footer: a token by its name (as Settings lists it), else the owner. */
async function callerOf(ctx: Context): Promise<EmailCaller> {
  const identity = ctx.request?.identity;
  if (identity?.via === 'token') return { via: 'token', name: (await ctx.store.auth.tokens.get(identity.tokenId))?.name ?? identity.tokenId };
  return identity?.via === 'open' ? { via: 'open' } : { via: 'session' };
}

export const alertsRouter = router({
  /**
   * POST /api/alerts/send: a health alert written by the dashboard, or a custom email (its HTML sanitized, its footer
   * naming the caller). `{ configured: false }` spends nothing; otherwise a turn of the caller's and the installation's
   * hourly limit (ApiSends), or a 429 with Retry-After.
   */
  send: publicProcedure
    .input(alertInputSchema)
    .output(alertResultSchema)
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.alerts.config())) return { configured: false as const };
      await ctx.apiSends.take(ctx.request?.identity);
      return sent(ctx, input.type === 'health' ? healthEmail(input.monitors) : customEmail(input.subject, input.html, await callerOf(ctx)));
    }),

  /** Where alerts go and what is missing; never the key. */
  status: publicProcedure
    .input(z.void())
    .output(emailStatusSchema)
    .query(({ ctx }) => ctx.alerts.status()),

  /** The newest notification emails: queued (with their next try), delivered (with SendGrid's id) or failed (why). */
  deliveries: publicProcedure
    .input(z.void())
    .output(emailDeliveriesSchema)
    .query(async ({ ctx }) => ({
      deliveries: (await ctx.store.emails.recent(20)).map((send) => ({
        id: send.id,
        title: send.delivery.message.title,
        purpose: send.delivery.purpose,
        state: send.state,
        attempts: send.attempts,
        messageId: send.providerId,
        error: send.error,
        createdAt: new Date(send.createdAt).toISOString(),
        sentAt: send.sentAt === null ? null : new Date(send.sentAt).toISOString(),
        nextAttemptAt: send.state === 'queued' ? new Date(send.dueAt).toISOString() : null,
      })),
    })),

  /** Settings' "Send a test email": proves the key, the sender and the addresses with one real email; one a minute. */
  test: publicProcedure
    .input(z.void())
    .output(alertResultSchema)
    .mutation(async ({ ctx }) => {
      if (!(await ctx.alerts.config())) return { configured: false as const };
      await ctx.testSends.take('alerts', 'email');
      return sent(
        ctx,
        customEmail(
          'Test email from your founder dashboard',
          '<p>This is a test of your dashboard’s email alerts. When a monitor goes down, the alert comes from this sender to these addresses.</p>',
        ),
      );
    }),
});
