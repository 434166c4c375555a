import { z } from 'zod';
import { sha256Hex, verifyHmacHex } from '../hmac.ts';
import { jsonObject, parseJsonAs, peekJson } from '../json.ts';
import type { WebhookProvider } from '../types.ts';

export const entityEvent = z.object({
  action: z.enum(['create', 'update', 'remove']),
  type: z.string(),
  url: z.string().optional(),
  createdAt: z.string().optional(),
  webhookTimestamp: z.number().optional(),
  updatedFrom: z.record(z.string(), z.unknown()).optional(),
  data: z.object({
    id: z.string(),
    identifier: z.string().optional(),
    title: z.string().optional(),
    name: z.string().optional(),
    body: z.string().optional(),
    updatedAt: z.string().optional(),
    state: z.object({ name: z.string(), type: z.string().optional() }).optional(),
    team: z.object({ key: z.string().optional(), name: z.string().optional() }).optional(),
    issue: z.object({ identifier: z.string().optional(), title: z.string().optional() }).optional(),
  }),
});

const past = { create: 'created', update: 'updated', remove: 'removed' } as const;
const shownTypes = new Set(['Issue', 'Comment', 'Project']);

/** Linear: `linear-signature` is the HMAC-SHA256 hex of the raw body; `Linear-Delivery`; signed `webhookTimestamp` (ms). */
export const linear: WebhookProvider = {
  integration: 'issue_tracker',

  verify: (rawBody, headers, secrets) =>
    verifyHmacHex({ algorithm: 'sha256', secrets, payload: rawBody, signature: headers.get('linear-signature') }),

  identify(rawBody, headers) {
    const signed = peekJson(rawBody)?.webhookTimestamp;
    const header = Number(headers.get('linear-timestamp') ?? Number.NaN);
    const timestamp = typeof signed === 'number' ? signed : Number.isFinite(header) ? header : undefined;
    return { deliveryId: headers.get('linear-delivery')?.trim() || sha256Hex(rawBody), ...(timestamp === undefined ? {} : { timestamp }) };
  },

  parse(rawBody, headers, receivedAt) {
    const kind = headers.get('linear-event') ?? peekJson(rawBody)?.type;
    if (typeof kind !== 'string' || !shownTypes.has(kind)) {
      const parsed = parseJsonAs(rawBody, jsonObject);
      return parsed.ok ? { ok: true, events: [] } : parsed;
    }
    const parsed = parseJsonAs(rawBody, entityEvent);
    if (!parsed.ok) return parsed;
    const { action, type, data, url, updatedFrom, webhookTimestamp } = parsed.value;
    const verb = past[action];
    const at = webhookTimestamp === undefined ? receivedAt.toISOString() : new Date(webhookTimestamp).toISOString();
    const moved = type === 'Issue' && action === 'update' && updatedFrom && 'stateId' in updatedFrom && data.state;
    const subject =
      type === 'Issue'
        ? `${data.identifier ?? 'Issue'} ${moved ? `moved to ${data.state?.name}` : verb}: ${data.title ?? ''}`
        : type === 'Comment'
          ? `Comment ${verb}${data.issue?.identifier ? ` on ${data.issue.identifier}` : ''}`
          : `Project ${verb}: ${data.name ?? ''}`;
    return {
      ok: true,
      events: [
        {
          integration: 'issue_tracker',
          type: `${type.toLowerCase()}.${verb}`,
          // Two updates of one issue are two events: the update time (or the delivery) tells them apart.
          sourceEventId: `linear:${type}:${data.id}:${action}:${data.updatedAt ?? headers.get('linear-delivery') ?? sha256Hex(rawBody).slice(0, 16)}`,
          title: subject.trim(),
          ...(url ? { url } : {}),
          ...(data.team?.key ? { project: data.team.key } : {}),
          severity: type === 'Issue' && data.state?.type === 'completed' ? 'success' : 'info',
          occurredAt: data.updatedAt ?? at,
        },
      ],
    };
  },
};
