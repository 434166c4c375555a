import { tracked } from '@trpc/server';
import {
  dryRunResultSchema,
  dryRunSchema,
  muteSchema,
  notificationPolicySchema,
  notificationPolicyViewSchema,
  pauseNotificationsSchema,
  saveQuietHoursSchema,
  saveFlapHoldSchema,
  saveNotificationPreferencesSchema,
  saveNotificationRulesSchema,
  snoozeSchema,
  type Interruption,
  type NotificationPolicy,
  markReadResultSchema,
  markReadSchema,
  notificationListQuerySchema,
  notificationListSchema,
  notificationEventsQuerySchema,
  notificationEventsSchema,
  notificationStreamEventSchema,
  type Notification,
  type NotificationStreamEvent,
} from '@dash/contracts';
import type { DeliveryRow, MuteRow, NotificationRow } from '@dash/db';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { watchSignIn } from '../auth/watch.ts';
import { fail } from '../errors.ts';
import { PolicyInputError } from '../notifications/inbox.ts';
import { quietAt } from '../notifications/policy/quiet-hours.ts';
import { publicProcedure, router, trackedEvents } from '../trpc.ts';

/**
 * The inbox's procedures (`notifications.*`): the list, a row's events, read marks, the live stream, the policy and
 * its dry run, snoozes and mutes; with a stored row and a sent interruption as the API shows them. The relay's and
 * the local webhook route's procedures are relay.ts.
 */

/** When each muted subject's mute ends (ms UTC), for rows to show it. */
type MuteIndex = ReadonlyMap<string, number>;

const muteIndex = (mutes: readonly MuteRow[], now: number): MuteIndex => new Map(mutes.filter((mute) => mute.until > now).map((mute) => [mute.subjectKey, mute.until]));

/** A stored row as the API shows it. */
export function notificationOf(row: NotificationRow, mutes: MuteIndex = new Map()): Notification {
  const mutedUntil = row.subjectKey === null ? undefined : mutes.get(row.subjectKey);
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
    subjectKey: row.subjectKey,
    snoozedUntil: row.snoozedUntil,
    mutedUntil: mutedUntil === undefined ? null : new Date(mutedUntil).toISOString(),
    decision: row.decision,
  };
}

/** A sent interruption as the live stream carries it. */
export function interruptionOf(delivery: DeliveryRow): Interruption {
  return {
    id: delivery.id,
    notificationId: delivery.notificationId,
    purpose: delivery.purpose,
    ...delivery.message,
    at: new Date(delivery.sentAt ?? delivery.createdAt).toISOString(),
  };
}

const policyInput = (error: unknown) => (error instanceof PolicyInputError ? fail('BAD_REQUEST', error.message, error) : error);

/** The policy as the settings page shows it, with the mutes and whether it is quiet right now. */
async function policyView(ctx: Context, policy?: NotificationPolicy) {
  const { inbox } = ctx.notifications;
  const now = ctx.data.connections.clock.now();
  // A saved part that no longer fits stays stored and is reported; the policy shown is the one that applies.
  const [state, mutes, { available: channels, devices, connections }] = await Promise.all([inbox.policy.state(), inbox.mutes(), inbox.targets()]);
  const saved = policy ?? state.policy;
  const quiet = quietAt(now, saved.quietHours);
  return {
    ...saved,
    needsAttention: state.needsAttention,
    mutes,
    quietNow: {
      quiet: quiet.quiet,
      reason: quiet.quiet ? quiet.reason : null,
      until: quiet.quiet && quiet.endsAt !== undefined ? new Date(quiet.endsAt).toISOString() : null,
    },
    email: channels.includes('email')
      ? { available: true, reason: null }
      : { available: false, reason: 'Set up email alerts first (Settings → Refresh & alerts: SendGrid); until then, in-app and browser.' },
    push:
      devices.length > 0
        ? { available: true, devices: devices.length, reason: null }
        : { available: false, devices: 0, reason: 'Subscribe a device first (Settings → Notifications → Devices: Notify this device).' },
    chat:
      connections.length > 0
        ? { available: true, connections: connections.length, reason: null }
        : { available: false, connections: 0, reason: 'Add a connection first (Settings → Notifications → Chat and webhooks), or fix the one that needs attention.' },
    flapHoldSeconds: Math.round(inbox.planner.holdFor(saved) / 1000),
  };
}

/** More changes than this since a client's last event id: it refetches the list instead of replaying. */
const REPLAY_LIMIT = 500;

export const notificationsRouter = router({
  /** The inbox, newest first, paged by `before`, with the unread count. */
  list: publicProcedure
    .input(notificationListQuerySchema)
    .output(notificationListSchema)
    .query(async ({ ctx, input }) => {
      const [rows, unreadCount, mutes] = await Promise.all([
        ctx.store.notifications.list({ limit: input.limit, beforeSeq: input.before, unread: input.unread, projectSlug: input.project, integration: input.integration }),
        ctx.store.notifications.unreadCount(),
        ctx.store.notifications.mutes(),
      ]);
      const last = rows.at(-1);
      const muted = muteIndex(mutes, ctx.data.connections.clock.now());
      return {
        notifications: rows.map((row) => notificationOf(row, muted)),
        unreadCount,
        nextBefore: rows.length === input.limit && last ? last.createdSeq : null,
      };
    }),

  /** A thread's events, each with its own decision: the outage's trace stays the outage's after its recovery. */
  events: publicProcedure
    .input(notificationEventsQuerySchema)
    .output(notificationEventsSchema)
    .query(async ({ ctx, input }) => {
      const events = await ctx.store.notifications.events(input.id);
      // Every stored row has its events; none means no such row (or one removed meanwhile).
      if (events.length === 0) throw fail('NOT_FOUND', `No notification ${JSON.stringify(input.id)}`);
      return {
        events: events.map(({ id, type, title, url, severity, transition, occurredAt, receivedAt, decision }) => ({ id, type, title, url, severity, transition, occurredAt, receivedAt, decision })),
      };
    }),

  /**
   * The unread count, and `seq`: the live stream's position, read first, so a stream opened with it as `lastEventId`
   * replays everything after the count (a page's first stream, which has seen no event yet, misses nothing).
   */
  unreadCount: publicProcedure
    .input(z.void())
    .output(z.object({ unreadCount: z.number().int(), seq: z.number().int() }))
    .query(async ({ ctx }) => {
      const seq = await ctx.store.notifications.latestSeq();
      return { unreadCount: await ctx.store.notifications.unreadCount(), seq };
    }),

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
   * It ends (cleanly) when the caller's sign-in does: sign-out, ended sessions, a new password, a revoked token.
   */
  stream: publicProcedure
    .input(z.object({ lastEventId: z.coerce.number().int().nonnegative().nullish() }).optional())
    .output(trackedEvents(notificationStreamEventSchema))
    .subscription(async function* ({ ctx, input, signal: request }) {
      const { hub } = ctx.notifications.inbox;
      // The client going away, its sign-in ending, or the server shutting down, ends the stream.
      const signIn = watchSignIn(ctx.access, ctx.request?.identity);
      const signal = AbortSignal.any(request ? [request, hub.closed, signIn.signal] : [hub.closed, signIn.signal]);
      const pending: (NotificationRow | DeliveryRow)[] = [];
      /** Interruptions sent while the client was away: it gets them, marked, so it does not pop them up late. */
      const replayed = new Set<string>();
      let wake: (() => void) | undefined;
      const unsubscribe = hub.subscribe((rows, sent) => {
        pending.push(...rows, ...sent);
        wake?.();
      });
      const onAbort = () => wake?.();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        let last = input?.lastEventId ?? undefined;
        if (last !== undefined) {
          const [changed, sent] = await Promise.all([ctx.store.notifications.changedSince(last, REPLAY_LIMIT + 1), ctx.store.notifications.sentSince(last, REPLAY_LIMIT + 1)]);
          const missed = [...changed, ...sent];
          for (const delivery of sent) replayed.add(delivery.id);
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
          const items = pending.splice(0).filter((item) => last === undefined || (item.seq ?? 0) > last);
          if (items.length === 0) continue;
          const [unreadCount, mutes] = await Promise.all([ctx.store.notifications.unreadCount(), ctx.store.notifications.mutes()]);
          const muted = muteIndex(mutes, ctx.data.connections.clock.now());
          for (const item of items.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))) {
            last = item.seq ?? 0;
            const event: NotificationStreamEvent =
              'purpose' in item
                ? { kind: 'interrupt', interrupt: interruptionOf(item), replayed: replayed.delete(item.id) }
                : { kind: 'notification', notification: notificationOf(item, muted), unreadCount };
            yield tracked(String(last), event);
          }
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        signIn.stop();
        unsubscribe();
      }
    }),

  /** The notification policy (preferences, rules, quiet hours and the pause), the mutes, and whether it is quiet now. */
  policy: publicProcedure
    .input(z.void())
    .output(notificationPolicyViewSchema)
    .query(({ ctx }) => policyView(ctx)),

  /** Replaces the preferences (one per integration and event type). */
  savePreferences: publicProcedure
    .input(saveNotificationPreferencesSchema)
    .output(notificationPolicyViewSchema)
    .mutation(async ({ ctx, input }) => policyView(ctx, await ctx.notifications.inbox.savePolicy({ preferences: input.preferences }))),

  /** Replaces the ordered rules (at most 100); an invalid one is a 400 naming `rules.<n>.<field>`. */
  saveRules: publicProcedure
    .input(saveNotificationRulesSchema)
    .output(notificationPolicyViewSchema)
    .mutation(async ({ ctx, input }) => policyView(ctx, await ctx.notifications.inbox.savePolicy({ rules: input.rules }))),

  /** Replaces the quiet hours (the weekly windows and their time zone); the pause is `pause`'s. */
  saveQuietHours: publicProcedure
    .input(saveQuietHoursSchema)
    .output(notificationPolicyViewSchema)
    .mutation(async ({ ctx, input }) => policyView(ctx, await ctx.notifications.inbox.savePolicy({ quietHours: input }))),

  /** The flap hold of uptime monitors' outages, in seconds (0 to 3600; 0: no hold). */
  saveFlapHold: publicProcedure
    .input(saveFlapHoldSchema)
    .output(notificationPolicyViewSchema)
    .mutation(async ({ ctx, input }) => policyView(ctx, await ctx.notifications.inbox.savePolicy({ flapHoldSeconds: input.seconds }))),

  /** "Pause notifications until …" (null resumes): what is held meanwhile comes as one digest after. */
  pause: publicProcedure
    .input(pauseNotificationsSchema)
    .output(notificationPolicyViewSchema)
    .mutation(async ({ ctx, input }) => {
      if (input.until !== null && Date.parse(input.until) <= ctx.data.connections.clock.now()) throw fail('BAD_REQUEST', 'until is in the past: pick a later time');
      return policyView(ctx, await ctx.notifications.inbox.savePolicy({ pauseUntil: input.until }));
    }),

  /**
   * What an event would do arriving at `at` (default now), under the saved policy or unsaved edits: the decision and
   * each channel's outcome, by the same code as a real ingest, writing nothing.
   */
  dryRun: publicProcedure
    .input(dryRunSchema)
    .output(dryRunResultSchema)
    .mutation(async ({ ctx, input }) => {
      const arrivesAt = input.at === undefined ? ctx.data.connections.clock.now() : Date.parse(input.at);
      const override = input.policy === undefined ? undefined : notificationPolicySchema.partial().parse(input.policy);
      const { decision, stored, delivery } = await ctx.notifications.inbox.dryRun(input.event, arrivesAt, override);
      return { decision: { ...decision, trace: stored.trace }, delivery };
    }),

  /** Snoozes rows until a time (hidden and not counted; back unread then), or wakes them with null. */
  snooze: publicProcedure
    .input(snoozeSchema)
    .output(z.object({ snoozed: z.number().int(), unreadCount: z.number().int() }))
    .mutation(async ({ ctx, input }) => {
      try {
        const snoozed = await ctx.notifications.inbox.snooze(input.ids, input.until === null ? null : Date.parse(input.until));
        return { snoozed, unreadCount: await ctx.store.notifications.unreadCount() };
      } catch (error) {
        throw policyInput(error);
      }
    }),

  /** Mutes a subject until a time (at most 30 days), or ends its mute with null; answers the mutes that are on. */
  mute: publicProcedure
    .input(muteSchema)
    .output(z.object({ mutes: notificationPolicyViewSchema.shape.mutes }))
    .mutation(async ({ ctx, input }) => {
      try {
        return { mutes: await ctx.notifications.inbox.mute(input.subjectKey, input.until === null ? null : Date.parse(input.until)) };
      } catch (error) {
        throw policyInput(error);
      }
    }),
});
