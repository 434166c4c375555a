import { isoDate, none, one, withPayload } from '../events.ts';
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

/**
 * The payload, in GitHub's own names: `action`, `repository`'s name and visibility, the kind's own object
 * (as the schema keeps it) and `sender`. Labels are kept as their names, so `labels contains bug` reads.
 */
const payloadOf = (action: string | null | undefined, repository: Repository, sender: unknown, kind: Record<string, unknown>) =>
  withPayload({ action, repository: { full_name: repository.full_name, private: repository.private }, ...kind, sender });

const labelNames = (labels: readonly { name: string }[] | null | undefined) => labels?.map((label) => label.name);

function pullRequest(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(pullRequestEvent, json);
  if (!parsed.ok) return parsed;
  const { action, repository, sender, pull_request: pr } = parsed.value;
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
      ...payloadOf(action, repository, sender, {
        pull_request: {
          number: pr.number,
          base: pr.base,
          head: pr.head,
          draft: pr.draft,
          merged: pr.merged,
          user: pr.user,
          labels: labelNames(pr.labels),
        },
      }),
    }),
  );
}

function issues(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(issuesEvent, json);
  if (!parsed.ok) return parsed;
  const { action, repository, sender, issue } = parsed.value;
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
      ...payloadOf(action, repository, sender, {
        issue: { number: issue.number, state: issue.state, state_reason: issue.state_reason, user: issue.user, labels: labelNames(issue.labels) },
      }),
    }),
  );
}

function release(json: unknown, receivedAt: string): ParseResult {
  const parsed = check(releaseEvent, json);
  if (!parsed.ok) return parsed;
  const { action, repository, sender, release } = parsed.value;
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
      ...payloadOf(action, repository, sender, {
        release: {
          tag_name: release.tag_name,
          name: release.name,
          target_commitish: release.target_commitish,
          draft: release.draft,
          prerelease: release.prerelease,
        },
      }),
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
  const { action, repository, sender, deployment_status: status, deployment } = parsed.value;
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
      ...payloadOf(action, repository, sender, {
        deployment_status: { state, environment: status.environment },
        deployment: { environment: deployment.environment, ref: deployment.ref, task: deployment.task },
      }),
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
      ...withPayload({
        action,
        repository: { full_name: repository.full_name, private: repository.private, stargazers_count: repository.stargazers_count },
        sender,
      }),
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
