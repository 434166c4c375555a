import { isoDate, none, one } from '../events.ts';
import { sha256Hex, verifyHmacHex } from '../hmac.ts';
import { check, ignore, readJson } from '../json.ts';
import type { ParsedEvent, ParseResult, Severity, WebhookProvider } from '../types.ts';
import { deploymentStatusEvent, issuesEvent, pullRequestEvent, releaseEvent, type Repository, starEvent } from './schemas.ts';

const SIGNATURE_PREFIX = 'sha256=';

type Fields = Omit<ParsedEvent, 'integration' | 'project' | 'repo'>;
type Mapper = (json: unknown, receivedAt: string) => ParseResult;

const repoEvent = (repository: Repository, fields: Fields): ParsedEvent => ({
  integration: 'code_host',
  ...fields,
  project: repository.full_name,
  repo: repository.full_name,
  refs: [`code_host:${repository.full_name}`],
});

function pullRequest(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(pullRequestEvent, json);
  if (!parsed.ok) return parsed;
  const { action, repository, pull_request: pr } = parsed.value;
  const outcome = action === 'opened' ? 'opened' : action === 'closed' ? (pr.merged ? 'merged' : 'closed') : undefined;
  if (!outcome) return none();
  const when = isoDate(outcome === 'opened' ? pr.created_at : outcome === 'merged' ? pr.merged_at : pr.closed_at);
  // A PR opens and merges once, but can be closed, reopened and closed again: that close carries its time.
  const again = outcome === 'closed' && when ? `:${when}` : '';
  return one(
    repoEvent(repository, {
      type: `pr.${outcome}`,
      sourceEventId: `github:${repository.full_name}:pr:${pr.number}:${outcome}${again}`,
      title: `PR #${pr.number} ${outcome}: ${pr.title}`,
      url: pr.html_url,
      severity: outcome === 'merged' ? 'success' : 'info',
      occurredAt: when ?? receivedAt,
    }),
  );
}

function issues(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(issuesEvent, json);
  if (!parsed.ok) return parsed;
  const { action, repository, issue } = parsed.value;
  if (action !== 'opened' && action !== 'closed' && action !== 'reopened') return none();
  const when = isoDate(action === 'opened' ? issue.created_at : action === 'closed' ? issue.closed_at : issue.updated_at);
  const again = action !== 'opened' && when ? `:${when}` : '';
  return one(
    repoEvent(repository, {
      type: `issue.${action}`,
      sourceEventId: `github:${repository.full_name}:issue:${issue.number}:${action}${again}`,
      title: `Issue #${issue.number} ${action}: ${issue.title}`,
      url: issue.html_url,
      severity: 'info',
      occurredAt: when ?? receivedAt,
    }),
  );
}

function release(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(releaseEvent, json);
  if (!parsed.ok) return parsed;
  const { action, repository, release } = parsed.value;
  if (action !== 'published') return none();
  const named = release.name && release.name !== release.tag_name ? `: ${release.name}` : '';
  return one(
    repoEvent(repository, {
      type: 'release.published',
      sourceEventId: `github:${repository.full_name}:release:${release.id}:published`,
      title: `Release ${release.tag_name} published${named}`,
      url: release.html_url,
      severity: 'success',
      occurredAt: isoDate(release.published_at) ?? receivedAt,
    }),
  );
}

const deployOutcomes: Record<string, { verb: string; severity: Severity }> = {
  success: { verb: 'succeeded', severity: 'success' },
  failure: { verb: 'failed', severity: 'error' },
  error: { verb: 'failed', severity: 'error' },
};

function deploymentStatus(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(deploymentStatusEvent, json);
  if (!parsed.ok) return parsed;
  const { repository, deployment_status: status, deployment } = parsed.value;
  const { state } = status;
  const outcome = Object.hasOwn(deployOutcomes, state) ? deployOutcomes[state] : undefined;
  const environment = status.environment ?? deployment.environment ?? 'unknown environment';
  const url = status.environment_url || status.target_url || status.log_url || repository.html_url;
  const transition = outcome ? (outcome.severity === 'error' ? 'trigger' : 'resolve') : undefined;
  return one(
    repoEvent(repository, {
      type: `deploy.${state}`,
      sourceEventId: `github:${repository.full_name}:deployment:${deployment.id}:${state}`,
      title: `Deploy ${outcome?.verb ?? state.replaceAll('_', ' ')}: ${repository.full_name} (${environment})`,
      ...(url ? { url } : {}),
      severity: outcome?.severity ?? 'info',
      occurredAt: isoDate(status.created_at) ?? receivedAt,
      // A failed deploy to an environment stays the story until a deploy there succeeds.
      ...(transition ? { subject: `github:${repository.full_name}:deploy:${environment}`, transition } : {}),
    }),
  );
}

function star(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(starEvent, json);
  if (!parsed.ok) return parsed;
  const { action, repository, sender, starred_at } = parsed.value;
  if (action !== 'created') return none();
  const count = repository.stargazers_count === undefined ? '' : ` (${repository.stargazers_count} stars)`;
  return one(
    repoEvent(repository, {
      type: 'star.created',
      // One per person and repo: starring, unstarring and starring again is not news twice.
      sourceEventId: `github:${repository.full_name}:star:${sender.login}:created`,
      title: `${sender.login} starred ${repository.full_name}${count}`,
      ...(repository.html_url ? { url: repository.html_url } : {}),
      severity: 'info',
      occurredAt: isoDate(starred_at) ?? receivedAt,
    }),
  );
}

const mappers = new Map<string, Mapper>([
  ['pull_request', pullRequest],
  ['issues', issues],
  ['release', release],
  ['deployment_status', deploymentStatus],
  ['star', star],
]);

/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex>` is the HMAC-SHA256 of the raw body. The legacy SHA-1
 * `X-Hub-Signature` is never accepted. `X-GitHub-Delivery` identifies the event (a manual redelivery
 * reuses it); `X-GitHub-Event` names the kind. GitHub sends no timestamp.
 */
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
    const json = readJson(rawBody);
    if (!json.ok) return json;
    const mapper = mappers.get(headers.get('x-github-event') ?? '');
    // `ping` and every kind we do not show.
    return mapper ? mapper(json.value, receivedAt.toISOString()) : ignore(json.value);
  },
};
