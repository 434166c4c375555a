import { cliImportResultSchema } from '@dash/contracts';
import { z } from 'zod';
import { importFromCli } from '../oauth/cli-import.ts';
import { publicProcedure, router } from '../trpc.ts';

/** Connecting accounts without pasting tokens: for now, Google's from the command-line tools on this computer. */
export const oauthRouter = router({
  /** POST /api/auth/cli-import: gcloud's or the Workspace CLI's Google login becomes the Google credential. */
  cliImport: publicProcedure
    .input(z.void())
    .output(cliImportResultSchema)
    .mutation(({ ctx }) => importFromCli(ctx, ctx.cliLocations)),
});
