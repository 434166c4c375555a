import { z } from 'zod';

const id = z.union([z.string().min(1), z.number()]).transform((value) => String(value));
const text = z.string().nullish();

export const issueEvent = z.object({
  action: z.string(),
  data: z.object({
    issue: z.object({
      id,
      shortId: text,
      title: z.string(),
      level: text,
      firstSeen: text,
      lastSeen: text,
      web_url: text,
      permalink: text,
      project: z.object({ slug: z.string() }).nullish(),
    }),
  }),
});

export const errorEvent = z.object({
  action: z.string(),
  data: z.object({
    error: z.object({
      event_id: z.string().min(1),
      title: z.string(),
      level: text,
      datetime: text,
      web_url: text,
      /** The API address, the only place naming the project's slug: `/api/0/projects/<org>/<slug>/events/<id>/`. */
      url: text,
      project: z.union([z.number(), z.string()]).transform((value) => String(value)).nullish(),
    }),
  }),
});
