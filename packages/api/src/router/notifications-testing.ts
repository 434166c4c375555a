import { randomUUID } from 'node:crypto';
import { testClock } from '@dash/connectors/testing';
import type { Notification } from '@dash/contracts';
import type { RelayEvent } from '@dash/webhooks';
import { expect } from 'vitest';
import { createTestApi, restClient } from '../testing.ts';
import { cleanupAfterEach } from '../testing/cleanup.ts';

// What the inbox's test files share (notifications-list, notifications-read, notifications-stream,
// webhooks-receive): a dashboard with two projects on a test clock, five events of the five integrations, and a
// merged PR of its own.

export const NOW = Date.parse('2026-05-02T09:00:00.000Z');

/**
 * The file's dashboards, disposed after each test, and its cleanup list. Call it from the test file's top level (the
 * unit files share their imported modules, so the afterEach is registered per file).
 */
export function inboxDashboards() {
  const cleanup = cleanupAfterEach();
  async function dashboard() {
    const clock = testClock(NOW);
    const api = await createTestApi({ clock });
    cleanup.push(() => api.dispose());
    const call = restClient(() => api.caller);
    await api.caller.projects.create({ slug: 'web', name: 'Web', integrations: { code_host: { repos: ['acme/web'] }, deploy_host: { projectId: 'prj_web' } } });
    await api.caller.projects.create({ slug: 'ops', name: 'Ops', integrations: { error_tracker: { org: 'acme', project: 'ops-api' }, uptime_monitor: { monitorIds: ['101'] } } });
    return {
      ...api,
      clock,
      call,
      inbox: api.ctx.notifications.inbox,
      async list(query = ''): Promise<{ notifications: Notification[]; unreadCount: number; nextBefore: number | null }> {
        const res = await call('GET', `/api/notifications${query}`);
        expect(res.status, res.text).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        return res.json as never;
      },
      async unread(): Promise<number> {
        const res = await call('GET', '/api/notifications/unread');
        expect(res.status).toBe(200);
        return (res.json as { unreadCount: number }).unreadCount;
      },
    };
  }
  return { dashboard, cleanup };
}
export type Dashboard = Awaited<ReturnType<ReturnType<typeof inboxDashboards>['dashboard']>>;

export const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

/** Five events of the five integrations, oldest first, as the relay serves them. */
export const fiveEvents = (): RelayEvent[] => [
  {
    id: 'relay-1',
    integration: 'code_host',
    type: 'pr.merged',
    sourceEventId: 'github:acme/web:pr:7:merged',
    title: 'PR #7 merged: Faster checkout',
    url: 'https://github.com/acme/web/pull/7',
    severity: 'success',
    occurredAt: at(50),
    receivedAt: at(49),
    refs: ['code_host:acme/web'],
  },
  {
    id: 'relay-2',
    integration: 'deploy_host',
    type: 'deploy.error',
    sourceEventId: 'vercel:dpl_1:error',
    title: 'Deploy failed: web (production)',
    url: 'https://web-1.vercel.app',
    severity: 'error',
    occurredAt: at(40),
    receivedAt: at(39),
    subject: 'vercel:prj_web:production',
    transition: 'trigger',
    refs: ['deploy_host:prj_web'],
  },
  {
    id: 'relay-3',
    integration: 'issue_tracker',
    type: 'issue.created',
    sourceEventId: 'linear:issue:abc:created:1',
    title: 'ENG-1 created: Dark mode',
    url: 'https://linear.app/acme/issue/ENG-1',
    severity: 'info',
    occurredAt: at(30),
    receivedAt: at(29),
    refs: ['issue_tracker:team-nobody-has'],
  },
  {
    id: 'relay-4',
    integration: 'error_tracker',
    type: 'error.issue_created',
    sourceEventId: 'sentry:issue:42:created',
    title: 'New issue OPS-1: TypeError',
    url: 'https://sentry.io/organizations/acme/issues/42/',
    severity: 'error',
    occurredAt: at(20),
    receivedAt: at(19),
    subject: 'sentry:issue:42',
    transition: 'trigger',
    refs: ['error_tracker:ops-api'],
  },
  {
    id: 'relay-5',
    integration: 'uptime_monitor',
    type: 'monitor.down',
    sourceEventId: 'betterstack:incident:9:started:x',
    title: 'Monitor down: API (Timeout)',
    url: 'https://api.example.com',
    severity: 'error',
    occurredAt: at(10),
    receivedAt: at(9),
    subject: 'betterstack:monitor:101',
    transition: 'trigger',
    refs: ['uptime_monitor:101'],
  },
];

/** A stateless event of its own (a merged PR), for streams and volume. */
export const prEvent = (n: number): RelayEvent => ({
  id: randomUUID(),
  integration: 'code_host',
  type: 'pr.merged',
  sourceEventId: `github:acme/web:pr:${1000 + n}:merged`,
  title: `PR #${1000 + n} merged`,
  url: `https://github.com/acme/web/pull/${1000 + n}`,
  severity: 'success',
  occurredAt: at(5),
  receivedAt: at(4),
  refs: ['code_host:acme/web'],
});

/** Stores the five events one after another and answers the list, newest first. */
export async function seed(dash: Dashboard) {
  for (const event of fiveEvents()) await dash.inbox.ingest([event]);
  return (await dash.list()).notifications;
}

export const errorOf = (res: { json: Record<string, unknown> }) => (res.json as { error: { code: string; message: string; issues?: unknown[] } }).error;
