import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelConnection } from '@dash/contracts';
import type { FakeDiscord } from '@dash/sandbox';
import type { RelayEvent } from '@dash/webhooks';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { deliveryTests, notificationsTo } from '../testing/delivery.ts';

// What the chat channel's delivery files share (delivery-messages, -floors, -digest, -answers, -flaps, -processes):
// the sandbox's Slack, Discord, Telegram and ntfy through deliveryTests, a local receiver for the signed webhook, and
// dashboards whose chat services' roots are at the sandbox.

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY_MS = 24 * HOUR;
export const iso = (ms: number) => new Date(ms).toISOString();
export const t0 = Date.parse('2026-11-25T10:00:00Z');

export const deployFailed = (at: number, id = 'dpl_1'): RelayEvent => ({
  id: randomUUID(),
  integration: 'deploy_host',
  type: 'deploy.error',
  sourceEventId: `vercel:${id}:error`,
  title: 'Deploy failed: web',
  severity: 'error',
  occurredAt: iso(at),
  receivedAt: iso(at),
});

/**
 * The file's sandbox, dashboards and signed-webhook receiver (its own port), each undone after the file. Call it from
 * the test file's top level: the unit files share their imported modules, so the hooks are registered per file.
 */
export function chatDeliveryTests() {
  const { sandbox, dashboard: deliveryDashboard, scratchDir, slackHook, chatAtSandbox } = deliveryTests();

  /** What the signed-webhook receiver got: each request's path and query, headers and body. */
  const received: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = {
    url: '',
    status: 200,
    /** What the receiver does with each request before it answers (a test's slow receiver), if anything. */
    beforeAnswer: undefined as (() => Promise<void>) | undefined,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      void (receiver.beforeAnswer?.() ?? Promise.resolve()).finally(() => response.writeHead(receiver.status).end());
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/dashboard`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    receiver.status = 200;
    receiver.beforeAnswer = undefined;
  });

  const discord = () => sandbox.services.discord.harness.service as FakeDiscord;

  function discordHook() {
    const hook = discord().createWebhook(sandbox.services.discord.url);
    return { ...hook, pasted: hook.url.replace(sandbox.services.discord.url, 'https://discord.com') };
  }

  /** A dashboard with its own clock (the test ticks and drains), the chat services' roots at the sandbox. */
  async function dashboard(start: number, options: { dir?: string } = {}) {
    const dash = await deliveryDashboard(start, { prefix: 'dash-chat-', credentialsKey: Buffer.alloc(32, 7), chat: chatAtSandbox(), after: notificationsTo('chats'), ...options });
    return {
      ...dash,
      async connections(): Promise<ChannelConnection[]> {
        return ((await dash.call('GET', '/api/channels')).json as { connections: ChannelConnection[] }).connections;
      },
      sends: () => dash.store.channels.sends.recent(100),
    };
  }

  return { sandbox, scratchDir, slackHook, discord, discordHook, dashboard, received, receiver };
}

export type Dash = Awaited<ReturnType<ReturnType<typeof chatDeliveryTests>['dashboard']>>;
