import { tracked } from '@trpc/server';
import {
  markReadResultSchema,
  markReadSchema,
  notificationListQuerySchema,
  notificationListSchema,
  notificationStreamEventSchema,
  relayPollResultSchema,
  relaySecretSchema,
  relayStatusSchema,
  relayTestResultSchema,
  relayTestSchema,
  webhookSecretSchema,
  webhookSourceNames,
  type Notification,
  type NotificationStreamEvent,
} from '@dash/contracts';
import type { NotificationRow } from '@dash/db';
import { relayIntegrations } from '@dash/webhooks';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { fail } from '../errors.ts';
import { relaySettings, targetOf } from '../notifications/config.ts';
import { fetchRelayPage, RelayError, relayHealth } from '../notifications/relay-client.ts';
import { publicProcedure, router, trackedEvents } from '../trpc.ts';

/** A stored row as the API shows it. */
export function notificationOf(row: NotificationRow): Notification {
  return {
    id: row.id,
    seq: row.seq,
    createdSeq: row.createdSeq,
    integration: row.integration,
    type: row.type,
    title: row.title,
    url: row.url,
    project: row.projectSlug,
    severity: row.severity,
    resolved: row.status === 'info' ? null : row.status === 'resolved',
    occurredAt: row.firstAt,
    lastAt: row.lastAt,
    resolvedAt: row.resolvedAt,
    receivedAt: row.receivedAt,
    readAt: row.readAt,
    eventCount: row.eventCount,
  };
}

/** More changes than this since a client's last event id: it refetches the list instead of replaying. */
const REPLAY_LIMIT = 500;

const relayFailure = (error: unknown) => {
  if (error instanceof RelayError) return fail(error.reason === 'rate_limited' ? 'TOO_MANY_REQUESTS' : 'BAD_GATEWAY', error.message, error);
  return error;
};

export const notificationsRouter = router({
  /** The inbox, newest first, paged by `before`, with the unread count. */
  list: publicProcedure
    .input(notificationListQuerySchema)
    .output(notificationListSchema)
    .query(async ({ ctx, input }) => {
      const [rows, unreadCount] = await Promise.all([
        ctx.store.notifications.list({ limit: input.limit, beforeSeq: input.before, unread: input.unread, projectSlug: input.project, integration: input.integration }),
        ctx.store.notifications.unreadCount(),
      ]);
      const last = rows.at(-1);
      return { notifications: rows.map(notificationOf), unreadCount, nextBefore: rows.length === input.limit && last ? last.createdSeq : null };
    }),

  unreadCount: publicProcedure
    .input(z.void())
    .output(z.object({ unreadCount: z.number().int() }))
    .query(async ({ ctx }) => ({ unreadCount: await ctx.store.notifications.unreadCount() })),

  markRead: publicProcedure
    .input(markReadSchema)
    .output(markReadResultSchema)
    .mutation(async ({ ctx, input }) => {
      const changed = await ctx.store.notifications.markRead('all' in input ? { all: true } : { ids: input.ids }, new Date(ctx.data.connections.clock.now()).toISOString());
      ctx.notifications.inbox.hub.publish(changed);
      return { ok: true as const, marked: changed.length, unreadCount: await ctx.store.notifications.unreadCount() };
    }),

  /**
   * Live: first what changed after `lastEventId` (a reconnecting client's last seq), then every change
   * as it happens, each with the unread count. Event ids are the rows' seq, so a reconnect resumes.
   */
  stream: publicProcedure
    .input(z.object({ lastEventId: z.coerce.number().int().nonnegative().nullish() }).optional())
    .output(trackedEvents(notificationStreamEventSchema))
    .subscription(async function* ({ ctx, input, signal: request }) {
      const { hub } = ctx.notifications.inbox;
      // The client going away, or the server shutting down, ends the stream.
      const signal = request ? AbortSignal.any([request, hub.closed]) : hub.closed;
      const pending: NotificationRow[] = [];
      let wake: (() => void) | undefined;
      const unsubscribe = hub.subscribe((rows) => {
        pending.push(...rows);
        wake?.();
      });
      const onAbort = () => wake?.();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        let last = input?.lastEventId ?? undefined;
        if (last !== undefined) {
          const missed = await ctx.store.notifications.changedSince(last, REPLAY_LIMIT + 1);
          if (missed.length > REPLAY_LIMIT) {
            // Resume from the newest row after this: the client reloads the list instead of replaying.
            last = Math.max(last, await ctx.store.notifications.latestSeq());
            const reset = { kind: 'reset', unreadCount: await ctx.store.notifications.unreadCount() } satisfies NotificationStreamEvent;
            yield tracked(String(last), reset as NotificationStreamEvent);
          } else {
            pending.unshift(...missed);
          }
        }
        while (!signal.aborted) {
          if (pending.length === 0) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            continue;
          }
          const rows = pending.splice(0).filter((row) => last === undefined || row.seq > last);
          if (rows.length === 0) continue;
          const unreadCount = await ctx.store.notifications.unreadCount();
          for (const row of rows.sort((a, b) => a.seq - b.seq)) {
            last = row.seq;
            const event = { kind: 'notification', notification: notificationOf(row), unreadCount } satisfies NotificationStreamEvent;
            yield tracked(String(row.seq), event as NotificationStreamEvent);
          }
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        unsubscribe();
      }
    }),
});

async function relayStatus(ctx: Context) {
  const { store, notifications } = ctx;
  const env = notifications.env;
  const [relay, savedWebhookSecrets] = await Promise.all([relaySettings(store, notifications.secrets, env), notifications.secrets.webhookSecrets()]);
  return {
    configured: targetOf(relay) !== undefined,
    url: relay.url ?? null,
    urlSource: relay.urlSource,
    secretSource: relay.secretSource,
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

  /** Saves (or, with null, forgets) the relay's poll secret; polling starts or stops without a restart. */
  saveSecret: publicProcedure
    .input(relaySecretSchema)
    .output(z.object({ ok: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.notifications.secrets.setPollSecret(input.secret);
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
      const saved = await relaySettings(ctx.store, ctx.notifications.secrets, ctx.notifications.env);
      const url = input.url ?? saved.url;
      const secret = input.secret ?? saved.secret;
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

