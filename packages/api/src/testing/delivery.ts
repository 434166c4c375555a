import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelAdd, ChannelConnection } from '@dash/contracts';
import { testClock } from '@dash/connectors/testing';
import { startSandbox, type PushSubscriptionJson, type Sandbox, type SandboxOptions } from '@dash/sandbox';
import type { RelayEvent } from '@dash/webhooks';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createTestApi, restClient } from '../testing.ts';
import { cleanupAfterEach } from './cleanup.ts';

/**
 * The scaffolding of a test file that delivers to an outgoing channel (email, push, the chat connections, the
 * briefing's courier), which each such file used to build for itself: @dash/sandbox's fake services, started once for
 * the file and reset before each test; scratch directories and dashboards undone after each test; a dashboard on a
 * test clock whose scheduler the test moves (`at`), and the channel-side steps a test takes as a founder would (a
 * Slack webhook as Slack shows it, a connection added, a device subscribed for push). A test file over the sandbox
 * that delivers nothing itself (the briefing, the why lines, the deliveries log) takes its lifecycle and cleanup from
 * here too. Nothing here stands in for the dashboard's own code: the only fakes are the sandbox's upstream services.
 */

type TestApi = Awaited<ReturnType<typeof createTestApi>>;
type TestApiOptions = NonNullable<Parameters<typeof createTestApi>[0]>;
type TestClock = ReturnType<typeof testClock>;

/** What moving a dashboard's clock sets off for the notification channels: the inbox's tick, then that channel's sender. */
export const notificationsTo =
  (sender: 'emails' | 'pushes' | 'chats') =>
  async ({ notifications }: TestApi['ctx']): Promise<void> => {
    await notifications.inbox.tick();
    await notifications[sender].drain();
  };

export interface DeliveryDashboardOptions extends Omit<TestApiOptions, 'dir' | 'clock' | 'scheduler'> {
  /** Another process of the same dashboard: its directory (kept after the test; the first one's goes). */
  dir?: string;
  /** The prefix of its own scratch directory, when no `dir` is given. */
  prefix?: string;
  /** What `at` sets off once the clock has moved (as the scheduler would): `notificationsTo(...)`, or the courier's look. */
  after: (ctx: TestApi['ctx']) => Promise<unknown>;
}

/**
 * A test file's deliveries: registers the file's hooks (the sandbox started before all with `options`, reset before
 * each test; what `cleanup` was given undone after each, last first, every step even after one fails) and answers the sandbox, which stands for the one
 * started (use it inside tests and hooks only), and the dashboards the tests make over it.
 */
export function deliveryTests(options: SandboxOptions = {}) {
  let started: Sandbox | undefined;
  beforeAll(async () => {
    started = await startSandbox(options);
  });
  afterAll(() => started?.close());
  beforeEach(() => started?.reset());
  const steps = cleanupAfterEach();
  const running = (): Sandbox => {
    if (!started) throw new Error('The sandbox starts before the file’s first test: use it inside a test or a hook');
    return started;
  };
  const sandbox = new Proxy({} as Sandbox, { get: (_, key) => Reflect.get(running(), key) as unknown });
  const cleanup = (step: () => Promise<unknown>) => steps.push(step);
  /** A scratch directory, removed after the test. */
  const scratchDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    cleanup(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    return dir;
  };

  /**
   * A dashboard with its own clock (or a clock shared with another process), its scheduler moved by the test: `at(ms)`
   * moves the clock there and sets off `after`. It is disposed after the test, its files kept for another process.
   */
  async function dashboard(start: number | TestClock, options: DeliveryDashboardOptions) {
    const { dir: given, prefix = 'dash-delivery-', after, ...api } = options;
    const dir = given ?? scratchDir(prefix);
    const clock = typeof start === 'number' ? testClock(start) : start;
    const test = await createTestApi({ ...api, dir, clock, scheduler: false });
    cleanup(() => test.dispose({ keepFiles: true }));
    const ctx = test.ctx;
    const call = restClient(() => test.caller);
    return {
      ...test,
      clock,
      call,
      ingest: (...batch: RelayEvent[]) => ctx.notifications.inbox.ingest(batch),
      /** Moves the clock to `at` and sets off what the scheduler would (`after`). */
      async at(at: number) {
        clock.advance(at - clock.now());
        return after(ctx);
      },
      /** A chat connection added over the API, as Settings adds it. */
      async add(body: Omit<ChannelAdd, 'minSeverity' | 'password'> & { minSeverity?: ChannelAdd['minSeverity'] }): Promise<{ connection: ChannelConnection; secret?: string }> {
        const added = await call('POST', '/api/channels', body);
        expect(added.status).toBe(201);
        return added.json as { connection: ChannelConnection; secret?: string };
      },
      /** A browser subscribing at the fake push service with the dashboard's key, then adding itself as a device. */
      async subscribe(name: string, endpoint?: (real: string) => string): Promise<PushSubscriptionJson & { id: string; deviceId: string }> {
        const { publicKey } = (await call('GET', '/api/push/key')).json as { publicKey: string };
        const subscription = running().subscribePush({ applicationServerKey: publicKey });
        const at = endpoint ? endpoint(subscription.endpoint) : subscription.endpoint;
        const added = await call('POST', '/api/push/subscriptions', { endpoint: at, expirationTime: null, keys: subscription.keys, name });
        expect(added.status).toBe(201);
        return { ...subscription, deviceId: (added.json as { id: string }).id };
      },
    };
  }

  /** A Slack webhook at the fake, and the URL as Slack shows it (the dashboard sends to the same path under CHAT_SLACK_URL). */
  function slackHook(channel = '#ops') {
    const hook = running().createSlackWebhook(channel);
    return { ...hook, pasted: hook.url.replace(running().services.slack.url, 'https://hooks.slack.com') };
  }

  /** The chat services' roots at the sandbox (createTestApi's `chat`). */
  const chatAtSandbox = () => ({
    CHAT_SLACK_URL: running().services.slack.url,
    CHAT_DISCORD_URL: running().services.discord.url,
    CHAT_TELEGRAM_URL: running().services.telegram.url,
  });

  return { sandbox, cleanup, scratchDir, dashboard, slackHook, chatAtSandbox };
}
