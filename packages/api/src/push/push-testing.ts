import type { PushSubscriptionJson } from '@dash/sandbox';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { deliveryTests } from '../testing/delivery.ts';

// What the push API's files share (push-vapid, push-subscribing, push-test-push): the fake push service through
// deliveryTests, dashboards on a clock a test moves, a browser subscribing, and the body that adds it as a device.

type Api = Awaited<ReturnType<typeof createTestApi>>;

export const FIREFOX_ANDROID = 'Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0';

export const deviceBody = (subscription: PushSubscriptionJson, name = 'Phone') => ({
  endpoint: subscription.endpoint,
  expirationTime: subscription.expirationTime,
  keys: subscription.keys,
  name,
});

/**
 * The file's sandbox (reset before each test) and dashboards (disposed after each, as is what `apis` is given). Call it
 * from the test file's top level: the unit files share their imported modules, so the hooks are registered per file.
 */
export function pushTests() {
  const { sandbox, cleanup } = deliveryTests();
  /** Dashboards a test made itself, disposed after it. */
  const apis = {
    push: (...made: Api[]) => {
      for (const api of made) cleanup(() => api.dispose());
    },
  };

  /**
   * A dashboard on a clock a test moves (the test-send limiter allows one a minute), its alerts to founder@example.com,
   * and PUSH_ALLOW_PRIVATE_ENDPOINTS (the fake push service is on 127.0.0.1) unless `push` says otherwise.
   */
  async function dashboard(options: Parameters<typeof createTestApi>[0] = {}) {
    let now = Date.now();
    const api = await createTestApi({
      scheduler: false,
      clock: { now: () => now, sleep: () => Promise.resolve() },
      email: { ALERT_EMAIL_TO: 'founder@example.com' },
      ...options,
      push: options.push ?? { PUSH_ALLOW_PRIVATE_ENDPOINTS: true },
    });
    apis.push(api);
    const as = (identity: Identity | undefined, userAgent = FIREFOX_ANDROID) =>
      restClient(() => (identity ? createCaller({ ...api.ctx, request: { ip: '203.0.113.9', userAgent, identity } }) : api.caller));
    return {
      api,
      call: as({ via: 'open', scope: 'write' }),
      as,
      /** Moves the dashboard's clock past the test-send limiter's minute. */
      nextMinute: () => {
        now += 61_000;
      },
      now: () => now,
    };
  }

  /** A browser subscribing at the fake push service with the dashboard's key, as `pushManager.subscribe` does. */
  async function browserSubscription(call: ReturnType<typeof restClient>): Promise<PushSubscriptionJson & { id: string }> {
    const { publicKey } = (await call('GET', '/api/push/key')).json as { publicKey: string };
    return sandbox.subscribePush({ applicationServerKey: publicKey });
  }

  return { sandbox, apis, dashboard, browserSubscription };
}
