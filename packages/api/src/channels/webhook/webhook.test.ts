import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch, systemClock } from '@dash/connectors';
import { testClock } from '@dash/connectors/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_MS } from '../channel.ts';
import { channelMessage, HOSTILE_TEXT } from '../testing.ts';
import { newWebhookSecret, SignedWebhookAdapter, webhookSecretKey, webhookSignature } from './index.ts';

// The signed webhook against a real receiver on a local port; signatures are checked with `standardwebhooks`, the
// Standard Webhooks reference implementation, never with our own code.

interface Received {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

const received: Received[] = [];
const answers: Answer[] = [];
let receiver: Server;
let url: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? { status: 204 };
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/dash`;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));
beforeEach(() => {
  received.length = 0;
  answers.length = 0;
});

const adapter = new SignedWebhookAdapter({ fetch: guardedFetch(), clock: systemClock });
const secret = newWebhookSecret();
const signedHeaders = (request: Received | undefined) => ({
  'webhook-id': String(request?.headers['webhook-id']),
  'webhook-timestamp': String(request?.headers['webhook-timestamp']),
  'webhook-signature': String(request?.headers['webhook-signature']),
});

describe('SignedWebhookAdapter', () => {
  it('posts a signed Standard Webhooks delivery that the reference implementation verifies', async () => {
    const message = channelMessage();
    const before = Math.floor(Date.now() / 1000);
    const outcome = await adapter.send({ url, secret }, message);
    expect(outcome).toEqual({ kind: 'sent', status: 204, providerId: null });
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['webhook-id']).toBe(message.id);
    expect(Number(request?.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(request?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const payload = new Webhook(secret).verify(request?.body ?? '', signedHeaders(request));
    expect(payload).toEqual({
      type: 'notification.alert',
      timestamp: '2026-11-28T09:30:00.000Z',
      data: {
        id: message.id,
        title: message.title,
        body: message.body,
        severity: 'error',
        url: message.url,
        tag: 'betterstack:monitor:4',
        project: 'formfox',
        at: '2026-11-28T09:30:00.000Z',
        recovers: null,
        thread: null,
      },
    });
  });

  it('fails verification under another secret or with a changed body', async () => {
    await adapter.send({ url, secret }, channelMessage());
    const [request] = received;
    expect(() => new Webhook(newWebhookSecret()).verify(request?.body ?? '', signedHeaders(request))).toThrow(/No matching signature/);
    const changed = (request?.body ?? '').replace('formfox', 'f0rmfox');
    expect(changed).not.toBe(request?.body);
    expect(() => new Webhook(secret).verify(changed, signedHeaders(request))).toThrow(/No matching signature/);
  });

  it("carries strangers' text as JSON data, unchanged, and names a recovery and a digest by type", async () => {
    const recovery = channelMessage({ kind: 'resolve', severity: 'success', title: HOSTILE_TEXT, body: HOSTILE_TEXT, recovers: { title: 'Monitor down', lastedMs: 720_000, providerId: null } });
    await adapter.send({ url, secret }, recovery);
    await adapter.send({ url, secret }, channelMessage({ kind: 'digest', url: null, project: null }));
    const [resolve, digest] = received.map((request) => new Webhook(secret).verify(request.body, signedHeaders(request)));
    expect(resolve).toMatchObject({ type: 'notification.resolve', data: { title: HOSTILE_TEXT, body: HOSTILE_TEXT, recovers: { title: 'Monitor down', lastedMs: 720_000, providerId: null } } });
    expect(digest).toMatchObject({ type: 'notification.digest', data: { url: null, project: null } });
  });

  it('keeps the webhook-id when the same delivery is tried again, signing each try afresh', async () => {
    answers.push({ status: 503 });
    const clock = testClock(Date.now() - 60_000);
    const clocked = new SignedWebhookAdapter({ fetch: guardedFetch(), clock });
    const message = channelMessage();
    expect(await clocked.send({ url, secret }, message)).toMatchObject({ kind: 'retry', status: 503 });
    clock.advance(60_000);
    expect(await clocked.send({ url, secret }, message)).toMatchObject({ kind: 'sent' });
    const [first, second] = received;
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(Number(second?.headers['webhook-timestamp']) - Number(first?.headers['webhook-timestamp'])).toBe(60);
    expect(second?.headers['webhook-signature']).not.toBe(first?.headers['webhook-signature']);
    expect(() => new Webhook(secret).verify(second?.body ?? '', signedHeaders(second))).not.toThrow();
  });

  it("answers the receiver's status: 429 retries after its Retry-After, 500 retries, 410 and 404 are gone", async () => {
    answers.push({ status: 429, headers: { 'retry-after': '7' } }, { status: 500, body: 'oops' }, { status: 410 }, { status: 404 });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await adapter.send({ url, secret }, channelMessage()));
    expect(outcomes[0]).toMatchObject({ kind: 'retry', status: 429, afterMs: 7000 });
    expect(outcomes[1]).toMatchObject({ kind: 'retry', status: 500, afterMs: DEFAULT_RETRY_MS, reason: expect.stringMatching(/answered 500$/) });
    expect(outcomes[2]).toMatchObject({ kind: 'gone', status: 410 });
    expect(outcomes[3]).toMatchObject({ kind: 'gone', status: 404 });
  });

  it("refuses a 400 with the receiver's status only: never its words (any receiver may be an internal service), the secret nor the URL's path", async () => {
    const encoded = secret.slice('whsec_'.length);
    answers.push({ status: 400, body: `bad payload: expected secret ${secret} or ${encoded}` });
    const outcome = await adapter.send({ url, secret }, channelMessage());
    expect(outcome).toMatchObject({ kind: 'refused', status: 400, reason: expect.stringMatching(/^The webhook at \S+ answered 400$/) });
    answers.push({ status: 403, body: 'INTERNAL-ONLY-DATA secret=x' });
    expect(await adapter.send({ url, secret }, channelMessage())).toMatchObject({ kind: 'refused', status: 403, reason: expect.stringMatching(/^The webhook at \S+ answered 403$/) });
    expect(JSON.stringify(outcome)).not.toContain(encoded);
    expect(JSON.stringify(outcome)).not.toContain('/hooks/dash');
  });

  it('refuses a redirect instead of following it (Standard Webhooks: 3xx is a failure)', async () => {
    answers.push({ status: 301, headers: { location: 'https://elsewhere.example/hook' } });
    expect(await adapter.send({ url, secret }, channelMessage())).toMatchObject({ kind: 'refused', status: 301, reason: expect.stringContaining('redirect') });
    expect(received).toHaveLength(1);
  });

  it('retries a receiver that cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await adapter.send({ url: `http://127.0.0.1:${port}/hook`, secret }, channelMessage())).toEqual({
      kind: 'retry',
      status: null,
      afterMs: DEFAULT_RETRY_MS,
      reason: `The webhook at 127.0.0.1:${port} could not be reached`,
    });
  });

  it('refuses up front a URL that is not http(s), holds a login, or is a metadata address, and a secret that is not whsec_', async () => {
    const refusedWith = async (destination: { url: string; secret: string }) => {
      const outcome = await adapter.send(destination, channelMessage());
      expect(outcome).toMatchObject({ kind: 'refused', status: null });
      expect(JSON.stringify(outcome)).not.toContain(destination.secret.slice(6));
      return outcome.kind === 'refused' ? outcome.reason : '';
    };
    expect(await refusedWith({ url: 'ftp://hooks.example.com/x', secret })).toContain('https://');
    expect(await refusedWith({ url: 'https://user:s3cr3tInUrl@hooks.example.com/x', secret })).not.toContain('s3cr3tInUrl');
    expect(await refusedWith({ url: 'http://169.254.169.254/latest', secret })).toContain('169.254.169.254');
    expect(await refusedWith({ url, secret: 'whsec_c2hvcnQ=' })).toContain('whsec_');
    expect(await refusedWith({ url, secret: 'whsec_not base64 at all, this one!!' })).toContain('whsec_');
    expect(received).toEqual([]);
  });

  it('makes secrets of 32 random bytes as whsec_ base64 that the reference implementation takes', () => {
    const made = newWebhookSecret();
    expect(made).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(made.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(made);
    const timestamp = new Date();
    const reference = new Webhook(made);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': reference.sign('msg_1', timestamp, '{"a":1}') };
    expect(reference.verify('{"a":1}', headers)).toEqual({ a: 1 });
  });

  it('signs the published Standard Webhooks test vector', () => {
    const key = webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(key).toHaveLength(24);
    expect(webhookSignature(key ?? Buffer.alloc(0), 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});
