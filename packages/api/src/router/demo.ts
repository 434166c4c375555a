import { credentialSaveSchema, projectCreateSchema } from '@dash/contracts';
import { relayEventSchema } from '@dash/webhooks';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';
import { historyChanged } from '../history/memo.ts';

const DEMO = 'demo';

/** What the demo created, so removing it removes exactly that and nothing the user made. */
const demoRecord = z.object({ projects: z.array(z.string()), credentials: z.array(z.string()) });
type DemoRecord = z.infer<typeof demoRecord>;

const demoStatus = z.object({ available: z.boolean(), active: z.boolean(), projects: z.array(z.string()) });

async function recordOf(ctx: Context): Promise<DemoRecord | undefined> {
  const parsed = demoRecord.safeParse(await ctx.store.meta.get(DEMO));
  return parsed.success ? parsed.data : undefined;
}

async function saveCredentials(ctx: Context, credentials: readonly { key: string; values: Record<string, string> }[]) {
  for (const credential of credentials) {
    const { key, values } = credentialSaveSchema.parse(credential);
    await ctx.data.connections.save(key, values);
  }
}

/**
 * The sandbox listens on new ports in every process: a demo that was active before a restart gets
 * its credentials pointed at this process's sandbox. Nothing happens when there is no demo.
 */
export async function resumeDemo(ctx: Context): Promise<boolean> {
  const record = await recordOf(ctx);
  if (!record || !ctx.demo) return false;
  const setup = await ctx.demo.setup();
  await saveCredentials(ctx, setup.credentials.filter((c) => record.credentials.includes(c.key)));
  await ctx.data.cache.clear();
  return true;
}

/** Creates the demo projects on an empty dashboard; refuses when there is anything to collide with. */
export async function startDemo(ctx: Context): Promise<DemoRecord> {
  if (!ctx.demo) throw fail('SERVICE_UNAVAILABLE', 'This server offers no demo');
  if (await recordOf(ctx)) throw fail('CONFLICT', 'The demo is already running');
  if ((await ctx.store.projects.list()).length > 0) {
    throw fail('CONFLICT', 'The demo starts only on an empty dashboard: it would mix its made-up numbers with your projects');
  }
  const setup = await ctx.demo.setup();
  const record: DemoRecord = { projects: setup.projects.map((p) => p.slug), credentials: setup.credentials.map((c) => c.key) };
  // Recorded first, so a crash half-way still leaves everything the demo made removable.
  await ctx.store.meta.put(DEMO, record);
  await saveCredentials(ctx, setup.credentials);
  for (const project of setup.projects) await ctx.store.projects.create(projectCreateSchema.parse(project));
  // A few hours of what the products' webhooks would have brought, so the bell is not empty.
  await ctx.notifications.inbox.ingest(z.array(relayEventSchema).parse(setup.events ?? []));
  ctx.log.info(`demo started: ${record.projects.join(', ')}`);
  // The demo's months of history are read back from its fake providers at once.
  historyChanged(ctx.store);
  ctx.history.kick();
  return record;
}

export const demoRouter = router({
  status: publicProcedure
    .input(z.void())
    .output(demoStatus)
    .query(async ({ ctx }) => {
      const record = await recordOf(ctx);
      return { available: ctx.demo !== undefined, active: record !== undefined, projects: record?.projects ?? [] };
    }),

  start: publicProcedure
    .input(z.void())
    .output(demoRecord)
    .mutation(({ ctx }) => startDemo(ctx)),

  remove: publicProcedure
    .input(z.void())
    .output(demoRecord)
    .mutation(async ({ ctx }) => {
      const record = await recordOf(ctx);
      if (!record) throw fail('NOT_FOUND', 'No demo is running');
      for (const slug of record.projects) await ctx.store.projects.remove(slug);
      for (const key of record.credentials) await ctx.store.credentials.remove(key);
      await ctx.store.notifications.removeForProjects(record.projects);
      await ctx.store.history.removeForProjects(record.projects);
      await ctx.store.metricAlerts.removeForProjects(record.projects);
      historyChanged(ctx.store);
      await ctx.store.meta.put(DEMO, null);
      await ctx.data.cache.clear();
      ctx.log.info('demo removed');
      return record;
    }),
});
