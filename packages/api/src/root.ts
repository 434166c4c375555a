import { authRouter, sessionsRouter, tokensRouter } from './router/auth.ts';
import { alertsRouter } from './router/alerts.ts';
import { oauthRouter } from './router/oauth.ts';
import { backupRouter } from './router/backup.ts';
import { briefingRouter } from './router/briefing.ts';
import { briefingDestinationsRouter } from './router/briefing-destinations.ts';
import { credentialsRouter } from './router/credentials.ts';
import { notificationsRouter } from './router/notifications.ts';
import { relayRouter, webhooksRouter } from './router/relay.ts';
import { dataRouter } from './router/data.ts';
import { deliveriesRouter } from './router/deliveries.ts';
import { databaseRouter } from './router/database.ts';
import { demoRouter } from './router/demo.ts';
import { historyRouter } from './router/history.ts';
import { metricAlertsRouter } from './router/metric-alerts.ts';
import { projectsRouter } from './router/projects.ts';
import { pushRouter } from './router/push.ts';
import { channelsRouter } from './router/channels.ts';
import { settingsRouter } from './router/settings.ts';
import type { Context } from './context.ts';
import { createCallerFactory, logFailure, router } from './trpc.ts';

export const appRouter = router({
  settings: settingsRouter,
  projects: projectsRouter,
  credentials: credentialsRouter,
  data: dataRouter,
  database: databaseRouter,
  demo: demoRouter,
  auth: authRouter,
  sessions: sessionsRouter,
  tokens: tokensRouter,
  notifications: notificationsRouter,
  relay: relayRouter,
  webhooks: webhooksRouter,
  deliveries: deliveriesRouter,
  backup: backupRouter,
  alerts: alertsRouter,
  push: pushRouter,
  channels: channelsRouter,
  briefing: briefingRouter,
  briefingDestinations: briefingDestinationsRouter,
  history: historyRouter,
  metricAlerts: metricAlertsRouter,
  oauth: oauthRouter,
});

export type AppRouter = typeof appRouter;
const callerOf = createCallerFactory(appRouter);

/** The procedures over one context, for loads, the REST adapter and tests; server faults are logged. */
/** `signal` ends what the caller started (a subscription's stream) when the request behind it goes away. */
export const createCaller = (ctx: Context, signal?: AbortSignal) =>
  callerOf(ctx, { onError: ({ error, path }) => logFailure(ctx.log, path, error), signal });
export type Caller = ReturnType<typeof createCaller>;

/**
 * The procedures over `ctx` reading the data cache alone, for a page's first render (`DataCache.cachedOnly`): what is
 * fresh in the cache is answered as usual; when a call needed an upstream, `missed()` says so (the call failed, or,
 * for the briefing, which folds its reads' failures into its answer, holds such a failure), and that failure is not
 * logged: the page asks `createCaller`'s procedure again, streamed.
 */
export function cachedCaller(ctx: Context, signal?: AbortSignal): { caller: Caller; missed: () => boolean } {
  const cache = ctx.data.cache.cachedOnly();
  const caller = callerOf(
    { ...ctx, data: { ...ctx.data, cache } },
    { onError: ({ error, path }) => cache.missed || logFailure(ctx.log, path, error), signal },
  );
  return { caller, missed: () => cache.missed };
}
