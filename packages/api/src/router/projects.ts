import {
  okSchema,
  projectCreateSchema,
  projectListSchema,
  projectPatchSchema,
  projectSchema,
  projectSlugInput,
  type Project,
} from '@dash/contracts';
import { refusedBaseUrl, sentry, sentryHostRefusal } from '@dash/connectors';
import { ProjectExistsError } from '@dash/db';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { CredentialsKeyMismatchError } from '../credentials/vault.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';
import { historyChanged } from '../history/memo.ts';

const noSuchProject = (slug: string) => fail('NOT_FOUND', `No project with the slug "${slug}"`);

function found(slug: string, project: Project | undefined): Project {
  if (!project) throw noSuchProject(slug);
  return project;
}

/** A self-hosted Sentry `host` may not be a literal link-local or cloud-metadata address; hostnames are checked at connect time. */
async function assertHostAllowed(ctx: Context, integrations: { error_tracker?: { host?: string | undefined; credentialKey?: string | undefined } | null | undefined } | undefined) {
  const tracker = integrations?.error_tracker;
  const host = tracker?.host;
  if (host === undefined) return;
  const refused = refusedBaseUrl(host);
  if (refused) throw fail('BAD_REQUEST', `Sentry host: ${refused}`);
  // The stored token goes only to the host it was saved for (its base URL, or sentry.io); the connector checks again at each call.
  const key = tracker?.credentialKey ?? 'sentry';
  let values: Record<string, string> | undefined;
  try {
    values = await ctx.data.connections.stored(key);
  } catch (error) {
    if (!(error instanceof CredentialsKeyMismatchError)) throw error;
  }
  const moved = values === undefined ? undefined : sentryHostRefusal(host, values.baseUrl ?? sentry.defaultBaseUrl, key);
  if (moved) throw fail('BAD_REQUEST', `Sentry host: ${moved}`);
}

/**
 * Late assignment: the notifications that arrived before a project claimed their repository, monitor, Sentry project,
 * Vercel project or Linear team go to it. Right after the project write, which stays saved when this fails: every
 * project save looks at every unassigned notification again, so the next one catches up.
 */
async function assignEarlierNotifications(ctx: Context) {
  try {
    await ctx.notifications.inbox.assign();
  } catch (error) {
    ctx.log.warn(`notifications: could not give earlier notifications to their project (the next project save tries again): ${(error as Error).message}`);
  }
}

export const projectsRouter = router({
  list: publicProcedure
    .input(z.void())
    .output(projectListSchema)
    .query(async ({ ctx }) => ({ projects: await ctx.store.projects.list() })),

  get: publicProcedure
    .input(projectSlugInput)
    .output(projectSchema)
    .query(async ({ ctx, input }) => found(input.slug, await ctx.store.projects.get(input.slug))),

  create: publicProcedure
    .input(projectCreateSchema)
    .output(projectSchema)
    .mutation(async ({ ctx, input }) => {
      await assertHostAllowed(ctx, input.integrations);
      let project: Project;
      try {
        project = await ctx.store.projects.create(input);
      } catch (error) {
        if (error instanceof ProjectExistsError) throw fail('CONFLICT', error.message, error);
        throw error;
      }
      await assignEarlierNotifications(ctx);
      // Its integrations' past days are read back now, not at the history keeper's next look.
      historyChanged(ctx.store);
      ctx.history.kick();
      return project;
    }),

  update: publicProcedure
    .input(projectSlugInput.extend({ patch: projectPatchSchema }))
    .output(projectSchema)
    .mutation(async ({ ctx, input }) => {
      await assertHostAllowed(ctx, input.patch.integrations);
      const project = found(input.slug, await ctx.store.projects.update(input.slug, input.patch));
      await assignEarlierNotifications(ctx);
      historyChanged(ctx.store);
      ctx.history.kick();
      return project;
    }),

  remove: publicProcedure
    .input(projectSlugInput)
    .output(okSchema)
    .mutation(async ({ ctx, input }) => {
      if (!(await ctx.store.projects.remove(input.slug))) throw noSuchProject(input.slug);
      // Its history goes with it (an export taken before keeps it).
      await ctx.store.history.removeForProjects([input.slug]);
      await ctx.store.metricAlerts.removeForProjects([input.slug]);
      historyChanged(ctx.store);
      return { ok: true as const };
    }),
});
