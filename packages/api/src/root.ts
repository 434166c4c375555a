import { credentialsRouter } from './router/credentials.ts';
import { dataRouter } from './router/data.ts';
import { demoRouter } from './router/demo.ts';
import { projectsRouter } from './router/projects.ts';
import { settingsRouter } from './router/settings.ts';
import { createCallerFactory, router } from './trpc.ts';

export const appRouter = router({
  settings: settingsRouter,
  projects: projectsRouter,
  credentials: credentialsRouter,
  data: dataRouter,
  demo: demoRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;
