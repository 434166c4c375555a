import { z } from 'zod';

/**
 * Linear answers GraphQL: `{ data }` on success, `{ errors: [...] }` (sometimes with partial data) on
 * failure, with HTTP 200, 400 or 401. `extensions.code` says what kind of failure it was.
 */
export const graphqlError = z
  .object({
    message: z.string(),
    extensions: z
      .object({
        code: z.string().optional(),
        type: z.string().optional(),
        userPresentableMessage: z.string().optional(),
      })
      .loose()
      .optional(),
  })
  .loose();
export type LinearGraphQLError = z.infer<typeof graphqlError>;

export const errorBody = z.object({ errors: z.array(graphqlError).min(1) }).loose();

/** The envelope only; `data` is parsed against the operation's own schema once `errors` is ruled out. */
export const envelope = z.object({ data: z.unknown().optional(), errors: z.array(graphqlError).optional() }).loose();

const pageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }).loose();

export const issue = z
  .object({
    id: z.string(),
    identifier: z.string(),
    title: z.string(),
    url: z.string(),
    /** 0 none, 1 urgent, 2 high, 3 medium, 4 low, says Linear; typed Float, so map.ts reads any other value as none. */
    priority: z.number(),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
    state: z.object({ type: z.string() }).loose(),
    labels: z.object({ nodes: z.array(z.object({ name: z.string() }).loose()) }).loose(),
  })
  .loose();
export type LinearIssue = z.infer<typeof issue>;

export const issuesData = z.object({ issues: z.object({ nodes: z.array(issue), pageInfo }).loose() });

export const viewerData = z.object({ viewer: z.object({ id: z.string(), name: z.string() }).loose() });
