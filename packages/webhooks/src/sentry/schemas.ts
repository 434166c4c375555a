import { z } from 'zod';
import { lenient } from '../json.ts';

const id = z.union([z.string().min(1), z.number()]).transform((value) => String(value));
const text = z.string().nullish();
/** Read only for an event's payload (what notification rules match on): a value of another shape reads as absent. */
const extra = lenient(z.string());

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
      culprit: extra,
      status: extra,
      /** `new`, `regressed`, `escalating`, `ongoing`… */
      substatus: extra,
      /** `high`, `medium`, `low`. */
      priority: extra,
      platform: extra,
      userCount: lenient(z.number()),
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
      issue_id: extra,
      culprit: extra,
      platform: extra,
      environment: extra,
      release: extra,
    }),
  }),
});
