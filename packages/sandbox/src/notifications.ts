import { demoProducts } from './demo.ts';

/** A relay event as the relay serves it (`@dash/webhooks`' RelayEvent), written out for the demo's inbox. */
export interface DemoEvent {
  id: string;
  integration: 'code_host' | 'deploy_host' | 'error_tracker' | 'issue_tracker' | 'uptime_monitor';
  type: string;
  sourceEventId: string;
  title: string;
  url?: string;
  project?: string;
  severity: 'info' | 'success' | 'warning' | 'error';
  occurredAt: string;
  receivedAt: string;
  subject?: string;
  transition?: 'trigger' | 'resolve';
  refs?: string[];
}

const MINUTE = 60_000;

/**
 * What the demo's products would have sent through the relay in the last hours, worded as the real
 * parsers word them: merged PRs, a deploy, a failed deploy fixed by the next, a Sentry issue, a Linear
 * issue, an outage that recovered, and the Submission worker's outage still going on.
 */
export function demoEvents(now: number): DemoEvent[] {
  const [ledger, formfox, tideline] = demoProducts;
  if (!ledger || !formfox || !tideline) return [];
  const at = (minutesAgo: number) => new Date(now - minutesAgo * MINUTE).toISOString();
  const event = (minutesAgo: number, fields: Omit<DemoEvent, 'id' | 'occurredAt' | 'receivedAt'>): DemoEvent => ({
    id: `demo-${fields.sourceEventId}`,
    occurredAt: at(minutesAgo),
    receivedAt: at(minutesAgo - 0.05),
    ...fields,
  });
  const worker = formfox.monitors.find((m) => m.status === 'down') ?? formfox.monitors[0];
  const sync = ledger.monitors[0];
  return [
    event(410, {
      integration: 'code_host',
      type: 'pr.merged',
      sourceEventId: `github:${ledger.repos[1]}:pr:212:merged`,
      title: 'PR #212 merged: Retry bank sync with exponential back-off',
      url: `https://github.com/${ledger.repos[1]}/pull/212`,
      project: ledger.repos[1],
      severity: 'success',
      refs: [`code_host:${ledger.repos[1]}`],
    }),
    event(380, {
      integration: 'deploy_host',
      type: 'deploy.error',
      sourceEventId: `vercel:dpl_demoTide1:error`,
      title: `Deploy failed: ${tideline.vercel.name} (production)`,
      url: `https://${tideline.vercel.name}-9fk2.vercel.app`,
      project: tideline.vercel.name,
      severity: 'error',
      subject: `vercel:${tideline.vercel.projectId}:production`,
      transition: 'trigger',
      refs: [`deploy_host:${tideline.vercel.projectId}`],
    }),
    event(352, {
      integration: 'deploy_host',
      type: 'deploy.succeeded',
      sourceEventId: `vercel:dpl_demoTide2:succeeded`,
      title: `Deployed: ${tideline.vercel.name} (production)`,
      url: `https://${tideline.vercel.name}-3hd8.vercel.app`,
      project: tideline.vercel.name,
      severity: 'success',
      subject: `vercel:${tideline.vercel.projectId}:production`,
      transition: 'resolve',
      refs: [`deploy_host:${tideline.vercel.projectId}`],
    }),
    ...(sync
      ? [
          event(240, {
            integration: 'uptime_monitor',
            type: 'monitor.down',
            sourceEventId: `betterstack:incident:demo-91:started:${at(240)}`,
            title: `Monitor down: ${sync.name} (Timeout)`,
            url: sync.url,
            project: sync.name,
            severity: 'error',
            subject: `betterstack:monitor:${sync.id}`,
            transition: 'trigger',
            refs: [`uptime_monitor:${sync.id}`],
          }),
          event(236, {
            integration: 'uptime_monitor',
            type: 'monitor.up',
            sourceEventId: `betterstack:incident:demo-91:resolved:${at(236)}`,
            title: `Monitor up: ${sync.name}`,
            url: sync.url,
            project: sync.name,
            severity: 'success',
            subject: `betterstack:monitor:${sync.id}`,
            transition: 'resolve',
            refs: [`uptime_monitor:${sync.id}`],
          }),
        ]
      : []),
    event(150, {
      integration: 'error_tracker',
      type: 'error.issue_created',
      sourceEventId: 'sentry:issue:4410293:created',
      title: `New issue ${formfox.sentry.project.toUpperCase()}-3F: TypeError: Cannot read properties of undefined (reading 'fields')`,
      url: `https://sentry.io/organizations/demo-founder/issues/4410293/`,
      project: formfox.sentry.project,
      severity: 'error',
      subject: 'sentry:issue:4410293',
      transition: 'trigger',
      refs: [`error_tracker:${formfox.sentry.project}`],
    }),
    event(95, {
      integration: 'issue_tracker',
      type: 'issue.created',
      sourceEventId: `linear:issue:demo-tdl-88:created:${at(95)}`,
      title: `${tideline.linearTeam.key}-88 created: Moon phase widget for the lock screen`,
      url: `https://linear.app/tideline/issue/${tideline.linearTeam.key}-88`,
      project: tideline.linearTeam.key,
      severity: 'info',
      refs: [`issue_tracker:${tideline.linearTeam.id}`, `issue_tracker:${tideline.linearTeam.key}`],
    }),
    event(40, {
      integration: 'code_host',
      type: 'pr.merged',
      sourceEventId: `github:${formfox.repos[0]}:pr:87:merged`,
      title: 'PR #87 merged: Conditional fields in the form builder',
      url: `https://github.com/${formfox.repos[0]}/pull/87`,
      project: formfox.repos[0],
      severity: 'success',
      refs: [`code_host:${formfox.repos[0]}`],
    }),
    ...(worker
      ? [
          event(12, {
            integration: 'uptime_monitor',
            type: 'monitor.down',
            sourceEventId: `betterstack:incident:demo-97:started:${at(12)}`,
            title: `Monitor down: ${worker.name} (Status 503)`,
            url: worker.url,
            project: worker.name,
            severity: 'error',
            subject: `betterstack:monitor:${worker.id}`,
            transition: 'trigger',
            refs: [`uptime_monitor:${worker.id}`],
          }),
        ]
      : []),
  ];
}
