import { authRouter, sessionsRouter, tokensRouter } from './router/auth.ts';
import { alertsRouter } from './router/alerts.ts';
import { oauthRouter } from './router/oauth.ts';
import { backupRouter } from './router/backup.ts';
import { briefingRouter } from './router/briefing.ts';
import { credentialsRouter } from './router/credentials.ts';
import { notificationsRouter, relayRouter, webhooksRouter } from './router/notifications.ts';
import { dataRouter } from './router/data.ts';
import { databaseRouter } from './router/database.ts';
import { demoRouter } from './router/demo.ts';
import { projectsRouter } from './router/projects.ts';
import { pushRouter } from './router/push.ts';
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
  backup: backupRouter,
  alerts: alertsRouter,
  push: pushRouter,
  briefing: briefingRouter,
  oauth: oauthRouter,
});

export type AppRouter = typeof appRouter;
const callerOf = createCallerFactory(appRouter);

/** The procedures over one context, for loads, the REST adapter and tests; server faults are logged. */
/** `signal` ends what the caller started (a subscription's stream) when the request behind it goes away. */
export const createCaller = (ctx: Context, signal?: AbortSignal) =>
  callerOf(ctx, { onError: ({ error, path }) => logFailure(ctx.log, path, error), signal });
export type Caller = ReturnType<typeof createCaller>;
