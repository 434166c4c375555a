import { randomUUID } from 'node:crypto';
import { testClock } from '@dash/connectors/testing';
import type { Notification } from '@dash/contracts';
import { demoSetup, demoUpstreamsOf, type Sandbox } from '@dash/sandbox';
import { judgeDelivery, receiveSettingsFrom, type RelayEvent } from '@dash/webhooks';
import { expect } from 'vitest';
import * as betterstack from '../../../webhooks/src/betterstack/fixtures.ts';
import * as github from '../../../webhooks/src/github/fixtures.ts';
import * as sentry from '../../../webhooks/src/sentry/fixtures.ts';
import { deliverySigner, type SignedDelivery } from '../../../webhooks/src/signed-deliveries.ts';
import { createTestApi, notificationStream, restClient } from '../testing.ts';
import { cleanupAfterEach } from '../testing/cleanup.ts';

// What the inbox's tests (inbox-*.test.ts) share: deliveries signed as each provider signs them, the events and
// projects they belong to, and dashboard processes over a SQLite file (a fresh one, or another's again) that take
// them in at the local webhook route or as the relay hands them over. Each file makes its own dashboards (and, where
// the demo runs, its own sandbox), so any two of them can run at once.

const SECRETS = {
  code_host: 'github-signing-secret',
  deploy_host: 'vercel-signing-secret',
  error_tracker: 'sentry-client-secret',
  // Signs a Linear delivery for relayEvents; the dashboards are not given it (no test here posts one).
  issue_tracker: 'linear-signing-secret',
  uptime_monitor: 'betterstack-token',
};
const SECRET_ENV = {
  WEBHOOK_SECRET_GITHUB: SECRETS.code_host,
  WEBHOOK_SECRET_VERCEL: SECRETS.deploy_host,
  WEBHOOK_SECRET_SENTRY: SECRETS.error_tracker,
  WEBHOOK_SECRET_BETTERSTACK: SECRETS.uptime_monitor,
};

type Delivery = SignedDelivery;

const signer = deliverySigner({ github: SECRETS.code_host, vercel: SECRETS.deploy_host, sentry: SECRETS.error_tracker, linear: SECRETS.issue_tracker, betterstack: SECRETS.uptime_monitor });
/** Each provider's fixture, signed the way the provider signs it; Sentry's an issue sent at `sentAt` (the test's clock). */
export const signed = { ...signer, sentry: (body: string, sentAt: number): Delivery => signer.sentry(body, 'issue', sentAt) };

/** A merged pull request of `repo` (GitHub's fixture, moved to that repository). */
export function mergedPr(repo = 'Codertocat/Hello-World', number = 2): string {
  const payload = JSON.parse(github.pullRequest('closed', true)) as { number: number; pull_request: Record<string, unknown>; repository: Record<string, unknown> };
  payload.number = number;
  Object.assign(payload.pull_request, { number, html_url: `https://github.com/${repo}/pull/${number}` });
  Object.assign(payload.repository, { full_name: repo, name: repo.split('/')[1], html_url: `https://github.com/${repo}` });
  return `${JSON.stringify(payload, null, 2)}\n`;
}

/** A Better Stack incident of monitor `monitorId` (its fixture, with that monitor). */
export function incident(stage: 'started' | 'resolved', options: { id?: string; monitorId?: string } = {}): string {
  const payload = JSON.parse(betterstack.incident(stage, { id: options.id ?? '1' })) as { data: { relationships: { monitor: { data: { id: string } } } } };
  payload.data.relationships.monitor.data.id = options.monitorId ?? '4';
  return JSON.stringify(payload);
}

/** A Sentry issue of the Sentry project `slug`. */
export function sentryIssue(action: 'created' | 'resolved', slug = 'front-end'): string {
  const payload = JSON.parse(sentry.issue(action)) as { data: { issue: { project: { slug: string } } } };
  payload.data.issue.project.slug = slug;
  return JSON.stringify(payload);
}

export type DashboardOptions = Parameters<typeof createTestApi>[0] & { withDemo?: boolean };

/**
 * A test file's dashboards: registers the file's afterEach (what `cleanup` was given undone, last first) and answers
 * what makes them. A dashboard `withDemo` runs the demo against `sandbox`, the file's (`deliveryTests().sandbox`).
 * Call once at the top of a test file.
 */
export function inboxTests(sandbox?: Sandbox) {
  const cleanup = cleanupAfterEach();

  /** A dashboard process over a SQLite file (a fresh one, or `dir` again) taking the signed deliveries above. */
  async function dashboard(options: DashboardOptions = {}) {
    const { withDemo, ...rest } = options;
    const clock = options.clock ?? testClock();
    const api = await createTestApi({
      ...rest,
      clock,
      relay: { receive: receiveSettingsFrom(SECRET_ENV) },
      ...(withDemo ? { demo: { setup: () => Promise.resolve(demoSetup(demoUpstreamsOf(sandboxOf()))) } } : {}),
    });
    // A dashboard over a shared directory leaves it to the one that made it.
    cleanup.push(() => api.dispose({ keepFiles: options.dir !== undefined }));
    const call = restClient(() => api.caller);
    return {
      ...api,
      clock,
      call,
      inboxOf: api.ctx.notifications.inbox,
      /** Posts a delivery to the local webhook route's procedure; expects it taken. */
      async deliver(delivery: Delivery) {
        const answer = await api.caller.webhooks.receive({ integration: delivery.integration, body: Buffer.from(delivery.body).toString('base64'), headers: delivery.headers });
        expect(answer, delivery.body.slice(0, 80)).toMatchObject({ status: 200 });
        return answer;
      },
      /** What the relay would have stored for the same delivery: the same verify and parse. */
      relayEvents(delivery: Delivery): RelayEvent[] {
        const judgement = judgeDelivery(delivery.integration, Buffer.from(delivery.body), new Headers(delivery.headers), [SECRETS[delivery.integration]], clock.now());
        expect(judgement.events).toBeDefined();
        return judgement.events ?? [];
      },
      async inbox(query = ''): Promise<Notification[]> {
        const res = await call('GET', `/api/notifications?limit=100${query}`);
        expect(res.status).toBe(200);
        return res.json.notifications as Notification[];
      },
      async unread(): Promise<number> {
        return (await call('GET', '/api/notifications/unread')).json.unreadCount as number;
      },
    };
  }
  type Dashboard = Awaited<ReturnType<typeof dashboard>>;

  function sandboxOf(): Sandbox {
    if (!sandbox) throw new Error('A dashboard withDemo runs the demo against the sandbox: inboxTests(deliveryTests().sandbox)');
    return sandbox;
  }

  /** A live stream of `dash`'s notifications (see `notificationStream`); closed after the test. */
  async function subscribe(dash: Dashboard, lastEventId?: number) {
    const stream = await notificationStream(dash.ctx, lastEventId === undefined ? {} : { lastEventId });
    cleanup.push(stream.close);
    return stream;
  }

  return { cleanup, dashboard, subscribe };
}
export type Dashboard = Awaited<ReturnType<ReturnType<typeof inboxTests>['dashboard']>>;

/** The fixtures' GitHub repo and Vercel project in `web`; their Sentry project and Better Stack monitor in `ops`. */
export async function fixtureProjects(dash: Dashboard) {
  await dash.caller.projects.create({
    slug: 'web',
    name: 'Web',
    integrations: { code_host: { repos: ['codertocat/hello-world'] }, deploy_host: { projectId: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' } },
  });
  await dash.caller.projects.create({ slug: 'ops', name: 'Ops', integrations: { error_tracker: { org: 'acme', project: 'front-end' }, uptime_monitor: { monitorIds: ['4'] } } });
}

/** A relay event written out, as the relay serves it. */
export function relayEvent(fields: Partial<RelayEvent> & Pick<RelayEvent, 'sourceEventId'>): RelayEvent {
  return {
    id: randomUUID(),
    integration: 'code_host',
    type: 'pr.merged',
    title: `PR merged: ${fields.sourceEventId}`,
    severity: 'success',
    occurredAt: '2026-05-01T10:00:00.000Z',
    receivedAt: '2026-05-01T10:00:01.000Z',
    ...fields,
  };
}
