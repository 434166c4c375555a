import { cliImportResultSchema, oauthConnectionsSchema, oauthFinishInput, oauthOutcomeSchema, oauthStartedSchema, oauthStartInput } from '@dash/contracts';
import { z } from 'zod';
import { importFromCli } from '../oauth/cli-import.ts';
import { finishOAuth, oauthConnections, startOAuth } from '../oauth/flow.ts';
import { publicProcedure, router } from '../trpc.ts';

/** Connecting accounts without pasting tokens: OAuth's authorization-code flow, or Google's login from the command-line tools. */
export const oauthRouter = router({
  /** GET /api/auth/{provider}/redirect (the SvelteKit route sets the cookie and redirects). */
  start: publicProcedure
    .input(oauthStartInput)
    .output(oauthStartedSchema)
    .mutation(({ ctx, input }) => startOAuth(ctx, input)),

  /** GET /api/auth/{provider}/callback (the SvelteKit route clears the cookie and redirects to settings). */
  finish: publicProcedure
    .input(oauthFinishInput)
    .output(oauthOutcomeSchema)
    .mutation(({ ctx, input }) => finishOAuth(ctx, input)),

  /** Settings → Connections: each Google and GitHub credential's state and the redirect URIs to register. */
  connections: publicProcedure
    .input(z.void())
    .output(oauthConnectionsSchema)
    .query(({ ctx }) => oauthConnections(ctx)),

  /** POST /api/auth/cli-import: gcloud's or the Workspace CLI's Google login becomes the Google credential. */
  cliImport: publicProcedure
    .input(z.void())
    .output(cliImportResultSchema)
    .mutation(({ ctx }) => importFromCli(ctx, ctx.cliLocations)),
});
