import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from './store/memory.ts';
import { redisStore } from './store/redis.ts';
import { freePort, hasRedisServer, startRedis } from './store/redis-server.ts';
import type { RelayStore } from './store/types.ts';
import { githubWebhook, pollHeaders, relay } from './testing.ts';

// What the dashboard's deliveries log gets of each webhook through the poll (issue 53): its delivery id, its kind and,
// unless RELAY_FORWARD_BODIES=false, its body as the provider sent it, byte for byte after a trip through the store.

const withRedis = await hasRedisServer();
if (!withRedis) console.warn('*** redis-server is not installed: the forwarded bodies are tested on the memory store only ***');

let redis: { server: ChildProcess; url: string } | undefined;
beforeAll(async () => {
  if (!withRedis) return;
  const port = await freePort();
  redis = { server: await startRedis(port), url: `redis://127.0.0.1:${port}` };
});
let redisDb = 0;
const opened: RelayStore[] = [];
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  redis?.server.kill('SIGKILL');
});

/**
 * A pull request opened, as a provider might lay it out: indented, keys in its own order, a title in several scripts
 * and an emoji, an escaped slash. Re-serialising it would change every one of those.
 */
const body = `{
  "action": "opened",
  "number": 7,
  "pull_request": {
    "number": 7, "title": "Ünïcode ✓ 🚀 \\/ «quotes»", "html_url": "https://github.com/acme/app/pull/7", "merged": false,
    "created_at": "2026-11-21T10:00:00Z", "updated_at": "2026-11-21T10:00:00Z",
    "user": { "login": "octocat" }, "base": { "ref": "main" }, "head": { "ref": "feature-7" }
  },
  "repository": { "full_name": "acme/app", "name": "app", "html_url": "https://github.com/acme/app", "owner": { "login": "acme" } },
  "sender": { "login": "octocat" }
}
`;

for (const [name, open] of [
  ['memory', () => Promise.resolve(memoryStore())],
  // A db of its own for each test on the private server.
  ['Redis', () => redisStore(`${redis!.url}/${++redisDb}`, () => {})],
] as const) {
  describe.skipIf(name === 'Redis' && !withRedis)(`the delivery on each polled event (${name} store)`, () => {
    async function pollAfterSending(env: Record<string, string>) {
      const store = await open();
      opened.push(store);
      const { app } = relay(store, env);
      const sent = githubWebhook('pull_request', body, { deliveryId: `delivery-${name}-${Object.keys(env).length}` });
      const res = await app.request('/api/webhooks/code_host', { method: 'POST', body: sent.body, headers: sent.headers });
      expect(res.status).toBe(200);
      const poll = await app.request('/api/events', { headers: pollHeaders() });
      return { deliveryId: sent.headers['x-github-delivery'], events: (await poll.json()) as { type: string; delivery?: Record<string, unknown> }[] };
    }

    it('carries its delivery id, its kind and the body exactly as it was sent', async () => {
      const { deliveryId, events } = await pollAfterSending({});
      expect(events).toEqual([expect.objectContaining({ type: 'pr.opened', delivery: { id: deliveryId, kind: 'pull_request', body } })]);
      expect(Buffer.from(events[0]!.delivery!.body as string)).toEqual(Buffer.from(body));
    });

    it('carries no body with RELAY_FORWARD_BODIES=false, only the delivery id and kind', async () => {
      const { deliveryId, events } = await pollAfterSending({ RELAY_FORWARD_BODIES: 'false' });
      expect(events).toEqual([expect.objectContaining({ type: 'pr.opened', delivery: { id: deliveryId, kind: 'pull_request' } })]);
    });
  });
}
