import type { ChannelConnection } from '@dash/contracts';
import type { Identity } from '../auth/access.ts';
import { createCaller } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { deliveryTests } from '../testing/delivery.ts';

// What the connections' files share (connections-add, -access, -hosts, -sealed, -status): the sandbox's chat services
// through deliveryTests and dashboards at them on a clock a test moves (who a request comes as: testing/identities.ts).

type Api = Awaited<ReturnType<typeof createTestApi>>;

export const errorOf = (res: { json: Record<string, unknown> }) => (res.json.error as { message: string } | undefined)?.message;

/**
 * The file's sandbox (reset before each test) and dashboards (disposed after each, as is what `apis` is given). Call it
 * from the test file's top level: the unit files share their imported modules, so the hooks are registered per file.
 */
export function channelConnectionTests() {
  const { sandbox, cleanup, slackHook: slackHookAtSandbox, chatAtSandbox } = deliveryTests();
  /** Dashboards a test made itself, disposed after it. */
  const apis = {
    push: (...made: Api[]) => {
      for (const api of made) cleanup(() => api.dispose());
    },
  };

  /** A dashboard on a clock a test moves (one test message a minute per connection), the chat services at the sandbox. */
  async function dashboard() {
    let now = Date.now();
    const api = await createTestApi({
      scheduler: false,
      clock: { now: () => now, sleep: () => Promise.resolve() },
      chat: chatAtSandbox(),
    });
    apis.push(api);
    const as = (identity: Identity | undefined) => restClient(() => (identity ? createCaller({ ...api.ctx, request: { ip: '203.0.113.9', userAgent: 'test', identity } }) : api.caller));
    const call = as({ via: 'open', scope: 'write' });
    return {
      api,
      call,
      as,
      nextMinute: () => {
        now += 61_000;
      },
      list: async () => ((await call('GET', '/api/channels')).json as { connections: ChannelConnection[] }).connections,
    };
  }

  /** A Slack webhook at the fake, the URL as Slack shows it, and its secret (the path's last part). */
  function slackHook(channel = '#ops') {
    const hook = slackHookAtSandbox(channel);
    return { ...hook, secret: hook.url.split('/').pop() ?? '' };
  }

  return { sandbox, apis, dashboard, slackHook };
}
