import { sha256Hex, verifyHmacHex } from '../hmac.ts';
import { jsonObject, parseJsonAs } from '../json.ts';
import type { ParsedEvent, ParseResult, Severity, WebhookProvider } from '../types.ts';
import { deploymentStatusEvent, issuesEvent, pullRequestEvent, releaseEvent, starEvent } from './schemas.ts';

const SIGNATURE_PREFIX = 'sha256=';

const event = (repo: string, fields: Omit<ParsedEvent, 'integration' | 'project' | 'repo'>): ParsedEvent => ({
  integration: 'code_host',
  project: repo,
  repo,
  ...fields,
});

type Mapper = (body: Uint8Array, at: string) => ParseResult;

const mappers: Record<string, Mapper> = {
  pull_request(body, at) {
    const parsed = parseJsonAs(body, pullRequestEvent);
    if (!parsed.ok) return parsed;
    const { action, repository, pull_request: pr } = parsed.value;
    const outcome = action === 'opened' ? 'opened' : action === 'closed' ? (pr.merged ? 'merged' : 'closed') : undefined;
    if (!outcome) return { ok: true, events: [] };
    const repo = repository.full_name;
    const when = outcome === 'merged' ? pr.merged_at : outcome === 'closed' ? pr.closed_at : pr.created_at;
    return {
      ok: true,
      events: [
        event(repo, {
          type: `pr.${outcome}`,
          sourceEventId: `github:${repo}:pr:${pr.number}:${outcome}`,
          title: `PR #${pr.number} ${outcome}: ${pr.title}`,
          url: pr.html_url,
          severity: outcome === 'merged' ? 'success' : 'info',
          occurredAt: when ?? at,
        }),
      ],
    };
  },

  issues(body, at) {
    const parsed = parseJsonAs(body, issuesEvent);
    if (!parsed.ok) return parsed;
    const { action, repository, issue } = parsed.value;
    if (!['opened', 'closed', 'reopened'].includes(action)) return { ok: true, events: [] };
    const repo = repository.full_name;
    return {
      ok: true,
      events: [
        event(repo, {
          type: `issue.${action}`,
          // Closing, reopening and closing again are three events: the update time tells them apart.
          sourceEventId: `github:${repo}:issue:${issue.number}:${action}:${issue.updated_at ?? at}`,
          title: `Issue #${issue.number} ${action}: ${issue.title}`,
          url: issue.html_url,
          severity: 'info',
          occurredAt: (action === 'closed' ? issue.closed_at : issue.updated_at) ?? at,
        }),
      ],
    };
  },

  release(body, at) {
    const parsed = parseJsonAs(body, releaseEvent);
    if (!parsed.ok) return parsed;
    const { action, repository, release } = parsed.value;
    if (action !== 'published') return { ok: true, events: [] };
    const repo = repository.full_name;
    return {
      ok: true,
      events: [
        event(repo, {
          type: 'release.published',
          sourceEventId: `github:${repo}:release:${release.id}:published`,
          title: `Released ${release.name || release.tag_name}`,
          url: release.html_url,
          severity: 'success',
          occurredAt: release.published_at ?? at,
        }),
      ],
    };
  },

  deployment_status(body, at) {
    const parsed = parseJsonAs(body, deploymentStatusEvent);
    if (!parsed.ok) return parsed;
    const { repository, deployment_status: status, deployment } = parsed.value;
    const repo = repository.full_name;
    const severity: Severity = status.state === 'success' ? 'success' : status.state === 'failure' || status.state === 'error' ? 'error' : 'info';
    const environment = status.environment ?? deployment.environment ?? 'deployment';
    const url = status.environment_url || status.target_url || undefined;
    return {
      ok: true,
      events: [
        event(repo, {
          type: `deploy.${status.state}`,
          sourceEventId: `github:${repo}:deployment:${deployment.id}:status:${status.id}`,
          title: `Deploy to ${environment}: ${status.state}`,
          ...(url ? { url } : {}),
          severity,
          occurredAt: status.created_at ?? at,
        }),
      ],
    };
  },

  star(body, at) {
    const parsed = parseJsonAs(body, starEvent);
    if (!parsed.ok) return parsed;
    const { action, repository, sender, starred_at } = parsed.value;
    if (action !== 'created') return { ok: true, events: [] };
    const repo = repository.full_name;
    const count = repository.stargazers_count;
    return {
      ok: true,
      events: [
        event(repo, {
          type: 'star.created',
          sourceEventId: `github:${repo}:star:${sender.login}:${starred_at ?? at}`,
          title: `${sender.login} starred ${repo}${count === undefined ? '' : ` (${count} stars)`}`,
          ...(repository.html_url ? { url: repository.html_url } : {}),
          severity: 'info',
          occurredAt: starred_at ?? at,
        }),
      ],
    };
  },
};

/** GitHub: `X-Hub-Signature-256: sha256=<hex>` over the raw body; `X-GitHub-Delivery`; `X-GitHub-Event`. */
export const github: WebhookProvider = {
  integration: 'code_host',

  verify(rawBody, headers, secrets) {
    const header = headers.get('x-hub-signature-256') ?? '';
    if (!header.startsWith(SIGNATURE_PREFIX)) return false;
    return verifyHmacHex({ algorithm: 'sha256', secrets, payload: rawBody, signature: header.slice(SIGNATURE_PREFIX.length) });
  },

  identify(rawBody, headers) {
    return { deliveryId: headers.get('x-github-delivery')?.trim() || sha256Hex(rawBody) };
  },

  parse(rawBody, headers, receivedAt) {
    const kind = headers.get('x-github-event') ?? '';
    const mapper = Object.hasOwn(mappers, kind) ? mappers[kind] : undefined;
    if (!mapper) {
      // ping and every kind we do not show: still well-formed JSON, or it is a 400.
      const parsed = parseJsonAs(rawBody, jsonObject);
      return parsed.ok ? { ok: true, events: [] } : parsed;
    }
    return mapper(rawBody, receivedAt.toISOString());
  },
};
