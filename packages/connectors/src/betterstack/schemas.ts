import { z } from 'zod';

/** Better Stack Uptime speaks JSON:API: `{ data, pagination }`, fields under `attributes`. */
const pagination = z.object({ next: z.string().nullable() }).loose();

export const monitorStatus = z.enum(['paused', 'pending', 'maintenance', 'up', 'validating', 'down']);

export const monitor = z.object({
  id: z.string(),
  type: z.literal('monitor'),
  attributes: z
    .object({
      url: z.string(),
      pronounceable_name: z.string().nullable(),
      status: monitorStatus,
      last_checked_at: z.string().nullable(),
      paused_at: z.string().nullable().optional(),
      created_at: z.string().nullable().optional(),
    })
    .loose(),
});
export type BetterStackMonitor = z.infer<typeof monitor>;

export const monitorList = z.object({ data: z.array(monitor), pagination });

/** Seconds, per region, newest last. */
export const responseTimes = z.object({
  data: z.object({
    attributes: z.object({
      regions: z.array(
        z.object({
          region: z.string(),
          response_times: z.array(z.object({ at: z.string(), response_time: z.number() }).loose()),
        }),
      ),
    }),
  }),
});

export const incident = z.object({
  id: z.string(),
  attributes: z
    .object({
      name: z.string().nullable(),
      url: z.string().nullable(),
      cause: z.string().nullable(),
      started_at: z.string(),
      resolved_at: z.string().nullable(),
      status: z.string(),
    })
    .loose(),
});
export type BetterStackIncident = z.infer<typeof incident>;

export const incidentList = z.object({ data: z.array(incident), pagination });

/**
 * `GET /v2/monitors/{id}/sla`: the monitor's availability over the asked days (a percentage, 99.98), its downtime and
 * its incidents' count and lengths (seconds).
 */
export const monitorSla = z.object({
  data: z.object({
    id: z.string(),
    attributes: z.object({ availability: z.number().min(0).max(100), number_of_incidents: z.number().int().nonnegative() }).loose(),
  }),
});

/** `{"errors": "..."}`: a string, sometimes a list. */
export const errorBody = z.object({ errors: z.union([z.string(), z.array(z.string())]) });
