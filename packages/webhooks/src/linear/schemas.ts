import { z } from 'zod';

const text = z.string().nullish();

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
});

export const commentEvent = entityEvent({
  body: text,
  issue: z.object({ identifier: text, title: text }).nullish(),
});

export const projectEvent = entityEvent({ name: z.string() });
