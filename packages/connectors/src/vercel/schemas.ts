import { z } from 'zod';

/**
 * Vercel REST API (`GET /v6/deployments`): timestamps are JavaScript milliseconds, `url` has no scheme
 * (and is null while a deployment is still uploading), `target` is `production` or null (a preview).
 */
export const deploymentState = z.enum(['BUILDING', 'ERROR', 'INITIALIZING', 'QUEUED', 'READY', 'CANCELED', 'DELETED']);

export const deployment = z
  .object({
    uid: z.string(),
    name: z.string(),
    url: z.string().nullable(),
    created: z.number(),
    ready: z.number().nullable().optional(),
    state: z.string().optional(),
    readyState: z.string().optional(),
    target: z.string().nullable().optional(),
    /**
     * A string map; the commit keys are present only for Git deployments (`github…`, `gitlab…`, `bitbucket…`).
     * Only its string values are read, so one odd entry does not cost the whole list.
     */
    meta: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
export type VercelDeployment = z.infer<typeof deployment>;

/** `next` is the `created` of the page's oldest deployment: pass it as `until` for the next page; null at the end. */
const pagination = z.object({ count: z.number(), next: z.number().nullable(), prev: z.number().nullable() }).loose();

export const deploymentList = z.object({ deployments: z.array(deployment), pagination }).loose();

export const userResponse = z.object({ user: z.object({ id: z.string() }).loose() }).loose();

/** `{"error":{"code":"forbidden","message":"Not authorized","invalidToken":true}}`. */
export const errorBody = z.object({ error: z.object({ code: z.string().optional(), message: z.string() }).loose() });
