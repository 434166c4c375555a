import { randomUUID } from 'node:crypto';
import type { NotificationRule, QuietHoursSettings } from '@dash/contracts';
import type { RelayEvent } from '@dash/webhooks';

const iso = (ms: number) => new Date(ms).toISOString();

/** Events as the relay hands them over (what the webhook parsers make of each provider's payload). */
export const events = {
  down(monitor: string, incident: string, at: number): RelayEvent {
    return {
      id: randomUUID(),
      integration: 'uptime_monitor',
      type: 'monitor.down',
      sourceEventId: `betterstack:incident:${incident}:started`,
      title: `Monitor down: ${monitor}`,
      severity: 'error',
      occurredAt: iso(at),
      receivedAt: iso(at),
      subject: `betterstack:monitor:${monitor}`,
      transition: 'trigger',
    };
  },
  up(monitor: string, incident: string, at: number): RelayEvent {
    return { ...events.down(monitor, incident, at), type: 'monitor.up', sourceEventId: `betterstack:incident:${incident}:resolved`, title: `Monitor up: ${monitor}`, severity: 'success', transition: 'resolve' };
  },
  /** A Sentry issue: a warning that opens a thread until it is resolved. */
  issue(id: string, at: number, action: 'created' | 'resolved' = 'created'): RelayEvent {
    return {
      id: randomUUID(),
      integration: 'error_tracker',
      type: action === 'created' ? 'error.issue_created' : 'error.issue_resolved',
      sourceEventId: `sentry:issue:${id}:${action}`,
      title: `TypeError in checkout (${id})`,
      severity: action === 'created' ? 'warning' : 'success',
      occurredAt: iso(at),
      receivedAt: iso(at),
      subject: `sentry:issue:${id}`,
      transition: action === 'created' ? 'trigger' : 'resolve',
    };
  },
  deploy(id: string, at: number, options: { target?: string; severity?: RelayEvent['severity']; state?: 'error' | 'succeeded' } = {}): RelayEvent {
    const target = options.target ?? 'production';
    const state = options.state ?? 'error';
    return {
      id: randomUUID(),
      integration: 'deploy_host',
      type: `deploy.${state}`,
      sourceEventId: `vercel:${id}:${state}`,
      title: `Deploy ${state === 'error' ? 'failed' : 'succeeded'}: shop (${target})`,
      severity: options.severity ?? (state === 'error' ? 'error' : 'success'),
      occurredAt: iso(at),
      receivedAt: iso(at),
      subject: `vercel:prj_shop:${target}`,
      transition: state === 'error' ? 'trigger' : 'resolve',
      payload: { deployment: { id, target } },
    };
  },
  pr(n: number, at: number): RelayEvent {
    return {
      id: randomUUID(),
      integration: 'code_host',
      type: 'pr.merged',
      sourceEventId: `github:acme/shop:pr:${n}:merged`,
      title: `PR #${n} merged`,
      severity: 'success',
      occurredAt: iso(at),
      receivedAt: iso(at),
    };
  },
};


/** Quiet hours every night, 22:00 to 07:00 in Berlin. */
export const berlinNights: QuietHoursSettings = {
  enabled: true,
  timezone: 'Europe/Berlin',
  windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '22:00', end: '07:00' }],
};

/** An enabled rule named after its id. */
export const rule = (id: string, match: NotificationRule['match'], actions: NotificationRule['actions'], stop = false): NotificationRule => ({
  id,
  name: `Rule ${id}`,
  enabled: true,
  match,
  actions,
  stop,
});
