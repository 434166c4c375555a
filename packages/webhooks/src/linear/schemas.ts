import { z } from 'zod';
import { lenient } from '../json.ts';

const text = z.string().nullish();

// Fields marked `lenient` are read only for an event's payload (what notification rules match on).
const extra = lenient(z.string());
/** `[{ id, name, color }]`; the payload keeps the names. */
const labels = lenient(z.array(z.object({ name: z.string() })));

/** What identify() reads before verification: the signed send time. */
export const signedTimestamp = z.object({ webhookTimestamp: z.number().finite() });

export const envelope = z.object({ type: z.string() });

const entityEvent = <T extends z.ZodRawShape>(data: T) =>
  z.object({
    action: z.string(),
    type: z.string(),
    url: text,
    createdAt: text,
    webhookTimestamp: z.number().finite().optional(),
    updatedFrom: z.record(z.string(), z.unknown()).nullish(),
    actor: lenient(z.object({ name: extra, type: extra })),
    data: z.object({ id: z.string().min(1), url: text, createdAt: text, updatedAt: text, ...data }),
  });

/** The fields every entity event has, whatever its type. */
export const anyEntityEvent = entityEvent({});
export type AnyEntityEvent = z.infer<typeof anyEntityEvent>;

export const issueEvent = entityEvent({
  identifier: text,
  title: z.string(),
  state: z.object({ name: z.string(), type: text }).nullish(),
  teamId: text,
  team: z.object({ id: text, key: text }).nullish(),
  /** 0 none, 1 urgent, 2 high, 3 medium, 4 low. */
  priority: lenient(z.number()),
  priorityLabel: extra,
  estimate: lenient(z.number()),
  labels,
  assignee: lenient(z.object({ name: extra })),
});

export const commentEvent = entityEvent({
  body: text,
  issue: z.object({ identifier: text, title: text }).nullish(),
  user: lenient(z.object({ name: extra })),
});

export const projectEvent = entityEvent({
  name: z.string(),
  status: lenient(z.object({ name: extra, type: extra })),
});
