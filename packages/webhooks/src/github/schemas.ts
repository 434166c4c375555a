import { z } from 'zod';
import { lenient } from '../json.ts';

const time = z.string().nullish();

// Fields below marked `lenient` are read only for an event's payload (what notification rules match on).
const text = lenient(z.string());
const flag = lenient(z.boolean());
const user = lenient(z.object({ login: text, type: text }));
/** `[{ name, color, … }]`; the payload keeps the names. */
const labels = lenient(z.array(z.object({ name: z.string() })));

export const repository = z.object({
  full_name: z.string().min(1),
  html_url: z.string().optional(),
  stargazers_count: z.number().optional(),
  private: flag,
});
export type Repository = z.infer<typeof repository>;

export const pullRequestEvent = z.object({
  action: z.string(),
  repository,
  sender: user,
  pull_request: z.object({
    number: z.number().int(),
    title: z.string(),
    html_url: z.string(),
    merged: z.boolean().nullish(),
    created_at: time,
    closed_at: time,
    merged_at: time,
    draft: flag,
    user,
    labels,
    base: lenient(z.object({ ref: text })),
    head: lenient(z.object({ ref: text })),
  }),
});

export const issuesEvent = z.object({
  action: z.string(),
  repository,
  sender: user,
  issue: z.object({
    number: z.number().int(),
    title: z.string(),
    html_url: z.string(),
    created_at: time,
    updated_at: time,
    closed_at: time,
    state: text,
    state_reason: text,
    user,
    labels,
  }),
});

export const releaseEvent = z.object({
  action: z.string(),
  repository,
  sender: user,
  release: z.object({
    id: z.number().int(),
    tag_name: z.string(),
    name: z.string().nullish(),
    html_url: z.string(),
    published_at: time,
    target_commitish: text,
    draft: flag,
    prerelease: flag,
  }),
});

export const deploymentStatusEvent = z.object({
  action: text,
  repository,
  sender: user,
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
  deployment: z.object({ id: z.number().int(), environment: z.string().optional(), ref: text, task: text }),
});

export const starEvent = z.object({
  action: z.string(),
  repository,
  starred_at: time,
  sender: z.object({ login: z.string(), type: text }),
});
