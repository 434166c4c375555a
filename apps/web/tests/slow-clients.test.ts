// Slow clients, over real sockets against the built dashboard (issue 37, 1): a request's headers and body each have
// their time, a connection left after an early answer goes with the linger, connections are capped in all and per
// address, and the webhook route refuses what it cannot take before reading the body; each time the attacker's
// connection beside a legitimate request on another, which is served all along.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type RunningDashboard } from './server.ts';
import { until } from './waiting.ts';

const PASSWORD = 'correct horse battery staple';
const SECRET = 'a-code-host-signing-secret';

function passwordFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dash-password-')), 'password');
  writeFileSync(file, `${PASSWORD}\n`, { mode: 0o600 });
  return file;
}

interface Held {
  /** Everything the server sent. */
  text: string;
  /** When its first byte came, from the connection's opening; undefined if none came. */
  answeredAfterMs: number | undefined;
  /** When the server closed the connection; undefined if the client gave up first (and closed it itself). */
  closedAfterMs: number | undefined;
}

interface SlowClient {
  /** Resolves when the server has answered (its first byte), with how long that took. */
  answered: Promise<number>;
  /** Resolves when the connection is gone. */
  done: Promise<Held>;
  /** Resolves once the server has accepted the connection. */
  connected: Promise<void>;
  close(): void;
}

/**
 * An attacker's connection: from `from` (another loopback address is another client to the server), it writes `text`,
 * then one byte every `dripMs` if given (never enough to finish the request), and reads what comes, until the server
 * closes the connection or `giveUpMs` passes (then it closes the connection itself; with `closeOnAnswer`, as soon as
 * an answer's head is in).
 */
function slowClient(
  port: number,
  text: string,
  {
    from = '127.0.0.2',
    dripMs,
    drip: byte = ' ',
    giveUpMs = 15_000,
    closeOnAnswer = false,
  }: { from?: string; dripMs?: number; drip?: string; giveUpMs?: number; closeOnAnswer?: boolean } = {},
): SlowClient {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  const began = performance.now();
  let received = '';
  let answeredAfterMs: number | undefined;
  let serverClosed = false;
  let onAnswer: (ms: number) => void = () => undefined;
  const answered = new Promise<number>((resolve) => (onAnswer = resolve));
  const drip = dripMs === undefined ? undefined : setInterval(() => socket.write(byte), dripMs);
  const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
  socket.setEncoding('latin1').on('data', (piece: string) => {
    received += piece;
    if (answeredAfterMs === undefined) onAnswer((answeredAfterMs = performance.now() - began));
    if (closeOnAnswer && /\r\n\r\n/.test(received)) socket.destroy();
  });
  socket.on('end', () => (serverClosed = true));
  // A connection closed by the server while the client drips may end in a reset: it is closed all the same.
  socket.on('error', () => (serverClosed = true));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const done = new Promise<Held>((resolve) =>
    socket.once('close', () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ text: received, answeredAfterMs, closedAfterMs: serverClosed ? performance.now() - began : undefined });
    }),
  );
  socket.write(text);
  return { answered, done, connected, close: () => socket.destroy() };
}

/** A legitimate request on its own connection (`Connection: close`), from `from`: its status, or 0 when the connection closed without one. */
function request(port: number, head: string, body = '', from = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    let text = '';
    socket.setEncoding('latin1').on('data', (piece: string) => (text += piece));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0)));
    socket.write(head + body);
  });
}

const form = (port: number, path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\nAccept: text/html\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n`;

/** The owner signing in on another connection: 303 while the attacker holds theirs. */
function ownerSignsIn(port: number): Promise<number> {
  const body = `password=${encodeURIComponent(PASSWORD)}`;
  return request(port, form(port, '/login', body.length).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'), body);
}

const linesOf = (output: string, pattern: RegExp) => output.split('\n').filter((line) => pattern.test(line));

describe('with short timeouts (HEADERS_TIMEOUT=1, REQUEST_TIMEOUT=3, BODY_IDLE_TIMEOUT=1)', () => {
  let dashboard: RunningDashboard;
  let port: number;
  beforeAll(async () => {
    dashboard = await startDashboard({
      env: { DASHBOARD_PASSWORD_FILE: passwordFile(), HEADERS_TIMEOUT: '1', REQUEST_TIMEOUT: '3', BODY_IDLE_TIMEOUT: '1', WEBHOOK_SECRET_CODE_HOST: SECRET },
    });
    port = dashboard.port;
  });
  afterAll(() => dashboard.stop());

  it('headers that never end are answered 408 and closed within HEADERS_TIMEOUT, while the owner signs in on another connection', async () => {
    const attacker = slowClient(port, `POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\n`);
    // A header name growing by a letter every half second: each byte is news, and still the headers never end.
    const dripping = slowClient(port, `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, { from: '127.0.0.3', dripMs: 500, drip: 'x' });
    expect(await ownerSignsIn(port)).toBe(303);
    for (const held of [await attacker.done, await dripping.done]) {
      // 1 s, and at most 1 s more until Node's next look: well before Node's own 60 s.
      expect(held.closedAfterMs).toBeLessThan(4_000);
      expect(held.text).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('a body that stops coming (Content-Length: 10000, then nothing) is answered 408 and closed within BODY_IDLE_TIMEOUT', async () => {
    const attacker = slowClient(port, `${form(port, '/login', 10_000)}password=abc`);
    const webhook = slowClient(
      port,
      `POST /api/webhooks/github HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nX-GitHub-Event: ping\r\nContent-Length: 100000\r\n\r\n{"zen":"`,
      { from: '127.0.0.3' },
    );
    expect(await ownerSignsIn(port)).toBe(303);
    for (const held of [await attacker.done, await webhook.done]) {
      expect(held.closedAfterMs).toBeLessThan(3_000);
      expect(held.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(held.text).toContain('"code":"REQUEST_TIMEOUT"');
    }
    // Each is one line in the log, not an unhandled error.
    await until(() => Promise.resolve(linesOf(dashboard.output(), /request cut short: POST \/(login|api\/webhooks\/github) from 127\.0\.0\.[23]: no byte of its body for 1 s/)), (lines) => lines.length === 2, 5_000, 'two lines');
    expect(dashboard.output()).not.toContain('unhandled error');
  });

  it('a body that trickles in (a byte every 400 ms, never idle long enough) is cut at REQUEST_TIMEOUT', async () => {
    const attacker = slowClient(port, `${form(port, '/login', 10_000)}password=`, { dripMs: 400 });
    expect(await ownerSignsIn(port)).toBe(303);
    const held = await attacker.done;
    // 3 s from the first byte, and at most 1 s more until Node's next look: not Node's 300 s.
    expect(held.closedAfterMs).toBeLessThan(5_500);
    expect(held.text).toMatch(/^HTTP\/1\.1 408 /);
    await until(() => Promise.resolve(linesOf(dashboard.output(), /request cut short: POST \/login from 127\.0\.0\.2: not all of it within REQUEST_TIMEOUT \(3 s\)/)), (lines) => lines.length === 1, 5_000, 'its line');
    expect(dashboard.output()).not.toContain('unhandled error');
  });
});

describe('with the default timeouts, at most 3 connections from one address and 6 in all', () => {
  let dashboard: RunningDashboard;
  let port: number;
  beforeAll(async () => {
    dashboard = await startDashboard({ env: { DASHBOARD_PASSWORD_FILE: passwordFile(), MAX_CONNECTIONS_PER_ADDRESS: '3', MAX_CONNECTIONS: '6' } });
    port = dashboard.port;
  });
  afterAll(() => dashboard.stop());

  it('after an early 401, a body trickling in for ever is cut 5 s after the answer (the linger), not at REQUEST_TIMEOUT', async () => {
    const attacker = slowClient(port, `POST /api/settings HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`, {
      dripMs: 1_000,
    });
    const answeredAfter = await attacker.answered;
    expect(await ownerSignsIn(port)).toBe(303);
    const held = await attacker.done;
    expect(held.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(held.closedAfterMs).toBeGreaterThan(answeredAfter);
    expect((held.closedAfterMs ?? Infinity) - answeredAfter).toBeLessThan(7_000);
  });

  it('a fourth connection from one address is closed at once, while other addresses are served; past 6 in all, any', async () => {
    // Three connections from 127.0.0.2 that say nothing (their headers would have 15 s).
    const held = [0, 1, 2].map(() => slowClient(port, ''));
    await Promise.all(held.map((client) => client.connected));
    const fourth = slowClient(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const refused = await fourth.done;
    expect(refused.closedAfterMs).toBeLessThan(2_000);
    expect(refused.text).toBe('');
    expect(await ownerSignsIn(port)).toBe(303);
    // Three more from 127.0.0.3 fill the six; a seventh from anywhere is closed, until one of them goes.
    const more = [0, 1, 2].map(() => slowClient(port, '', { from: '127.0.0.3' }));
    await Promise.all(more.map((client) => client.connected));
    expect(await request(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, '', '127.0.0.4')).toBe(0);
    more[0]?.close();
    await more[0]?.done;
    expect(await until(() => ownerSignsIn(port), (status) => status === 303, 5_000, 'served again')).toBe(303);
    for (const client of [...held, ...more]) client.close();
  });
});

describe('the webhook route refuses what it cannot take before reading the body', () => {
  let dashboard: RunningDashboard;
  let port: number;
  beforeAll(async () => {
    dashboard = await startDashboard({ env: { DASHBOARD_PASSWORD_FILE: passwordFile(), WEBHOOK_SECRET_CODE_HOST: SECRET } });
    port = dashboard.port;
  });
  afterAll(() => dashboard.stop());

  const delivery = (integration: string) =>
    `POST /api/webhooks/${integration} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"zen":"`;

  it('an integration without a secret (401) or unknown (404) is answered at once, the body never sent', async () => {
    for (const [integration, status] of [
      ['vercel', 401],
      ['deploy_host', 401],
      ['nope', 404],
    ] as const) {
      const attacker = slowClient(port, delivery(integration), { giveUpMs: 3_000, closeOnAnswer: true });
      const held = await attacker.done;
      expect([integration, held.text.split('\r\n')[0]]).toEqual([integration, `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Not Found'}`]);
      expect(held.answeredAfterMs).toBeLessThan(1_500);
    }
    // One with a secret reads its body first: no answer while it has not come.
    const waiting = slowClient(port, delivery('github'), { giveUpMs: 1_500 });
    expect(await ownerSignsIn(port)).toBe(303);
    expect((await waiting.done).text).toBe('');
  });
});
