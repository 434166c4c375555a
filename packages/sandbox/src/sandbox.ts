import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, type RunningServer } from './listen.ts';
import { ServiceHarness, type Exchange, type Fault, type LoggedRequest, type SandboxService } from './service.ts';
import type { FakeNtfy, NtfyAccess, NtfyMessage } from './ntfy/index.ts';
import type { FakeSendGrid, ReceivedMail } from './sendgrid/index.ts';
import type { FakeTelegram, FakeTelegramBot, TelegramChat, TelegramMessage } from './telegram/index.ts';
import type { FakeSlack, FakeSlackWebhook, SlackMessage } from './slack/index.ts';
import type { FakePushService, PushSubscriptionJson, ReceivedPush, SubscribeOptions } from './push/index.ts';
import { sandboxServices, type SandboxServiceName } from './services.ts';

export interface RunningService {
  /** The server's origin, `http://127.0.0.1:<port>`. */
  url: string;
  /** What a connector is given as its base URL: the origin plus the API's root path. */
  baseUrl: string;
  harness: ServiceHarness;
}

export interface Sandbox {
  services: Record<SandboxServiceName, RunningService>;
  /** Every request every fake answered, oldest first. */
  requests: LoggedRequest[];
  /** Requests one service answered, optionally only those whose path starts with `prefix`. */
  requestsTo(service: SandboxServiceName, prefix?: string): LoggedRequest[];
  inject(service: SandboxServiceName, fault: Fault): void;
  /** Overrides a service's rate limit (tests of 429 handling). */
  limit(service: SandboxServiceName, limit: { limit: number; windowMs: number }): void;
  /** The user takes the dashboard's access back in their Google or GitHub account: every token the flow issued dies. */
  revokeOAuth(service: 'google' | 'github'): void;
  /** The mails the fake SendGrid accepted, oldest first. */
  mails(): ReceivedMail[];
  /** A browser subscribing at the fake push service (see `FakePushService.subscribe`): its `PushSubscription` JSON and id. */
  subscribePush(options?: SubscribeOptions): PushSubscriptionJson & { id: string };
  /** That browser unsubscribed: its endpoint answers 410 Gone from now on. */
  unsubscribePush(id: string): void;
  /** The messages the fake push service accepted and decrypted, oldest first. */
  pushes(): ReceivedPush[];
  /** Protects an ntfy topic (see `FakeNtfy.protectTopic`); with no access given, a fresh token is made and returned. */
  protectNtfyTopic(topic: string, access?: NtfyAccess): NtfyAccess;
  /** What the fake ntfy server received on one topic, oldest first. */
  ntfyMessages(topic: string): NtfyMessage[];
  /** A Slack incoming webhook for a channel (see `FakeSlack.createWebhook`): its URL and ids. */
  createSlackWebhook(channel?: string): FakeSlackWebhook;
  /** That webhook removed: its URL answers 404 `no_service` from now on. */
  deleteSlackWebhook(id: string): void;
  /** What the fake Slack received, oldest first. */
  slackMessages(): SlackMessage[];
  /** A Telegram bot (@BotFather's /newbot): its id, username and token. */
  createTelegramBot(): FakeTelegramBot;
  /** A chat a bot can write to: private (a user who pressed Start) unless a group type is given. */
  createTelegramChat(type?: TelegramChat['type'], title?: string): TelegramChat;
  /** What the fake Telegram delivered, oldest first. */
  telegramMessages(): TelegramMessage[];
  /** Clears faults, rate windows, the request log and the mails received; the data stays. */
  reset(): void;
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** The sandbox's clock; the demo data is generated relative to it. */
  now?: () => number;
  /** Sees every request and answer (the contract tests hold them to the providers' descriptions). */
  observe?: (exchange: Exchange) => void;
}

/**
 * Starts every fake upstream on its own port on 127.0.0.1: the same paths, auth, paging, rate-limit
 * headers and error bodies as the real APIs, over data for the three demo products.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? (() => Date.now());
  const requests: LoggedRequest[] = [];
  const started: [SandboxServiceName, RunningService, RunningServer][] = [];
  try {
    for (const [name, create] of Object.entries(sandboxServices) as [SandboxServiceName, (now: number) => SandboxService][]) {
      const harness = new ServiceHarness(create(now()), now, requests, options.observe);
      let origin = '';
      const server = await listen((req: IncomingMessage, res: ServerResponse) => {
        harness.handle(req, res, origin).catch((error: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: `sandbox failure: ${(error as Error).message}` }));
        });
      });
      origin = server.url;
      started.push([name, { url: server.url, baseUrl: server.url + harness.service.basePath, harness }, server]);
    }
  } catch (error) {
    await Promise.all(started.map(([, , server]) => server.close()));
    throw error;
  }
  const services = Object.fromEntries(started.map(([name, running]) => [name, running])) as Record<SandboxServiceName, RunningService>;
  return {
    services,
    requests,
    requestsTo: (service, prefix = '') => requests.filter((r) => r.service === services[service].harness.service.name && r.path.startsWith(prefix)),
    inject: (service, fault) => services[service].harness.inject(fault),
    mails: () => (services.sendgrid.harness.service as FakeSendGrid).mails,
    subscribePush: (options) => (services.push.harness.service as FakePushService).subscribe(services.push.url, options),
    unsubscribePush: (id) => (services.push.harness.service as FakePushService).unsubscribe(id),
    pushes: () => (services.push.harness.service as FakePushService).received,
    protectNtfyTopic: (topic, access) => {
      const ntfy = services.ntfy.harness.service as FakeNtfy;
      const given = access ?? { token: ntfy.newToken() };
      ntfy.protectTopic(topic, given);
      return given;
    },
    ntfyMessages: (topic) => (services.ntfy.harness.service as FakeNtfy).received(topic),
    createSlackWebhook: (channel) => (services.slack.harness.service as FakeSlack).createWebhook(services.slack.url, channel),
    deleteSlackWebhook: (id) => (services.slack.harness.service as FakeSlack).deleteWebhook(id),
    slackMessages: () => (services.slack.harness.service as FakeSlack).messages,
    createTelegramBot: () => (services.telegram.harness.service as FakeTelegram).createBot(),
    createTelegramChat: (type, title) => (services.telegram.harness.service as FakeTelegram).createChat(type, title),
    telegramMessages: () => (services.telegram.harness.service as FakeTelegram).messages,
    revokeOAuth: (service) => services[service].harness.service.oauth?.revoke(),
    limit: (service, limit) => {
      services[service].harness.limit = limit;
    },
    reset() {
      requests.length = 0;
      for (const { harness } of Object.values(services)) {
        harness.clearFaults();
        harness.resetRateLimit();
        harness.resetState();
      }
    },
    close: async () => {
      await Promise.all(started.map(([, , server]) => server.close()));
    },
  };
}
