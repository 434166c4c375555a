import { isoDate, none, one, withPayload } from '../events.ts';
import { sha256Hex, verifyHmacHex } from '../hmac.ts';
import { check, ignore, readJson } from '../json.ts';
import type { ParseResult, Severity, WebhookProvider } from '../types.ts';
import { errorEvent, issueEvent } from './schemas.ts';

/** `fatal`, `error` and anything unknown are errors: a level we cannot read should not look harmless. */
function severityOf(level: string | null | undefined): Severity {
  if (level === 'warning') return 'warning';
  if (level === 'info' || level === 'debug') return 'info';
  return 'error';
}

function projectSlugOf(apiUrl: string | null | undefined): string | undefined {
  return apiUrl ? /\/projects\/[^/]+\/([^/]+)\/events\//.exec(apiUrl)?.[1] : undefined;
}

function issue(json: unknown, rawBody: Uint8Array, receivedAt: string): ParseResult {
  const parsed = check(issueEvent, json);
  if (!parsed.ok) return parsed;
  const { action, data } = parsed.value;
  const { issue } = data;
  if (action !== 'created' && action !== 'resolved') return none();
  const created = action === 'created';
  const label = issue.shortId ? ` ${issue.shortId}` : '';
  const url = issue.web_url || issue.permalink;
  // An issue is created once but can regress and be resolved again: each resolution has its own lastSeen.
  const again = created ? '' : `:${issue.lastSeen ?? sha256Hex(rawBody).slice(0, 16)}`;
  return one({
    integration: 'error_tracker',
    type: created ? 'error.issue_created' : 'error.issue_resolved',
    sourceEventId: `sentry:issue:${issue.id}:${action}${again}`,
    title: `${created ? 'New issue' : 'Resolved'}${label}: ${issue.title}`,
    ...(url ? { url } : {}),
    ...(issue.project ? { project: issue.project.slug, refs: [`error_tracker:${issue.project.slug}`] } : {}),
    severity: created ? severityOf(issue.level) : 'success',
    occurredAt: (created ? isoDate(issue.firstSeen) : undefined) ?? receivedAt,
    subject: `sentry:issue:${issue.id}`,
    transition: created ? 'trigger' : 'resolve',
    ...withPayload({
      action,
      data: {
        issue: {
          id: issue.id,
          shortId: issue.shortId,
          level: issue.level,
          status: issue.status,
          substatus: issue.substatus,
          priority: issue.priority,
          culprit: issue.culprit,
          platform: issue.platform,
          userCount: issue.userCount,
          project: issue.project,
        },
      },
    }),
  });
}

function error(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(errorEvent, json);
  if (!parsed.ok) return parsed;
  const { action, data } = parsed.value;
  const { error } = data;
  if (action !== 'created') return none();
  const project = projectSlugOf(error.url) ?? error.project ?? undefined;
  return one({
    integration: 'error_tracker',
    type: 'error.created',
    sourceEventId: `sentry:error:${error.event_id}`,
    title: `${error.level === 'warning' ? 'Warning' : 'Error'}${project ? ` in ${project}` : ''}: ${error.title}`,
    ...(error.web_url ? { url: error.web_url } : {}),
    ...(project ? { project, refs: [`error_tracker:${project}`] } : {}),
    severity: severityOf(error.level),
    occurredAt: isoDate(error.datetime) ?? receivedAt,
    ...withPayload({
      action,
      data: {
        error: {
          event_id: error.event_id,
          issue_id: error.issue_id,
          level: error.level,
          culprit: error.culprit,
          platform: error.platform,
          environment: error.environment,
          release: error.release,
        },
      },
    }),
  });
}

/**
 * Sentry (integration platform): `sentry-hook-signature` is the HMAC-SHA256 hex (no prefix) of the raw
 * body, which Sentry serializes compactly; re-serializing breaks it. `Request-ID` is new on every send,
 * so the body's hash identifies a delivery. `Sentry-Hook-Timestamp` is in seconds and is not signed.
 */
export const sentry: WebhookProvider = {
  integration: 'error_tracker',

  verify: (rawBody, headers, secrets) =>
    verifyHmacHex({ algorithm: 'sha256', secrets, payload: rawBody, signature: headers.get('sentry-hook-signature') }),

  identify(rawBody, headers) {
    const seconds = headers.get('sentry-hook-timestamp')?.trim() ?? '';
    return { deliveryId: sha256Hex(rawBody), ...(/^\d{1,12}$/.test(seconds) ? { timestamp: Number(seconds) * 1000 } : {}) };
  },

  parse(rawBody, headers, receivedAt) {
    const json = readJson(rawBody);
    if (!json.ok) return json;
    const at = receivedAt.toISOString();
    switch (headers.get('sentry-hook-resource')) {
      case 'issue':
        return issue(json.value, rawBody, at);
      case 'error':
        return error(json.value, at);
      default:
        return ignore(json.value);
    }
  },
};
