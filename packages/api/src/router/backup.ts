import { backupResultSchema, backupStatusSchema, type BackupTrigger } from '@dash/contracts';
import { z } from 'zod';
import { BackupBusyError } from '../backup/runner.ts';
import type { Context } from '../context.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';

/** POST /api/backup comes with BACKUP_SECRET (a cron); the settings page's button with the owner's session. */
const triggerOf = (ctx: Context): BackupTrigger => (ctx.request?.identity?.via === 'backup' ? 'http' : 'dashboard');

/** Another process backing up is a 409 carrying its progress, not a second backup. */
async function orConflict<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BackupBusyError) throw fail('CONFLICT', error.message, error);
    throw error;
  }
}

export const backupRouter = router({
  /** Backs up (or joins the backup this process runs) and answers SPEC.md's result once it is over. */
  run: publicProcedure
    .input(z.void())
    .output(backupResultSchema)
    .mutation(({ ctx }) => orConflict(() => ctx.backup.run(triggerOf(ctx)))),

  /** Starts a backup (or finds the one running) and answers its progress at once: the settings page's button. */
  start: publicProcedure
    .input(z.void())
    .output(backupStatusSchema)
    .mutation(({ ctx }) => orConflict(() => ctx.backup.start(triggerOf(ctx)))),

  /** What runs (in any process on this database), what ran last, and the schedule. */
  status: publicProcedure
    .input(z.void())
    .output(backupStatusSchema)
    .query(({ ctx }) => ctx.backup.status()),
});
