import { z } from 'zod';

/** A pull request as `GET /repos/{owner}/{repo}/pulls` lists it; `merged_at` is null unless it was merged. */
export const pull = z
  .object({
    number: z.number().int(),
    title: z.string(),
    html_url: z.string(),
    state: z.string(),
    updated_at: z.string(),
    merged_at: z.string().nullable(),
  })
  .loose();
export type GitHubPull = z.infer<typeof pull>;

export const pullList = z.array(pull);

export const user = z.object({ login: z.string(), id: z.number() }).loose();

/** `{"message": "Bad credentials", "documentation_url": "...", "status": "401"}` */
export const errorBody = z.object({ message: z.string(), documentation_url: z.string().optional() }).loose();
