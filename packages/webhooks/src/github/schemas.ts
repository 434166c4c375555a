import { z } from 'zod';

const time = z.string().nullish();

export const repository = z.object({
  full_name: z.string().min(1),
  html_url: z.string().optional(),
  stargazers_count: z.number().optional(),
});
export type Repository = z.infer<typeof repository>;

export const pullRequestEvent = z.object({
  action: z.string(),
  repository,
  pull_request: z.object({
    number: z.number().int(),
    title: z.string(),
    html_url: z.string(),
    merged: z.boolean().nullish(),
    created_at: time,
    closed_at: time,
    merged_at: time,
  }),
});

export const issuesEvent = z.object({
  action: z.string(),
  repository,
  issue: z.object({
    number: z.number().int(),
    title: z.string(),
    html_url: z.string(),
    created_at: time,
    updated_at: time,
    closed_at: time,
  }),
});

export const releaseEvent = z.object({
  action: z.string(),
  repository,
  release: z.object({
    id: z.number().int(),
    tag_name: z.string(),
    name: z.string().nullish(),
    html_url: z.string(),
    published_at: time,
  }),
});

export const deploymentStatusEvent = z.object({
  repository,
  deployment_status: z.object({
    id: z.number().int(),
    // It becomes part of the event type, so only GitHub's own lowercase words.
    state: z.string().regex(/^[a-z_]+$/),
    environment: z.string().optional(),
    target_url: z.string().nullish(),
    environment_url: z.string().nullish(),
    log_url: z.string().nullish(),
    created_at: time,
  }),
  deployment: z.object({ id: z.number().int(), environment: z.string().optional() }),
});

export const starEvent = z.object({
  action: z.string(),
  repository,
  starred_at: time,
  sender: z.object({ login: z.string() }),
});
