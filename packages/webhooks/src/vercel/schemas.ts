import { z } from 'zod';
import { lenient } from '../json.ts';

/** What identify() reads before verification. */
export const deliveryId = z.object({ id: z.string().min(1) });

export const envelope = z.object({ type: z.string() });

export const deploymentEvent = z.object({
  type: z.string(),
  // Epoch milliseconds in the docs; tolerate an ISO string too.
  createdAt: z.union([z.number(), z.string()]).optional(),
  payload: z.object({
    deployment: z.object({
      id: z.string().min(1),
      name: z.string().optional(),
      url: z.string().nullish(),
      /** The git source of a deploy from a repository (`githubCommitRef`: the branch). Only the payload reads it. */
      meta: lenient(z.object({ githubCommitRef: lenient(z.string()) })),
    }),
    project: z.object({ id: z.string() }).nullish(),
    target: z.string().nullish(),
    links: z.object({ deployment: z.string().optional() }).nullish(),
  }),
});
