import { isoDate, none, one, withPayload } from '../events.ts';
import { sha256Hex, verifyHmacHex } from '../hmac.ts';
import { check, peekJson, readJson } from '../json.ts';
import type { Severity, WebhookProvider } from '../types.ts';
import { deliveryId, deploymentEvent, envelope } from './schemas.ts';

const shown = new Map<string, { state: string; severity: Severity; verb: string }>([
  ['deployment.created', { state: 'created', severity: 'info', verb: 'Deploy started' }],
  ['deployment.succeeded', { state: 'succeeded', severity: 'success', verb: 'Deployed' }],
  ['deployment.error', { state: 'error', severity: 'error', verb: 'Deploy failed' }],
]);

/** Vercel sends the host without a scheme (`my-app-abc.vercel.app`). */
const httpsUrl = (host: string) => `https://${host.replace(/^https?:\/\//, '')}`;

/**
 * Vercel: `x-vercel-signature` is the HMAC-SHA1 hex (no prefix) of the raw body, under the account
 * webhook's secret or the integration's client secret. The body's `id` identifies the delivery;
 * there is no timestamp header.
 */
export const vercel: WebhookProvider = {
  integration: 'deploy_host',

  verify: (rawBody, headers, secrets) =>
    verifyHmacHex({ algorithm: 'sha1', secrets, payload: rawBody, signature: headers.get('x-vercel-signature') }),

  identify: (rawBody) => ({ deliveryId: peekJson(rawBody, deliveryId)?.id ?? sha256Hex(rawBody) }),

  parse(rawBody, _headers, receivedAt) {
    const json = readJson(rawBody);
    if (!json.ok) return json;
    const kind = check(envelope, json.value);
    if (!kind.ok) return kind;
    const shape = shown.get(kind.value.type);
    if (!shape) return none();
    const parsed = check(deploymentEvent, json.value);
    if (!parsed.ok) return parsed;
    const { createdAt, payload } = parsed.value;
    const { deployment } = payload;
    const projectId = payload.project?.id;
    const project = deployment.name ?? projectId;
    // Vercel's `target` is null for preview deployments.
    const target = payload.target ?? 'preview';
    const url = deployment.url ? httpsUrl(deployment.url) : payload.links?.deployment;
    const transition = shape.state === 'error' ? 'trigger' : shape.state === 'succeeded' ? 'resolve' : undefined;
    return one({
      integration: 'deploy_host',
      type: `deploy.${shape.state}`,
      sourceEventId: `vercel:${deployment.id}:${shape.state}`,
      title: `${shape.verb}: ${project ?? deployment.id} (${target})`,
      ...(url ? { url } : {}),
      ...(project ? { project } : {}),
      severity: shape.severity,
      occurredAt: isoDate(createdAt) ?? receivedAt.toISOString(),
      // A failed deploy of a project's target stays the story until a deploy of it succeeds.
      ...(transition ? { subject: `vercel:${projectId ?? project ?? deployment.id}:${target}`, transition } : {}),
      ...(projectId ? { refs: [`deploy_host:${projectId}`] } : {}),
      // Vercel's own names; the target (as read above, preview for null) sits both where Vercel sends
      // it, `payload.target`, and with the deployment, where rules usually look for it.
      ...withPayload({
        deployment: {
          id: deployment.id,
          name: deployment.name,
          url: deployment.url,
          target,
          meta: { githubCommitRef: deployment.meta?.githubCommitRef },
        },
        project: { id: projectId },
        target,
      }),
    });
  },
};
