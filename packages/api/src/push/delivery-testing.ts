import { deliveryTests, notificationsTo } from '../testing/delivery.ts';

// What the push delivery files share (delivery-messages, -policy, -answers, -processes): the fake push service through
// deliveryTests, dashboards whose alerts go to the founder, two processes with a phone, and what each device received.

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const iso = (ms: number) => new Date(ms).toISOString();
export const t0 = Date.parse('2026-11-25T10:00:00Z');

/**
 * The file's sandbox and dashboards, undone after each test. Call it from the test file's top level: the unit files
 * share their imported modules, so the hooks are registered per file.
 */
export function pushDeliveryTests() {
  const { sandbox, dashboard: deliveryDashboard } = deliveryTests();

  /** A dashboard with its own clock (the test ticks and drains), alerts addressed to the founder (the VAPID subject). */
  async function dashboard(start: number, options: { dir?: string; credentialsKey?: Buffer } = {}) {
    // The fake push service is on 127.0.0.1: PUSH_ALLOW_PRIVATE_ENDPOINTS, as a private push service would need.
    const dash = await deliveryDashboard(start, {
      prefix: 'dash-push-',
      email: { ALERT_EMAIL_TO: 'founder@example.com' },
      push: { PUSH_ALLOW_PRIVATE_ENDPOINTS: true },
      after: notificationsTo('pushes'),
      ...options,
    });
    return { ...dash, sends: () => dash.store.push.sends.recent(100) };
  }

  /** Two processes of one dashboard on one store, whose senders the test drains (neither wakes by itself), and a phone subscribed. */
  async function twoProcessesAndAPhone() {
    const a = await dashboard(t0);
    const b = await dashboard(t0, { dir: a.dir, credentialsKey: a.credentialsKey });
    await Promise.all([a.ctx.notifications.pushes.stop(), b.ctx.notifications.pushes.stop()]);
    await a.subscribe('Phone');
    return [a, b] as const;
  }

  /** What each device received, decrypted: its payload parsed, with the headers the push service saw. */
  const received = () =>
    sandbox.pushes().map((push) => ({ subscriptionId: push.subscriptionId, payload: JSON.parse(push.payload) as Record<string, unknown>, ttl: push.ttl, urgency: push.urgency, topic: push.topic }));

  return { sandbox, dashboard, twoProcessesAndAPhone, received };
}
