import { z } from 'zod';

const text = z.string().nullish();

/** Incident webhooks are JSON:API resources of type `incident`; monitor and on-call webhooks are not shown. */
export const incidentMarker = z.object({ data: z.object({ type: z.literal('incident') }) });

export const incidentDelivery = z.object({
  /** `started`, `acknowledged`, `resolved` (and `reopened` through the API); absent in API-shaped bodies. */
  event: z.string().optional(),
  data: z.object({
    id: z.union([z.string().min(1), z.number()]).transform((value) => String(value)),
    type: z.literal('incident'),
    attributes: z.object({
      name: text,
      url: text,
      cause: text,
      /** The Incidents API's `Started` | `Acknowledged` | `Resolved` | …, for bodies without `event`. */
      status: text,
      started_at: text,
      acknowledged_at: text,
      resolved_at: text,
    }),
    /** `{"monitor":{"data":{"id":"4","type":"monitor"}}}`: the monitor a dashboard project lists. */
    relationships: z
      .object({ monitor: z.object({ data: z.object({ id: z.union([z.string(), z.number()]).transform(String) }).nullish() }).nullish() })
      .nullish(),
  }),
});
export type IncidentDelivery = z.infer<typeof incidentDelivery>;
