// The server's edge, over real sockets against the built dashboard: every way to start the build runs the guards
// (issue 25, 2), a dashboard behind a reverse proxy on the same host is never open (1), and bodies are held to their
// route's limit on the bytes actually read, chunked or not (11).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, raw, type Answer } from './http.ts';
import { runUntilExit, startDashboard, type DashboardOptions, type RunningDashboard } from './server.ts';
import { sleep } from './waiting.ts';

const PASSWORD = 'correct horse battery staple';
const webDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(webDir, '../..');

interface Upload extends Answer {
  /** Bytes handed to the socket when the answer came. */
  written: number;
  /** Bytes handed to the socket in all, until the connection went (with `keepWriting`) or the answer came. */
  sent: number;
  total: number;
}

/**
 * POSTs `head` then `padding` spaces, 64 KB a write as the socket takes them, chunked unless `headers` gives a
 * Content-Length. It stops writing when the answer comes, or with `keepWriting` (as an attacker would) only when the
 * server closes the connection; it tells how much had been written by each point.
 */
function upload(url: string, headers: Record<string, string>, head: string, padding: number, { keepWriting = false } = {}): Promise<Upload> {
  return new Promise((resolve, reject) => {
    const total = Buffer.byteLength(head) + padding;
    let written = 0;
    let answeredAt: number | undefined;
    let answer: Answer | undefined;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      if (!answer) reject(new Error(`no answer after ${written} bytes`));
      else resolve({ ...answer, written: answeredAt ?? written, sent: written, total });
    };
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      answeredAt = written;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        answer = { status: res.statusCode ?? 0, headers: res.headers, body: text };
        if (!keepWriting) settle();
      });
    });
    // Writing into a connection the server closed fails once the answer is in: that is the point.
    req.on('error', () => undefined);
    req.on('close', settle);
    const stop = () => req.destroyed || (answeredAt !== undefined && !keepWriting);
    const piece = Buffer.alloc(64 * 1024, ' ');
    req.write(head);
    written = Buffer.byteLength(head);
    const pump = () => {
      while (!stop() && written < total) {
        const size = Math.min(piece.length, total - written);
        written += size;
        if (!req.write(size === piece.length ? piece : piece.subarray(0, size))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!stop()) req.end();
    };
    pump();
  });
}

/**
 * One request written byte for byte on its own connection (the path as it is, as `curl --path-as-is` sends it), and
 * its answer as read until the server closes the connection (send `Connection: close`); the body as it came, chunked or not.
 */
function exchange(port: number, head: string, body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1').on('data', (piece: string) => (text += piece));
    // A server that closes while the client still writes may reset the connection after its answer: the answer counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
      if (status === undefined) reject(new Error(`no answer: ${JSON.stringify(text.slice(0, 200))}`));
      else resolve({ status: Number(status), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    // Not half-closed (curl does not): Node's server would end its side too, before an answer still being made.
    socket.write(head + body);
  });
}

/** A file adapter-node serves itself, which SvelteKit's hooks never see. */
const asset = `/_app/immutable/entry/${readdirSync(join(webDir, 'build/client/_app/immutable/entry')).find((name) => name.endsWith('.js'))}`;

function passwordFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dash-password-')), 'password');
  writeFileSync(file, `${PASSWORD}\n`, { mode: 0o600 });
  return file;
}

/** docker/Dockerfile.web's CMD (node's arguments) and ENV, as the image runs them in /app. */
function dockerCommand(): { entry: string[]; env: Record<string, string> } {
  const text = readFileSync(join(repoDir, 'docker/Dockerfile.web'), 'utf8').replace(/\\\n/g, ' ');
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(text)?.[1] ?? '[]') as string[];
  expect(cmd[0]).toBe('node');
  const env: Record<string, string> = {};
  for (const line of text.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const [, name, value] of line.slice(4).matchAll(/([A-Z_]+)=(\S+)/g)) env[name as string] = value as string;
  }
  return { entry: cmd.slice(1), env };
}

describe('every way to start the build runs the guards', () => {
  const local: Array<[string, DashboardOptions]> = [
    ['node build/server.js (npm start)', {}],
    ['node build (adapter-node’s entry)', { entry: ['build'], cwd: 'web' }],
    ['node build/index.js', { entry: ['build/index.js'], cwd: 'web' }],
  ];

  it.each(local)('%s: a foreign Host is refused on pages, the API and static files; this machine’s requests are served', async (_, options) => {
    const dashboard = await startDashboard(options);
    try {
      expect(dashboard.output()).toContain(`Listening on http://127.0.0.1:${dashboard.port}`);
      for (const path of ['/', '/api/settings', asset]) {
        const refused = await raw(`${dashboard.url}${path}`, { headers: { host: `rebind.evil.example:${dashboard.port}` } });
        expect([path, refused.status]).toEqual([path, 403]);
        expect(refused.body).toContain('DASHBOARD_ALLOWED_HOSTS');
        expect(refused.headers['x-frame-options']).toBe('DENY');
      }
      // A change from another site is refused too (the cross-site guard), and the same change from its own page passes.
      const crossSite = await raw(`${dashboard.url}/api/settings`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
      expect([crossSite.status, errorOf(crossSite).code]).toEqual([403, 'CROSS_SITE']);
      const own = await raw(`${dashboard.url}/api/settings`, { method: 'POST', headers: { origin: dashboard.url, 'content-type': 'application/json' }, body: '{}' });
      expect(own.status).toBe(200);
      const page = await raw(`${dashboard.url}/`);
      expect([page.status, page.headers['content-type'], page.headers['x-frame-options']]).toEqual([200, 'text/html', 'DENY']);
      const file = await raw(`${dashboard.url}${asset}`);
      expect([file.status, file.headers['x-content-type-options']]).toEqual([200, 'nosniff']);
    } finally {
      await dashboard.stop();
    }
  });

  it('the Docker image’s CMD with its ENV (run without Docker, in a directory laid out as /app): remote, guarded', async () => {
    const docker = dockerCommand();
    expect(docker.env).toMatchObject({ HOST: '0.0.0.0', NODE_ENV: 'production' });
    // As `docker run --env-file .env -e ORIGIN=… -e DASHBOARD_PASSWORD_FILE=…` (README); PORT is a free one instead of 3000.
    const dashboard = await startDashboard({
      fromEnvExample: true,
      cwd: 'app',
      entry: docker.entry,
      env: (port) => ({ ...docker.env, ORIGIN: `http://localhost:${port}`, DASHBOARD_PASSWORD_FILE: passwordFile() }),
    });
    try {
      expect(dashboard.output()).toContain('remote mode');
      const at = `http://127.0.0.1:${dashboard.port}`;
      for (const host of ['rebind.evil.example', `127.0.0.1:${dashboard.port}`]) {
        for (const path of ['/login', '/api/settings', asset]) expect([host, path, (await raw(`${at}${path}`, { headers: { host } })).status]).toEqual([host, path, 403]);
      }
      const own = { host: `localhost:${dashboard.port}` };
      expect((await raw(`${at}/login`, { headers: own })).status).toBe(200);
      expect((await raw(`${at}${asset}`, { headers: own })).status).toBe(200);
      expect((await raw(`${at}/api/settings`, { headers: own })).status).toBe(401);
      // The image's HEALTHCHECK asks by address.
      expect((await raw(`${at}/healthz`)).status).toBe(200);
    } finally {
      await dashboard.stop();
    }
  });

  it('refuses adapter-node’s other listeners (SOCKET_PATH, socket activation) at start, saying to use HOST and PORT', async () => {
    for (const env of [{ SOCKET_PATH: join(tmpdir(), 'dash.sock') }, { LISTEN_PID: '1', LISTEN_FDS: '1' }]) {
      const result = await runUntilExit({ HOST: '127.0.0.1', ...env }, { entry: ['build'], cwd: 'web' });
      expect(result.code).toBe(1);
      expect(result.output).toMatch(/adapter-node's, which this dashboard does not use: it listens on HOST and PORT/);
      expect(result.output).not.toContain('Listening on');
    }
  });
});

describe('a dashboard behind a reverse proxy on this machine', () => {
  // What Caddy or nginx sends on to 127.0.0.1:<port> for a visitor from the internet.
  const proxied = { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'dash.example.com', via: '1.1 caddy' };

  it('with ORIGIN set to the public address is remote although HOST is loopback: setup first, never open', async () => {
    const dashboard = await startDashboard({ env: { HOST: '127.0.0.1', ORIGIN: 'https://dash.example.com' } });
    try {
      const at = `http://127.0.0.1:${dashboard.port}`;
      const headers = { ...proxied, host: 'dash.example.com' };
      expect(dashboard.output()).toContain('remote mode: served as https://dash.example.com');
      expect(dashboard.output()).toMatch(/Open https:\/\/dash\.example\.com\/setup\?token=/);
      const api = await raw(`${at}/api/settings`, { headers });
      expect([api.status, errorOf(api).code]).toEqual([503, 'SETUP_REQUIRED']);
      // The attacker's Origin passes the cross-site guard, and still meets the setup wall.
      const change = await raw(`${at}/api/settings`, { method: 'POST', headers: { ...headers, origin: 'https://dash.example.com', 'content-type': 'application/json' }, body: '{}' });
      expect(change.status).toBe(503);
      expect((await raw(`${at}/`, { headers })).headers.location).toBe('/setup');
      // A remote dashboard admits only ORIGIN's name: not this machine's.
      expect((await raw(`${at}/`, { headers: { host: `127.0.0.1:${dashboard.port}` } })).status).toBe(403);
    } finally {
      await dashboard.stop();
    }
  });

  it('with a password from the environment: signing in through the proxy works, and nothing is open without it', async () => {
    const dashboard = await startDashboard({ env: { HOST: '127.0.0.1', ORIGIN: 'https://dash.example.com', DASHBOARD_PASSWORD_FILE: passwordFile() } });
    try {
      const at = `http://127.0.0.1:${dashboard.port}`;
      const headers = { ...proxied, host: 'dash.example.com' };
      expect((await raw(`${at}/api/settings`, { headers })).status).toBe(401);
      const signIn = await raw(`${at}/login`, {
        method: 'POST',
        headers: { ...headers, origin: 'https://dash.example.com', accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password: PASSWORD }).toString(),
      });
      expect(signIn.status).toBe(303);
      const cookie = [signIn.headers['set-cookie'] ?? []].flat().find((value) => value.startsWith('__Host-dash_session='))?.split(';')[0] ?? '';
      expect(cookie).not.toBe('');
      expect((await raw(`${at}/api/settings`, { headers: { ...headers, cookie } })).status).toBe(200);
    } finally {
      await dashboard.stop();
    }
  });

  it('with a DASHBOARD_ALLOWED_HOSTS name beyond this machine is remote too, and needs ORIGIN to start', async () => {
    const refused = await runUntilExit({ HOST: '127.0.0.1', DASHBOARD_ALLOWED_HOSTS: 'dash.example.com' });
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/DASHBOARD_ALLOWED_HOSTS serves dash\.example\.com, beyond this machine .*set ORIGIN/);
    const dashboard = await startDashboard({ env: (port) => ({ HOST: '127.0.0.1', ORIGIN: `http://127.0.0.1:${port}`, DASHBOARD_ALLOWED_HOSTS: 'dash.example.com' }) });
    try {
      const api = await raw(`${dashboard.url}/api/settings`, { headers: { ...proxied, host: 'dash.example.com' } });
      expect([api.status, errorOf(api).code]).toEqual([503, 'SETUP_REQUIRED']);
    } finally {
      await dashboard.stop();
    }
  });

  describe('when it is local without a password (HOST and ORIGIN loopback, the proxy set up without ORIGIN)', () => {
    let dashboard: RunningDashboard;
    beforeAll(async () => {
      dashboard = await startDashboard();
    });
    afterAll(() => dashboard.stop());

    it.each([['forwarded', 'for=203.0.113.7;proto=https'], ['x-forwarded-for', '203.0.113.7'], ['x-forwarded-host', 'dash.example.com'], ['x-real-ip', '203.0.113.7'], ['via', '1.1 nginx']])(
      'refuses a request carrying %s with 403 saying to set ORIGIN and a password',
      async (name, value) => {
        // The Host and Origin a proxy passes on unchanged (nginx's `proxy_set_header Host $host` aside) are this machine's.
        const api = await raw(`${dashboard.url}/api/settings`, { method: 'POST', headers: { [name]: value, origin: dashboard.url, 'content-type': 'application/json' }, body: '{}' });
        expect(api.status).toBe(403);
        expect(errorOf(api)).toEqual({ code: 'PROXIED_WITHOUT_PASSWORD', message: expect.stringMatching(/set ORIGIN to the address people open.*password/) });
        const page = await raw(`${dashboard.url}/`, { headers: { [name]: value } });
        expect([page.status, page.headers['content-type']]).toEqual([403, 'text/plain; charset=utf-8']);
        expect(page.body).toMatch(new RegExp(`came through a proxy \\(${name} header\\).*set ORIGIN`));
        const trpc = await raw(`${dashboard.url}/api/trpc/settings.get`, { headers: { [name]: value } });
        expect(trpc.status).toBe(403);
      },
    );

    it('still answers the liveness probe and a provider’s webhook through a proxy, and this machine’s own requests as before', async () => {
      expect((await raw(`${dashboard.url}/healthz`, { headers: proxied })).status).toBe(200);
      // A tunnel for webhooks: the delivery reaches its route, which judges its signature (none here: 401, not the proxy's 403).
      const webhook = await raw(`${dashboard.url}/api/webhooks/code_host`, {
        method: 'POST',
        headers: { ...proxied, 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': 'tunnel-1' },
        body: '{}',
      });
      expect([webhook.status, errorOf(webhook).code]).toEqual([401, 'UNAUTHORIZED']);
      expect((await raw(`${dashboard.url}/api/settings`)).status).toBe(200);
      expect((await raw(`${dashboard.url}/`)).status).toBe(200);
    });
  });

  it('a local dashboard with a password serves proxied requests as any other: the sign-in decides', async () => {
    const dashboard = await startDashboard({ env: { DASHBOARD_PASSWORD_FILE: passwordFile() } });
    try {
      expect((await raw(`${dashboard.url}/api/settings`, { headers: proxied })).status).toBe(401);
      expect((await raw(`${dashboard.url}/login`, { headers: proxied })).status).toBe(200);
    } finally {
      await dashboard.stop();
    }
  });
});

describe('request bodies are held to their route’s limit on the bytes read', () => {
  let dashboard: RunningDashboard;
  beforeAll(async () => {
    // A webhook with a secret reads its body (one without is refused before it: slow-clients.test.ts).
    dashboard = await startDashboard({ env: { DASHBOARD_PASSWORD_FILE: passwordFile(), WEBHOOK_SECRET_CODE_HOST: 'a-code-host-signing-secret' } });
  });
  afterAll(() => dashboard.stop());

  const form = () => ({ origin: dashboard.url, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' });
  const signedIn = async () => {
    const signIn = await raw(`${dashboard.url}/login`, { method: 'POST', headers: form(), body: new URLSearchParams({ password: PASSWORD }).toString() });
    expect(signIn.status).toBe(303);
    return [signIn.headers['set-cookie'] ?? []].flat()[0]?.split(';')[0] ?? '';
  };
  const tooLarge = (answer: Upload, size: string) => {
    expect([answer.status, answer.headers.connection, errorOf(answer)]).toEqual([413, 'close', { code: 'PAYLOAD_TOO_LARGE', message: `The request body is larger than ${size}, the most this route takes` }]);
  };

  it('sign-in and setup take 16 KB, chunked or declared; a normal chunked sign-in still works', async () => {
    const signIn = await upload(`${dashboard.url}/login`, form(), `password=${encodeURIComponent(PASSWORD)}`, 0);
    expect(signIn.status).toBe(303);
    tooLarge(await upload(`${dashboard.url}/login`, form(), 'password=', 64 * 1024), '16 KB');
    tooLarge(await upload(`${dashboard.url}/setup`, form(), 'password=', 64 * 1024), '16 KB');
    const json = { 'content-type': 'application/json', origin: dashboard.url };
    tooLarge(await upload(`${dashboard.url}/api/trpc/auth.login`, json, '{"password":"', 64 * 1024), '16 KB');
    tooLarge(await upload(`${dashboard.url}/api/tokens`, json, '{"name":"', 64 * 1024), '16 KB');
    // A declared size over the limit is refused before a byte of the body is read.
    tooLarge(await upload(`${dashboard.url}/login`, { ...form(), 'content-length': String(20 * 1024) }, 'password=', 20 * 1024 - 9), '16 KB');
  });

  it('a chunked body without Content-Length over 1 MB is refused once 1 MB is in: the server never reads the rest', async () => {
    const cookie = await signedIn();
    const json = { cookie, 'content-type': 'application/json', origin: dashboard.url };
    const total = 64 * 1024 * 1024;
    const answer = await upload(`${dashboard.url}/api/trpc/settings.update`, json, '{"projectOrder":["', total, { keepWriting: true });
    tooLarge(answer, '1 MB');
    // What the client had handed to its socket when the 413 came, and when the server closed the connection on a
    // client that kept writing: 1 MB, the 4 MB at most thrown away after the 413, and what the kernel's buffers
    // hold; far from 64 MB.
    expect(answer.written).toBeLessThan(16 * 1024 * 1024);
    expect(answer.sent).toBeLessThan(16 * 1024 * 1024);
    // The REST routes count to their own 256 KB first (packages/api/src/rest/dispatch.ts), in the same words.
    const rest = await upload(`${dashboard.url}/api/projects`, json, '{"name":"', 2 * 1024 * 1024);
    expect([rest.status, rest.headers.connection, errorOf(rest)]).toEqual([413, 'close', { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 256 KB' }]);
    tooLarge(await upload(`${dashboard.url}/api/webhooks/code_host`, { 'content-type': 'application/json' }, '{"a":"', 300 * 1024), '256 KB');
    // Without a sign-in the answer is 401 at once; the body that keeps coming is counted as it is thrown away, and
    // the connection goes at the limit instead of reading all 64 MB.
    const anonymous = await upload(`${dashboard.url}/api/trpc/settings.update`, { 'content-type': 'application/json', origin: dashboard.url }, '{"a":"', total, { keepWriting: true });
    expect(anonymous.status).toBe(401);
    expect(anonymous.sent).toBeLessThan(16 * 1024 * 1024);
    // The server is fine, and so is the next request.
    expect((await raw(`${dashboard.url}/api/settings`, { headers: { cookie } })).status).toBe(200);
  });

  it.each([
    ['401 without a sign-in', (port: string) => `Host: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}`, 401],
    ['the guard’s 403 for a foreign Host', () => 'Host: rebind.evil.example', 403],
  ])('an answer given before the body was read (%s) still reaches a client that writes on past the limit', async (_, head, status) => {
    // One raw connection that reads nothing until it has written: the head and 1.5 MB of a chunked body, a pause in
    // which the answer and the limit both pass, one more write, and only then the answer. A connection closed with
    // bytes unread is reset (at the limit, or, when nothing read the rest, at the keep-alive timeout), and the answer
    // is lost with it. The server reads the rest to the limit and lingers, as after its own 413: the write goes
    // through, and the answer and a clean close follow.
    const { port } = new URL(dashboard.url);
    const socket = connect(Number(port), '127.0.0.1');
    let failure: Error | undefined;
    socket.on('error', (error) => (failure = error));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const chunk = (size: number) => `${size.toString(16)}\r\n${' '.repeat(size)}\r\n`;
    socket.write(`POST /api/trpc/settings.update HTTP/1.1\r\n${head(port)}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    for (let i = 0; i < 24; i++) socket.write(chunk(64 * 1024));
    if (socket.writableLength > 0) await new Promise((resolve) => socket.once('drain', resolve));
    await sleep(500);
    await new Promise<void>((resolve) => socket.write(chunk(64 * 1024), () => resolve()));
    const wrote = performance.now();
    let text = '';
    socket.setEncoding('latin1').on('data', (piece: string) => (text += piece));
    await closed;
    expect(failure?.message ?? null).toBeNull();
    // Closed by the server at the limit, not after reading the body to its end and idling out the keep-alive (5 s).
    expect(performance.now() - wrote).toBeLessThan(4_000);
    expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  });

  it('a path with dot segments (curl --path-as-is) gets the limit of the route it reaches: 413 after 16 KB to /login and auth.*', async () => {
    // Raw request lines, as `curl --path-as-is` sends them: adapter-node resolves the dot segments (and `%2e%2e`), so
    // each reaches the sign-in form or auth.login, and must meet their 16 KB, not the 1 MB of a path it does not name.
    const { port } = new URL(dashboard.url);
    const host = `Host: 127.0.0.1:${port}\r\nOrigin: ${dashboard.url}\r\nConnection: close`;
    const padding = ' '.repeat(200 * 1024);
    for (const [path, type, body] of [
      ['/x/../login', 'application/x-www-form-urlencoded', `password=${padding}`],
      ['/%2e%2e/login', 'application/x-www-form-urlencoded', `password=${padding}`],
      ['/api/trpc/x/../auth.login', 'application/json', `{"password":"${padding}"}`],
    ] as const) {
      const answer = await exchange(Number(port), `POST ${path} HTTP/1.1\r\n${host}\r\nAccept: text/html\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`, body);
      expect([path, answer.status]).toEqual([path, 413]);
      expect(answer.body).toContain('"message":"The request body is larger than 16 KB, the most this route takes"');
    }
    // The owner's sign-in by the same path still works.
    const signIn = await exchange(Number(port), `POST /x/../login HTTP/1.1\r\n${host}\r\nAccept: text/html\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${`password=${encodeURIComponent(PASSWORD)}`.length}\r\n\r\n`, `password=${encodeURIComponent(PASSWORD)}`);
    expect(signIn.status).toBe(303);
  });

  it('the import takes a real export of more than 1 MB, chunked', async () => {
    const cookie = await signedIn();
    const exported = await raw(`${dashboard.url}/api/database/export`, { headers: { cookie } });
    expect(exported.status).toBe(200);
    // The export as downloaded, padded with whitespace (still the same JSON) past every limit but the import's.
    const dump = JSON.parse(exported.body) as unknown;
    const answer = await upload(
      `${dashboard.url}/api/database/import?dryRun=1`,
      { cookie, origin: dashboard.url, 'content-type': 'application/json' },
      JSON.stringify({ dump, password: PASSWORD }),
      3 * 1024 * 1024,
    );
    expect([answer.status, answer.written]).toEqual([200, answer.total]);
  });
});
