import {
  relayPollResultSchema,
  relaySecretSchema,
  relayStatusSchema,
  relayTestResultSchema,
  relayTestSchema,
  webhookSecretSchema,
  webhookSourceNames,
} from '@dash/contracts';
import { refusedBaseUrl } from '@dash/connectors';
import { relayIntegrations } from '@dash/webhooks';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { fail } from '../errors.ts';
import { relaySettings, saveRelaySecret, secretNote, targetOf, testTarget } from '../notifications/config.ts';
import { fetchRelayPage, RelayError, relayHealth } from '../notifications/relay-client.ts';
import { publicProcedure, router } from '../trpc.ts';

/**
 * How webhooks reach the inbox: the relay poller's settings, status, poll and test (`relay.*`), and the dashboard's
 * own webhook route for providers that reach it directly (`webhooks.receive`).
 */

const relayFailure = (error: unknown) => {
  if (error instanceof RelayError) return fail(error.reason === 'rate_limited' ? 'TOO_MANY_REQUESTS' : 'BAD_GATEWAY', error.message, error);
  return error;
};

async function relayStatus(ctx: Context) {
  const { store, notifications } = ctx;
  const env = notifications.env;
  const [relay, savedWebhookSecrets] = await Promise.all([relaySettings(store, notifications.secrets, env), notifications.secrets.webhookSecrets()]);
  return {
    configured: targetOf(relay) !== undefined,
    url: relay.url ?? null,
    urlSource: relay.urlSource,
    secretSource: relay.secretSource,
    secretNote: secretNote(relay),
    poller: notifications.poller.status(),
    localWebhooks: relayIntegrations.map((integration) => ({
      integration,
      provider: webhookSourceNames[integration],
      path: `/api/webhooks/${integration}`,
      secretSet: Boolean(savedWebhookSecrets[integration]) || env.receive.secrets[integration].length > 0,
      secretSource: savedWebhookSecrets[integration] ? ('settings' as const) : env.receive.secrets[integration].length > 0 ? ('env' as const) : null,
    })),
  };
}

export const relayRouter = router({
  status: publicProcedure
    .input(z.void())
    .output(relayStatusSchema)
    .query(({ ctx }) => relayStatus(ctx)),

  /** `POST /api/relay/poll`: polls now until the relay has no more. */
  poll: publicProcedure
    .input(z.void())
    .output(relayPollResultSchema)
    .mutation(async ({ ctx }) => {
      try {
        return await ctx.notifications.poller.pollNow();
      } catch (error) {
        throw relayFailure(error);
      }
    }),

  /**
   * Saves (or, with null, forgets) the relay's poll secret, for `url` (saved as the relay URL with it) or the relay
   * URL in effect; polling starts or stops without a restart.
   */
  saveSecret: publicProcedure
    .input(relaySecretSchema)
    .output(z.object({ ok: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      const refused = input.url === undefined ? undefined : refusedBaseUrl(input.url);
      if (refused) throw fail('BAD_REQUEST', `url: ${refused}`);
      if (input.secret === null) await ctx.notifications.secrets.setPollSecret(null);
      else await saveRelaySecret(ctx.store, ctx.notifications.secrets, ctx.notifications.env, input.secret, input.url);
      ctx.notifications.poller.wake();
      return { ok: true as const };
    }),

  /** Saves (or forgets) one integration's signing secret for the dashboard's own webhook route. */
  saveWebhookSecret: publicProcedure
    .input(webhookSecretSchema)
    .output(z.object({ ok: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.notifications.secrets.setWebhookSecret(input.integration, input.secret);
      return { ok: true as const };
    }),

  /** Asks the relay's health route, then makes one authenticated poll (reading nothing into the inbox). */
  test: publicProcedure
    .input(relayTestSchema)
    .output(relayTestResultSchema)
    .mutation(async ({ ctx, input }) => {
      // A stored secret goes only to the host it was saved for: another URL is tested with the secret given with it.
      const target = testTarget(await relaySettings(ctx.store, ctx.notifications.secrets, ctx.notifications.env), input);
      if ('refused' in target) throw fail('BAD_REQUEST', `secret: ${target.refused}`);
      const { url, secret } = target;
      if (!url) return { ok: false as const, step: 'health' as const, error: 'Set the relay URL first.' };
      try {
        await relayHealth({ url }, ctx.notifications.fetch);
      } catch (error) {
        return { ok: false as const, step: 'health' as const, error: (error as Error).message };
      }
      if (!secret) return { ok: false as const, step: 'poll' as const, error: 'The relay answers; set its poll secret to read events.' };
      try {
        const page = await fetchRelayPage({ url, secret }, { since: 0, limit: 1, fetch: ctx.notifications.fetch });
        return { ok: true as const, eventCount: page.events.length };
      } catch (error) {
        return { ok: false as const, step: 'poll' as const, error: (error as Error).message };
      }
    }),
});

const base64 = z.string().max(Math.ceil((256 * 1024 * 4) / 3) + 4).regex(/^[A-Za-z0-9+/]*={0,2}$/, 'The body is base64');

export const webhooksRouter = router({
  /**
   * The dashboard's own `POST /api/webhooks/:integration`, for a dashboard the providers reach
   * directly: the raw body (base64, verified byte for byte) and headers in, the webhook answer out.
   */
  receive: publicProcedure
    .input(z.object({ integration: z.string().max(40), body: base64, headers: z.record(z.string(), z.string()) }))
    .output(z.object({ status: z.number().int(), body: z.unknown(), retryAfterMs: z.number().optional() }))
    .mutation(async ({ ctx, input }) => {
      const headers = new Headers(input.headers);
      return ctx.notifications.webhooks.receive({
        integration: input.integration,
        body: Buffer.from(input.body, 'base64'),
        headers,
        ip: ctx.request?.ip,
      });
    }),
});

