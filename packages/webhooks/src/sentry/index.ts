import { z } from 'zod';
import { sha256Hex, verifyHmacHex } from '../hmac.ts';
import { jsonObject, parseJsonAs } from '../json.ts';
import type { Severity, WebhookProvider } from '../types.ts';

export const issueEvent = z.object({
  action: z.string(),
  data: z.object({
    issue: z.object({
      id: z.string(),
      shortId: z.string().optional(),
      title: z.string(),
      level: z.string().optional(),
      lastSeen: z.string().optional(),
      web_url: z.string().optional(),
      permalink: z.string().optional(),
      project: z.object({ slug: z.string() }).optional(),
    }),
  }),
});

export const errorEvent = z.object({
  action: z.string(),
  data: z.object({
    error: z.object({
      event_id: z.string(),
      title: z.string(),
      level: z.string().optional(),
      web_url: z.string().optional(),
      datetime: z.string().optional(),
      project: z.union([z.number(), z.string()]).optional(),
    }),
  }),
});

const severityOf = (level: string | undefined): Severity => (level === 'warning' ? 'warning' : level === 'info' || level === 'debug' ? 'info' : 'error');

/**
 * Sentry (integration platform): `sentry-hook-signature` is the HMAC-SHA256 hex of the raw body.
 * Its `Request-ID` changes on every send, so the body's hash identifies a delivery;
 * `Sentry-Hook-Timestamp` (seconds) tells its age.
 */
export const sentry: WebhookProvider = {
  integration: 'error_tracker',

  verify: (rawBody, headers, secrets) =>
    verifyHmacHex({ algorithm: 'sha256', secrets, payload: rawBody, signature: headers.get('sentry-hook-signature') }),

  identify(rawBody, headers) {
    const seconds = Number(headers.get('sentry-hook-timestamp') ?? Number.NaN);
    return { deliveryId: sha256Hex(rawBody), ...(Number.isFinite(seconds) ? { timestamp: seconds * 1000 } : {}) };
  },

  parse(rawBody, headers, receivedAt) {
    const at = receivedAt.toISOString();
    const resource = headers.get('sentry-hook-resource');
    if (resource === 'issue') {
      const parsed = parseJsonAs(rawBody, issueEvent);
      if (!parsed.ok) return parsed;
      const { action, data } = parsed.value;
      if (action !== 'created' && action !== 'resolved') return { ok: true, events: [] };
      const { issue } = data;
      const url = issue.web_url ?? issue.permalink;
      return {
        ok: true,
        events: [
          {
            integration: 'error_tracker',
            type: action === 'created' ? 'error.issue_created' : 'error.issue_resolved',
            // An issue can be resolved, come back and be resolved again: the delivery's bytes tell them apart.
            sourceEventId: `sentry:issue:${issue.id}:${action}:${sha256Hex(rawBody).slice(0, 16)}`,
            title: `${action === 'created' ? 'New issue' : 'Resolved'}${issue.shortId ? ` ${issue.shortId}` : ''}: ${issue.title}`,
            ...(url ? { url } : {}),
            ...(issue.project ? { project: issue.project.slug } : {}),
            severity: action === 'resolved' ? 'success' : severityOf(issue.level),
            occurredAt: (action === 'created' ? issue.lastSeen : undefined) ?? at,
          },
        ],
      };
    }
    if (resource === 'error') {
      const parsed = parseJsonAs(rawBody, errorEvent);
      if (!parsed.ok) return parsed;
      const { action, data } = parsed.value;
      if (action !== 'created') return { ok: true, events: [] };
      const { error } = data;
      return {
        ok: true,
        events: [
          {
            integration: 'error_tracker',
            type: 'error.created',
            sourceEventId: `sentry:error:${error.event_id}`,
            title: `Error: ${error.title}`,
            ...(error.web_url ? { url: error.web_url } : {}),
            ...(error.project === undefined ? {} : { project: String(error.project) }),
            severity: severityOf(error.level),
            occurredAt: error.datetime ?? at,
          },
        ],
      };
    }
    const parsed = parseJsonAs(rawBody, jsonObject);
    return parsed.ok ? { ok: true, events: [] } : parsed;
  },
};
