import { z } from 'zod';

/**
 * Sentry's issue (a "group") as the issue lists return it. `count` is a STRING (it can exceed 2^53 in
 * theory; the description promises no digits); `userCount` is a number; timestamps are ISO 8601, with microseconds, in UTC. `firstSeen` and
 * `lastSeen` are null when no event falls in the asked environment.
 */
export const issue = z
  .object({
    id: z.string(),
    shortId: z.string().optional(),
    title: z.string(),
    culprit: z.string().nullable(),
    permalink: z.string().nullable().optional(),
    level: z.string(),
    status: z.string(),
    count: z.union([z.string(), z.number().int().nonnegative()]),
    userCount: z.number().int().nonnegative(),
    firstSeen: z.string().nullable(),
    lastSeen: z.string().nullable(),
  })
  .loose();
export type SentryIssue = z.infer<typeof issue>;

export const issueList = z.array(issue);

/** `GET /projects/{org}/{project}/`: the numeric id the organization's issue search filters by. */
export const project = z.object({ id: z.string(), slug: z.string() }).loose();

export const projectList = z.array(project);

export const organizationList = z.array(z.object({ id: z.string(), slug: z.string() }).loose());

/** `{"detail":"Invalid token"}`; a few validation errors come as `{"detail": {"message": "..."}}`. */
export const errorBody = z.object({ detail: z.union([z.string(), z.object({ message: z.string() }).loose()]) });

/**
 * `GET /organizations/{org}/stats_v2/`: `intervals` are the buckets' starts (`2022-02-28T00:00:00Z`), and each group
 * (one per value of the `groupBy` columns that had any events in the range) has a series per field, one count per
 * interval, Sentry's zeros included.
 */
export const outcomeStats = z
  .object({
    start: z.string(),
    end: z.string(),
    intervals: z.array(z.string()),
    groups: z.array(
      z
        .object({
          by: z.record(z.string(), z.unknown()),
          totals: z.record(z.string(), z.unknown()),
          series: z.object({ 'sum(quantity)': z.array(z.number().nonnegative()).optional() }).loose(),
        })
        .loose(),
    ),
  })
  .loose();
export type OutcomeStats = z.infer<typeof outcomeStats>;
