import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, systemClock } from '@dash/connectors';
import { startSandbox, type Exchange, type Sandbox } from '@dash/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_MS, type ChannelOutcome } from '../channel.ts';
import { channelMessage, HOSTILE_TEXT } from '../testing.ts';
import { NTFY_MESSAGE_MAX_BYTES, NtfyAdapter, ntfyError, truncateToBytes } from './index.ts';

// The adapter against the fake ntfy server, which holds requests to ntfy's publishing reference
// (shared/upstream-specs/ntfy.publish.md); each test names the section it relies on.

let sandbox: Sandbox;
const exchanges: Exchange[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({ observe: (exchange) => exchange.service === 'ntfy' && exchanges.push(exchange) });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
  exchanges.length = 0;
});

const adapter = new NtfyAdapter({ fetch: guardedFetch(), clock: systemClock });
const server = () => sandbox.services.ntfy.url;
const sentId = (outcome: ChannelOutcome) => (outcome.kind === 'sent' ? outcome.providerId : `not sent: ${JSON.stringify(outcome)}`);

describe('NtfyAdapter', () => {
  it('publishes JSON to the server root with title, plain-text message, priority, emoji tag and click ("Publish as JSON")', async () => {
    const outcome = await adapter.send({ server: server(), topic: 'formfox_alerts' }, channelMessage());
    const [received] = sandbox.ntfyMessages('formfox_alerts');
    expect(outcome).toEqual({ kind: 'sent', status: 200, providerId: received?.id });
    expect(received).toMatchObject({
      title: 'Monitor down: api.formfox.app',
      message: 'Better Stack: the monitor api.formfox.app is down (connection timeout).',
      priority: 5,
      tags: ['rotating_light'],
      click: 'https://dash.example.com/?notification=n_1',
    });
    const [request] = exchanges;
    // "To publish as JSON, you must PUT/POST to the ntfy root URL, not to the topic URL."
    expect([request?.method, request?.path]).toEqual(['POST', '/']);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBeUndefined();
  });

  it("delivers strangers' text as typed, with Markdown off so `*x*` and `[a](b)` are not formatted", async () => {
    await adapter.send({ server: server(), topic: 'plain' }, channelMessage({ title: `PR: ${HOSTILE_TEXT}`, body: HOSTILE_TEXT }));
    const [received] = sandbox.ntfyMessages('plain');
    expect(received?.message).toBe(HOSTILE_TEXT);
    expect(received?.title).toBe(`PR: ${HOSTILE_TEXT}`);
    // "Markdown formatting": on only with `markdown: true` (or the header); the fake records it as content_type.
    expect(received?.content_type).toBeUndefined();
    expect(exchanges[0]?.body).not.toHaveProperty('markdown');
  });

  it('carries non-ASCII titles intact, which header publishing could not', async () => {
    const outcome = await adapter.send({ server: server(), topic: 'utf8' }, channelMessage({ title: 'Déploiement échoué 🚨 ünïcode', body: 'Ça marche — 日本語' }));
    expect(outcome.kind).toBe('sent');
    expect(sandbox.ntfyMessages('utf8')[0]).toMatchObject({ title: 'Déploiement échoué 🚨 ünïcode', message: 'Ça marche — 日本語' });
  });

  it('maps severity to priority and an emoji tag ("Message priority", "Tags & emojis"): only an error is urgent', async () => {
    for (const severity of ['error', 'warning', 'info', 'success'] as const) {
      await adapter.send({ server: server(), topic: 'severities' }, channelMessage({ severity }));
    }
    expect(sandbox.ntfyMessages('severities').map(({ priority, tags }) => [priority, tags])).toEqual([
      [5, ['rotating_light']],
      [4, ['warning']],
      [3, ['information_source']],
      [3, ['white_check_mark']],
    ]);
  });

  it('names the outage and how long it lasted in a recovery, and sends no click when the dashboard address is unknown', async () => {
    const recovery = channelMessage({
      kind: 'resolve',
      severity: 'success',
      title: 'Monitor up: api.formfox.app',
      body: 'Better Stack: api.formfox.app is up again.',
      url: null,
      recovers: { title: 'Monitor down: api.formfox.app', lastedMs: 12 * 60_000, providerId: 'abc' },
    });
    await adapter.send({ server: server(), topic: 'recovery' }, recovery);
    const [received] = sandbox.ntfyMessages('recovery');
    expect(received?.message).toBe('Better Stack: api.formfox.app is up again.\n\nEnds: Monitor down: api.formfox.app (down 12 min)');
    expect(received?.priority).toBe(3);
    expect(received).not.toHaveProperty('click');
  });

  it('cuts a body over 4,096 bytes at a character boundary, keeps the recovery line, and is accepted', async () => {
    const body = `ab${'😀'.repeat(1500)}`;
    const outcome = await adapter.send({ server: server(), topic: 'long' }, channelMessage({ body }));
    expect(outcome.kind).toBe('sent');
    const text = sandbox.ntfyMessages('long')[0]?.message ?? '';
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(NTFY_MESSAGE_MAX_BYTES);
    expect(text).not.toContain('\uFFFD');
    expect(text).toBe(`ab${'😀'.repeat(1022)}…`);

    const recovery = channelMessage({ kind: 'resolve', body: 'é'.repeat(3000), recovers: { title: 'Build failed', lastedMs: null, providerId: null } });
    expect((await adapter.send({ server: server(), topic: 'long' }, recovery)).kind).toBe('sent');
    const cut = sandbox.ntfyMessages('long')[1]?.message ?? '';
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(NTFY_MESSAGE_MAX_BYTES);
    expect(cut).toMatch(/^é+…\n\nEnds: Build failed$/);
  });

  it('cuts by bytes without splitting a character', () => {
    expect(truncateToBytes('héllo', 6)).toBe('héllo');
    expect(truncateToBytes('hé', 2)).toBe('');
    expect(truncateToBytes('aééé', 5)).toBe('a…');
    expect(truncateToBytes('aéééé', 7)).toBe('aé…');
  });

  describe('a protected topic ("Authentication")', () => {
    it('publishes with an access token as Bearer', async () => {
      const { token } = sandbox.protectNtfyTopic('mysecrets') as { token: string };
      const outcome = await adapter.send({ server: server(), topic: 'mysecrets', auth: { token } }, channelMessage());
      expect(sentId(outcome)).toBe(sandbox.ntfyMessages('mysecrets')[0]?.id);
      expect(exchanges[0]?.headers.authorization).toBe(`Bearer ${token}`);
      expect(exchanges[0]?.path).toBe('/');
    });

    it('publishes with a user and password as Basic, the reference example byte for byte', async () => {
      sandbox.protectNtfyTopic('mysecrets', { user: 'testuser', password: 'fakepassword' });
      const outcome = await adapter.send({ server: server(), topic: 'mysecrets', auth: { username: 'testuser', password: 'fakepassword' } }, channelMessage());
      expect(outcome.kind).toBe('sent');
      expect(exchanges[0]?.headers.authorization).toBe('Basic dGVzdHVzZXI6ZmFrZXBhc3N3b3Jk');
    });

    it('is refused with ntfy\'s error code (its words only from ntfy.sh) and no secret when the token or password is wrong, or when none is given', async () => {
      sandbox.protectNtfyTopic('mysecrets', { user: 'testuser', password: 'fakepassword' });
      const wrongToken = await adapter.send({ server: server(), topic: 'mysecrets', auth: { token: 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2' } }, channelMessage());
      const wrongPassword = await adapter.send({ server: server(), topic: 'mysecrets', auth: { username: 'testuser', password: 'hunter2-wrong' } }, channelMessage());
      const none = await adapter.send({ server: server(), topic: 'mysecrets' }, channelMessage());
      const host = new URL(server()).host;
      expect(wrongToken).toEqual({ kind: 'refused', status: 401, reason: `The ntfy server ${host} answered 401: ntfy error 40101` });
      expect(wrongPassword).toEqual({ kind: 'refused', status: 401, reason: `The ntfy server ${host} answered 401: ntfy error 40101` });
      expect(none).toEqual({ kind: 'refused', status: 403, reason: `The ntfy server ${host} answered 403: ntfy error 40301` });
      const reasons = JSON.stringify([wrongToken, wrongPassword]);
      for (const secret of ['tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2', 'hunter2-wrong', Buffer.from('testuser:hunter2-wrong').toString('base64'), 'mysecrets']) {
        expect(reasons).not.toContain(secret);
      }
      expect(sandbox.ntfyMessages('mysecrets')).toEqual([]);
    });
  });

  it('retries after a minute when over the request bucket ("Limitations"; ntfy sends no Retry-After)', async () => {
    sandbox.limit('ntfy', { limit: 2, windowMs: 60_000 });
    try {
      const outcomes = [];
      for (let i = 0; i < 3; i++) outcomes.push(await adapter.send({ server: server(), topic: 'busy' }, channelMessage()));
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(['sent', 'sent', 'retry']);
      expect(outcomes[2]).toEqual({
        kind: 'retry',
        status: 429,
        afterMs: DEFAULT_RETRY_MS,
        reason: `The ntfy server ${new URL(server()).host} answered 429: ntfy error 42901`,
      });
    } finally {
      sandbox.limit('ntfy', { limit: 60, windowMs: 5 * 60_000 });
    }
  });

  it("honours a 429's Retry-After, retries a 5xx, and refuses a 413 and other 4xx", async () => {
    const send = () => adapter.send({ server: server(), topic: 'faults' }, channelMessage());
    sandbox.inject('ntfy', { status: 429, headers: { 'retry-after': '30' }, body: { code: 42901, http: 429, error: 'limit reached' }, times: 1 });
    expect(await send()).toMatchObject({ kind: 'retry', status: 429, afterMs: 30_000 });
    sandbox.inject('ntfy', { status: 502, body: 'Bad Gateway', times: 1 });
    expect(await send()).toMatchObject({ kind: 'retry', status: 502, afterMs: DEFAULT_RETRY_MS });
    sandbox.inject('ntfy', { status: 413, body: { code: 41301, http: 413, error: 'attachment too large, or bandwidth limit reached' }, times: 1 });
    expect(await send()).toMatchObject({ kind: 'refused', status: 413, reason: expect.stringMatching(/answered 413: ntfy error 41301$/) });
    sandbox.inject('ntfy', { status: 404, body: { code: 40401, http: 404, error: 'page not found' }, times: 1 });
    expect(await send()).toMatchObject({ kind: 'refused', status: 404 });
    // The fake itself refuses a topic name ntfy would not take.
    expect(await adapter.send({ server: server(), topic: 'not a topic!' }, channelMessage())).toMatchObject({ kind: 'refused', status: 400, reason: expect.stringMatching(/answered 400: ntfy error 40009$/) });
  });

  it('publishes to a server under a path at that path, and keeps the id of the answer', async () => {
    const seen: string[] = [];
    const proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'hwQ2YpKdmg', time: 1, event: 'message', topic: 't', message: 'm' }));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const outcome = await adapter.send({ server: `http://127.0.0.1:${port}/ntfy/`, topic: 't' }, channelMessage());
      expect(outcome).toEqual({ kind: 'sent', status: 200, providerId: 'hwQ2YpKdmg' });
      expect(seen).toEqual(['POST /ntfy/']);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('keeps only ntfy.sh\'s own words: another server\'s error text, even in ntfy\'s shape, is reduced to its code', () => {
    const said = JSON.stringify({ code: 40301, http: 403, error: 'forbidden', link: 'https://ntfy.sh/docs/publish/#access-tokens' });
    expect(ntfyError(said, 403, 'ntfy.sh')).toBe('forbidden (ntfy error 40301)');
    expect(ntfyError(said, 403, 'ntfy.internal.example')).toBe('ntfy error 40301');
    // Not ntfy's shape for this status (an internal service's page, or JSON of another shape): nothing kept.
    expect(ntfyError(said, 500, 'ntfy.sh')).toBeUndefined();
    expect(ntfyError('INTERNAL-ONLY-DATA secret=x', 403, 'ntfy.sh')).toBeUndefined();
    expect(ntfyError(JSON.stringify({ error: 'INTERNAL-ONLY-DATA secret=x' }), 403, 'ntfy.sh')).toBeUndefined();
  });

  it('keeps the login out of the reason when a server echoes it back', async () => {
    const echo = createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 40101, http: 401, error: `unauthorized: ${req.headers.authorization ?? ''}` }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
      const token = await adapter.send({ server: base, topic: 't', auth: { token: 'tk_echoedToken123' } }, channelMessage());
      const basic = await adapter.send({ server: base, topic: 't', auth: { username: 'phil', password: 'echoedPassword' } }, channelMessage());
      expect(token).toMatchObject({ kind: 'refused', status: 401, reason: expect.stringMatching(/answered 401: ntfy error 40101$/) });
      expect(basic).toMatchObject({ kind: 'refused', status: 401, reason: expect.stringMatching(/answered 401: ntfy error 40101$/) });
      expect(JSON.stringify([token, basic])).not.toMatch(/tk_echoedToken123|echoedPassword|cGhpbDplY2hvZWRQYXNzd29yZA/);
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it('retries a server that cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await adapter.send({ server: `http://127.0.0.1:${port}`, topic: 'gone_away', auth: { token: 'tk_secret' } }, channelMessage());
    expect(outcome).toEqual({ kind: 'retry', status: null, afterMs: DEFAULT_RETRY_MS, reason: `The ntfy server 127.0.0.1:${port} could not be reached` });
  });

  it('refuses up front a server that is not http(s), holds a login, is a metadata address or plain http beyond this machine, without sending', async () => {
    const send = (serverAddress: string) => adapter.send({ server: serverAddress, topic: 't', auth: { token: 'tk_secret' } }, channelMessage());
    expect(await send('ftp://ntfy.example.com')).toMatchObject({ kind: 'refused', status: null, reason: expect.stringContaining('https://') });
    expect(await send('ntfy.example.com')).toMatchObject({ kind: 'refused', status: null });
    const withLogin = await send('https://phil:tk_inurl@ntfy.example.com');
    expect(withLogin).toMatchObject({ kind: 'refused', status: null });
    expect(JSON.stringify(withLogin)).not.toContain('tk_inurl');
    expect(await send('http://169.254.169.254')).toMatchObject({ kind: 'refused', status: null, reason: expect.stringContaining('169.254.169.254') });
    // Plain http only to this machine: a login never crosses a network in clear.
    expect(await send('http://ntfy.example.com')).toEqual({ kind: 'refused', status: null, reason: 'The ntfy server address must use https (plain http only to this machine: localhost, 127.0.0.1 or [::1])' });
    expect(exchanges).toEqual([]);
  });
});
