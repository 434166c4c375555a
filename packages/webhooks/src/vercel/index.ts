import { z } from 'zod';
import { sha256Hex, verifyHmacHex } from '../hmac.ts';
import { parseJsonAs, peekJson } from '../json.ts';
import type { Severity, WebhookProvider } from '../types.ts';

export const deploymentEvent = z.object({
  id: z.string(),
  type: z.string(),
  createdAt: z.number().optional(),
  payload: z
    .object({
      deployment: z.object({ id: z.string(), name: z.string().optional(), url: z.string().optional() }).optional(),
      project: z.object({ id: z.string() }).optional(),
      target: z.string().nullable().optional(),
      links: z.object({ deployment: z.string().optional() }).optional(),
    })
    .optional(),
});

const shown: Record<string, { state: string; severity: Severity; verb: string }> = {
  'deployment.created': { state: 'created', severity: 'info', verb: 'Deploying' },
  'deployment.succeeded': { state: 'succeeded', severity: 'success', verb: 'Deployed' },
  'deployment.error': { state: 'error', severity: 'error', verb: 'Deploy failed' },
};

/** Vercel: `x-vercel-signature` is the HMAC-SHA1 hex of the raw body; the body `id` identifies the delivery. */
export const vercel: WebhookProvider = {
  integration: 'deploy_host',

  verify: (rawBody, headers, secrets) =>
    verifyHmacHex({ algorithm: 'sha1', secrets, payload: rawBody, signature: headers.get('x-vercel-signature') }),

  identify(rawBody) {
    const id = peekJson(rawBody)?.id;
    return { deliveryId: typeof id === 'string' && id !== '' ? id : sha256Hex(rawBody) };
  },

  parse(rawBody, _headers, receivedAt) {
    const parsed = parseJsonAs(rawBody, deploymentEvent);
    if (!parsed.ok) return parsed;
    const { type, createdAt, payload } = parsed.value;
    const kind = Object.hasOwn(shown, type) ? shown[type] : undefined;
    if (!kind) return { ok: true, events: [] };
    const deployment = payload?.deployment;
    if (!deployment) return { ok: false, error: `Unexpected payload: ${type} without payload.deployment` };
    const name = deployment.name ?? payload.project?.id ?? 'deployment';
    const target = payload.target ?? 'preview';
    const url = deployment.url ? `https://${deployment.url.replace(/^https?:\/\//, '')}` : payload.links?.deployment;
    return {
      ok: true,
      events: [
        {
          integration: 'deploy_host',
          type: `deploy.${kind.state}`,
          sourceEventId: `vercel:${deployment.id}:${kind.state}`,
          title: `${kind.verb}: ${name} (${target})`,
          ...(url ? { url } : {}),
          project: name,
          severity: kind.severity,
          occurredAt: createdAt === undefined ? receivedAt.toISOString() : new Date(createdAt).toISOString(),
        },
      ],
    };
  },
};
