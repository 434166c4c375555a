import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayApp, LIMITS } from './app.ts';
import { memoryStore } from './store/memory.ts';
import { githubDelivery, pollHeaders, quietLogger, testConfig } from './testing.ts';

let server: ServerType;
let base: string;

beforeAll(async () => {
  const app = createRelayApp({ config: testConfig(), store: memoryStore(), log: quietLogger(), socketAddress: (c) => getConnInfo(c).remote.address });
  server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('the relay over a real socket (Node request stream)', () => {
  it('stores a signed delivery and serves it to a poll', async () => {
    const delivery = githubDelivery();
    const res = await fetch(`${base}/api/webhooks/code_host`, { method: 'POST', body: delivery.body, headers: delivery.headers });
    expect([res.status, await res.json()]).toEqual([200, { received: true, eventCount: 1 }]);
    const events = (await (await fetch(`${base}/api/events`, { headers: pollHeaders() })).json()) as unknown[];
    expect(events).toHaveLength(1);
  });

  it('answers a streamed body over 256 KB with 413 after reading about the limit', async () => {
    let sent = 0;
    const chunk = new Uint8Array(64 * 1024).fill(32);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        if (sent > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${base}/api/webhooks/code_host`, {
      method: 'POST',
      body: stream,
      headers: { ...githubDelivery().headers, 'x-forwarded-for': '203.0.113.200' },
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    // Far less than the 64 MB offered: the relay stopped reading (socket buffers hold the rest in flight).
    expect(sent).toBeLessThan(LIMITS.bodyBytes * 64);
  });
});
