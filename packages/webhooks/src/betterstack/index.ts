import { z } from 'zod';
import { sha256Hex, tokensMatch } from '../hmac.ts';
import { jsonObject, parseJsonAs, peekJson } from '../json.ts';
import type { Severity, WebhookProvider } from '../types.ts';

export const incidentEvent = z.object({
  event: z.string(),
  data: z.object({
    id: z.union([z.string(), z.number()]).transform(String),
    type: z.literal('incident'),
    attributes: z.object({
      name: z.string().nullable().optional(),
      url: z.string().nullable().optional(),
      cause: z.string().nullable().optional(),
      started_at: z.string().nullable().optional(),
      acknowledged_at: z.string().nullable().optional(),
      resolved_at: z.string().nullable().optional(),
    }),
  }),
});

const states: Record<string, { type: string; severity: Severity; verb: string }> = {
  started: { type: 'monitor.down', severity: 'error', verb: 'Monitor down' },
  reopened: { type: 'monitor.down', severity: 'error', verb: 'Monitor down again' },
  acknowledged: { type: 'monitor.acknowledged', severity: 'warning', verb: 'Incident acknowledged' },
  resolved: { type: 'monitor.up', severity: 'success', verb: 'Monitor up' },
};

/** Better Stack signs nothing: a shared token in `x-betterstack-token` or `Authorization: Bearer`, checked in constant time. */
export const betterstack: WebhookProvider = {
  integration: 'uptime_monitor',

  verify(_rawBody, headers, secrets) {
    const bearer = /^Bearer\s+(.+)$/i.exec(headers.get('authorization') ?? '')?.[1];
    const token = headers.get('x-betterstack-token') ?? bearer ?? '';
    return tokensMatch(token.trim(), secrets);
  },

  identify: (rawBody) => ({ deliveryId: sha256Hex(rawBody) }),

  parse(rawBody, _headers, receivedAt) {
    const data = peekJson(rawBody)?.data;
    const isIncident = typeof data === 'object' && data !== null && 'type' in data && data.type === 'incident';
    if (!isIncident) {
      const parsed = parseJsonAs(rawBody, jsonObject);
      return parsed.ok ? { ok: true, events: [] } : parsed;
    }
    const parsed = parseJsonAs(rawBody, incidentEvent);
    if (!parsed.ok) return parsed;
    const { event, data: incident } = parsed.value;
    const state = Object.hasOwn(states, event) ? states[event] : undefined;
    if (!state) return { ok: true, events: [] };
    const { name, url, cause, started_at, acknowledged_at, resolved_at } = incident.attributes;
    const when = event === 'resolved' ? resolved_at : event === 'acknowledged' ? acknowledged_at : started_at;
    const label = name ?? url ?? `incident ${incident.id}`;
    return {
      ok: true,
      events: [
        {
          integration: 'uptime_monitor',
          type: state.type,
          // The incident id keeps two outages of one monitor apart; the state keeps its down and up apart.
          sourceEventId: `betterstack:incident:${incident.id}:${event}:${when ?? ''}`,
          title: `${state.verb}: ${label}${event === 'started' && cause ? ` (${cause})` : ''}`,
          ...(url ? { url } : {}),
          ...(name ? { project: name } : {}),
          severity: state.severity,
          occurredAt: when ?? receivedAt.toISOString(),
        },
      ],
    };
  },
};
