import type { Project } from '@dash/contracts';
import type { IncomingEvent } from '@dash/db';
import type { RelayEvent } from '@dash/webhooks';

/** GitHub names are case-insensitive; the other ids are compared as they are. */
const refKey = (ref: string) => (ref.startsWith('code_host:') ? ref.toLowerCase() : ref);

/**
 * Each project's integration settings as the refs a webhook event carries (`code_host:owner/repo`,
 * `deploy_host:<Vercel project id>`, …), mapped to the project's slug. The first project that claims a
 * ref keeps it.
 */
export function projectRefs(projects: readonly Project[]): Map<string, string> {
  const refs = new Map<string, string>();
  const claim = (ref: string, slug: string) => {
    if (!refs.has(refKey(ref))) refs.set(refKey(ref), slug);
  };
  for (const { slug, integrations } of projects) {
    for (const repo of integrations.code_host?.repos ?? []) claim(`code_host:${repo}`, slug);
    if (integrations.deploy_host) claim(`deploy_host:${integrations.deploy_host.projectId}`, slug);
    if (integrations.error_tracker) claim(`error_tracker:${integrations.error_tracker.project}`, slug);
    for (const team of integrations.issue_tracker?.teamIds ?? []) claim(`issue_tracker:${team}`, slug);
    for (const monitor of integrations.uptime_monitor?.monitorIds ?? []) claim(`uptime_monitor:${monitor}`, slug);
  }
  return refs;
}

/** The project of the first of an event's refs that a project claims, or null. */
export function projectOf(eventRefs: readonly string[], refs: ReadonlyMap<string, string>): string | null {
  return eventRefs.map((ref) => refs.get(refKey(ref))).find((slug) => slug !== undefined) ?? null;
}

/**
 * A relay event as the inbox stores it: its project found from its refs (none when nothing matched), and the refs
 * themselves, so a project made later can still claim it (`Inbox.assign`).
 */
export function toIncoming(event: RelayEvent, refs: ReadonlyMap<string, string>): IncomingEvent {
  const projectSlug = projectOf(event.refs ?? [], refs);
  return {
    sourceEventId: event.sourceEventId,
    integration: event.integration,
    type: event.type,
    subjectKey: event.subject ?? null,
    transition: event.subject && event.transition ? event.transition : null,
    severity: event.severity,
    title: event.title,
    url: event.url ?? null,
    projectSlug,
    occurredAt: event.occurredAt,
    receivedAt: event.receivedAt,
    relayEventId: event.id,
    refs: event.refs ?? [],
  };
}

/**
 * The data routes an event makes stale for its project, so the next read asks the upstream: a merged
 * PR or a deploy, shipping; a Sentry issue, the error tracker; an outage, uptime; a Linear issue, ideas
 * and shipping.
 */
export function staleRoutes(event: Pick<IncomingEvent, 'integration' | 'type'>): string[] {
  switch (event.integration) {
    case 'code_host':
      return event.type.startsWith('pr.') || event.type.startsWith('release.') || event.type.startsWith('deploy.') ? ['shipping:code_host'] : [];
    case 'deploy_host':
      return ['shipping:deploy_host'];
    case 'error_tracker':
      return ['errortracker'];
    case 'uptime_monitor':
      return ['health'];
    case 'issue_tracker':
      return event.type.startsWith('issue.') ? ['ideas', 'shipping:issue_tracker'] : [];
    default:
      return [];
  }
}
