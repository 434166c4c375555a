import { z } from 'zod';

const repository = z.object({ full_name: z.string(), html_url: z.string().optional() });

export const pullRequestEvent = z.object({
  action: z.string(),
  repository,
  pull_request: z.object({
    number: z.number(),
    title: z.string(),
    html_url: z.string(),
    merged: z.boolean().nullable().optional(),
    created_at: z.string().nullable().optional(),
    closed_at: z.string().nullable().optional(),
    merged_at: z.string().nullable().optional(),
  }),
});

export const issuesEvent = z.object({
  action: z.string(),
  repository,
  issue: z.object({
    number: z.number(),
    title: z.string(),
    html_url: z.string(),
    created_at: z.string().nullable().optional(),
    closed_at: z.string().nullable().optional(),
    updated_at: z.string().nullable().optional(),
  }),
});

export const releaseEvent = z.object({
  action: z.string(),
  repository,
  release: z.object({
    id: z.number(),
    tag_name: z.string(),
    name: z.string().nullable().optional(),
    html_url: z.string(),
    published_at: z.string().nullable().optional(),
  }),
});

export const deploymentStatusEvent = z.object({
  repository,
  deployment_status: z.object({
    id: z.number(),
    state: z.string(),
    environment: z.string().optional(),
    target_url: z.string().nullable().optional(),
    environment_url: z.string().nullable().optional(),
    created_at: z.string().optional(),
  }),
  deployment: z.object({ id: z.number(), ref: z.string().optional(), environment: z.string().optional() }),
});

export const starEvent = z.object({
  action: z.string(),
  repository: repository.extend({ stargazers_count: z.number().optional() }),
  starred_at: z.string().nullable().optional(),
  sender: z.object({ login: z.string() }),
});
