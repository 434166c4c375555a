import type { IncomingMessage, ServerResponse } from 'node:http';
import { githubDelivery, POLL_SECRET } from '@dash/relay/testing';
import { describe, expect, it } from 'vitest';
import { errorOf, pollerTests, post, relayEnv, signed } from './poller-testing.ts';

// POST /api/relay/poll when the relay fails: away, refusing the poll secret, a URL that is not a relay, or asking to
// poll less often. The answer says which, nothing is stored, and what was missed comes once the relay is back.

const { startRelay, dashboard, notARelay } = pollerTests();

describe('POST /api/relay/poll when the relay fails', () => {
  it('answers 502 when the relay cannot be reached, stores nothing, and reads what it missed once the relay is back', async () => {
    const relay = await startRelay();
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    await post(relay, [signed.unmatched(1)]);
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    const cursor = await dash.cursor(relay.url());

    await relay.close();
    // The relay still takes webhooks; only the dashboard cannot reach it.
    expect(await relay.accept(githubDelivery({ number: 2 }))).toBe(200);
    const res = await dash.call('POST', '/api/relay/poll');
    expect(res.status).toBe(502);
    expect(errorOf(res)).toEqual({ code: 'BAD_GATEWAY', message: expect.stringMatching(/^The relay cannot be reached: .*ECONNREFUSED/) });
    expect(await dash.inbox()).toHaveLength(1);
    expect(await dash.cursor(relay.url())).toBe(cursor);

    await relay.open();
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    expect((await dash.inbox()).map((n) => n.url)).toEqual(['https://github.com/acme/app/pull/2', 'https://github.com/acme/app/pull/1']);
  });

  it('answers 502 naming the poll secret when the relay refuses it, and stores nothing', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    const dash = await dashboard({ relay: relayEnv(relay.url(), 'not-the-relays-poll-secret') });

    const res = await dash.call('POST', '/api/relay/poll');
    expect(res.status).toBe(502);
    expect(errorOf(res)).toEqual({ code: 'BAD_GATEWAY', message: 'The relay refused the poll secret: A valid bearer poll secret is required' });
    expect(res.text).not.toContain('not-the-relays-poll-secret');
    expect(relay.polls().map((p) => p.status)).toEqual([401]);
    expect(await dash.inbox()).toEqual([]);
    expect(await dash.cursor(relay.url())).toBeUndefined();
  });

  const garbage: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp][] = [
    [
      'an HTML page with a timestamp header',
      (_req, res) => res.writeHead(200, { 'content-type': 'text/html', 'x-relay-timestamp': '5' }).end('<!doctype html><h1>Welcome</h1>'),
      /^The relay answered something that is not JSON: is this URL a relay\?$/,
    ],
    [
      'JSON of another shape',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-relay-timestamp': '5' }).end(JSON.stringify({ events: [] })),
      /^The relay's events are not in the expected shape/,
    ],
    [
      'events missing their fields',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-relay-timestamp': '5' }).end(JSON.stringify([{ id: 'e1', title: 'hi' }])),
      /^The relay's events are not in the expected shape \(0\.\w+: /,
    ],
    [
      'an empty page without X-Relay-Timestamp',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'),
      /^The relay answered without a valid X-Relay-Timestamp: is this URL a relay\?$/,
    ],
    [
      'a server error',
      (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('oops'),
      /^The relay answered 500: HTTP 500$/,
    ],
  ];
  for (const [what, answer, message] of garbage) {
    it(`answers 502 when a URL that is not a relay answers ${what}, and stores nothing`, async () => {
      const url = await notARelay(answer);
      const dash = await dashboard({ relay: relayEnv(url, POLL_SECRET) });
      const res = await dash.call('POST', '/api/relay/poll');
      expect(res.status).toBe(502);
      expect(errorOf(res)).toEqual({ code: 'BAD_GATEWAY', message: expect.stringMatching(message) });
      expect(await dash.inbox()).toEqual([]);
      expect(await dash.cursor(url)).toBeUndefined();
      expect(dash.poller.status()).toMatchObject({ lastSuccessAt: null, relayTimestamp: null });
    });
  }

  it('answers 429 when the relay says to poll less often, and stores nothing', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    // Something else on this machine used up the relay's 20 polls a minute for 127.0.0.1.
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${relay.url()}/events`, { headers: { authorization: `Bearer ${POLL_SECRET}` } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const dash = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    const res = await dash.call('POST', '/api/relay/poll');
    expect(res.status).toBe(429);
    expect(errorOf(res)).toEqual({ code: 'TOO_MANY_REQUESTS', message: 'The relay says to poll less often: Poll rate limit exceeded' });
    expect(await dash.inbox()).toEqual([]);
    expect(await dash.cursor(relay.url())).toBeUndefined();
  });
});
