import { credentialsRouter } from './router/credentials.ts';
import { projectsRouter } from './router/projects.ts';
import { settingsRouter } from './router/settings.ts';
import { createCallerFactory, router } from './trpc.ts';

export const appRouter = router({
  settings: settingsRouter,
  projects: projectsRouter,
  credentials: credentialsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;
