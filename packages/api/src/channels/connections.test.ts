import type { ChannelConnection } from '@dash/contracts';
import type { ChannelConnectionRow } from '@dash/db';
import { startSandbox, type Sandbox } from '@dash/sandbox';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Identity } from '../auth/access.ts';
import { CredentialVault } from '../credentials/vault.ts';
import { createCaller } from '../root.ts';
import { ATTENTION_FOR_TOKENS } from '../router/auth.ts';
import { createTestApi, restClient } from '../testing.ts';

// The connections as the owner manages them through /api/channels: who may add, change, test and remove one; bad
// input refused with nothing stored; secrets sealed for their host, never answered, never sent elsewhere; the test
// message and what it leaves on the connection.

type Api = Awaited<ReturnType<typeof createTestApi>>;

const PASSWORD = 'correct horse battery staple';
const writeToken: Identity = { via: 'token', scope: 'write', tokenId: 'tok1' };
const readToken: Identity = { via: 'token', scope: 'read', tokenId: 'tok2' };
const session: Identity = { via: 'session', scope: 'write', sessionId: 'sess1' };

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const apis: Api[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((api) => api.dispose()));
});

/** A dashboard on a clock a test moves (one test message a minute per connection), the chat services at the sandbox. */
async function dashboard() {
  let now = Date.now();
  const api = await createTestApi({
    scheduler: false,
    clock: { now: () => now, sleep: () => Promise.resolve() },
    chat: { CHAT_SLACK_URL: sandbox.services.slack.url, CHAT_DISCORD_URL: sandbox.services.discord.url, CHAT_TELEGRAM_URL: sandbox.services.telegram.url },
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

function slackHook(channel = '#ops') {
  const hook = sandbox.createSlackWebhook(channel);
  return { ...hook, pasted: hook.url.replace(sandbox.services.slack.url, 'https://hooks.slack.com'), secret: hook.url.split('/').pop() ?? '' };
}

const errorOf = (res: { json: Record<string, unknown> }) => (res.json.error as { message: string } | undefined)?.message;

describe('/api/channels', () => {
  it('adds one of each kind and lists them with nothing secret in the answer', async () => {
    const { call, list, api } = await dashboard();
    const slack = slackHook();
    const bot = sandbox.createTelegramBot();
    const ntfyToken = sandbox.protectNtfyTopic('alerts-7f3k');
    const added = [
      await call('POST', '/api/channels', { name: '#ops', destination: { kind: 'slack', webhookUrl: slack.pasted } }),
      await call('POST', '/api/channels', { name: 'Discord', minSeverity: 'error', destination: { kind: 'discord', webhookUrl: 'https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' } }),
      await call('POST', '/api/channels', { name: 'Group', destination: { kind: 'telegram', botToken: bot.token, chatId: '-1001234567890' } }),
      await call('POST', '/api/channels', { name: 'Phone', minSeverity: 'info', destination: { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'alerts-7f3k', ...ntfyToken } }),
      await call('POST', '/api/channels', { name: 'Zapier', destination: { kind: 'webhook', url: 'https://hooks.example.com/catch/123/abc/' } }),
    ];
    expect(added.map((res) => res.status)).toEqual([201, 201, 201, 201, 201]);
    // The signed webhook's secret, once.
    const secret = (added[4]?.json as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(added.slice(0, 4).every((res) => !('secret' in res.json))).toBe(true);
    const connections = await list();
    // (Added within one millisecond of the test's clock: sorted here by kind.)
    expect(connections.map((c) => [c.kind, c.name, c.minSeverity, c.target]).sort(([a = ""], [b = ""]) => a.localeCompare(b))).toEqual([
      ['discord', 'Discord', 'error', 'discord.com · webhook 123456789012345678'],
      ['ntfy', 'Phone', 'info', `${new URL(sandbox.services.ntfy.url).host} · topic ale… (protected)`],
      ['slack', '#ops', 'warning', `hooks.slack.com · ${slack.team}/${slack.id}`],
      ['telegram', 'Group', 'warning', 'Telegram chat -1001234567890'],
      ['webhook', 'Zapier', 'warning', 'hooks.example.com'],
    ]);
    const answered = JSON.stringify(connections);
    for (const value of [slack.secret, 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', bot.token, 'token' in ntfyToken ? ntfyToken.token : '', secret, 'alerts-7f3k', '/catch/123/abc']) {
      expect(answered).not.toContain(value);
    }
    // Stored sealed: no secret in clear in the database either.
    const stored = JSON.stringify(await api.store.channels.list());
    for (const value of [slack.secret, bot.token, secret.slice(6), 'alerts-7f3k', '/catch/123/abc']) expect(stored).not.toContain(value);
  });

  it("keeps a destination's status as its last failure, never its answer, and a known service's own error code or description", async () => {
    const { call, as, nextMinute } = await dashboard();
    const internal = createServer((_req, res) => res.writeHead(403, { 'content-type': 'text/plain' }).end('INTERNAL-ONLY-DATA: admin panel secret=x'));
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    try {
      const bot = sandbox.createTelegramBot();
      const add = async (name: string, destination: Record<string, unknown>) => ((await call('POST', '/api/channels', { name, destination })).json as { connection: ChannelConnection }).connection;
      const connections = {
        slack: await add('#ops', { kind: 'slack', webhookUrl: slackHook().pasted }),
        discord: await add('Discord', { kind: 'discord', webhookUrl: 'https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' }),
        telegram: await add('Group', { kind: 'telegram', botToken: bot.token, chatId: '-1001234567890' }),
        ntfy: await add('Phone', { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'internal-3x' }),
        webhook: await add('Internal', { kind: 'webhook', url: `http://127.0.0.1:${(internal.address() as AddressInfo).port}/admin` }),
      };
      const lastFailure = async (id: string) => ((await call('GET', '/api/channels')).json as { connections: ChannelConnection[] }).connections.find((c) => c.id === id)?.lastFailure;
      // Every destination answering an internal service's 403 page: its status, and nothing of the page.
      for (const kind of ['slack', 'discord', 'telegram', 'ntfy'] as const) sandbox.inject(kind, { status: 403, body: 'INTERNAL-ONLY-DATA: admin panel secret=x', times: 1 });
      for (const [kind, connection] of Object.entries(connections)) {
        const test = (await call('POST', `/api/channels/${connection.id}/test`)).json as { outcome: string; message: string };
        expect({ kind, outcome: test.outcome, message: test.message }).toEqual({ kind, outcome: 'refused', message: expect.stringMatching(/ answered 403$/) });
        expect(await lastFailure(connection.id)).toBe(test.message);
      }
      nextMinute();
      // A known service's documented error: Slack's plain-text code, Discord's message and code, Telegram's description, ntfy's code.
      sandbox.inject('slack', { status: 403, body: 'invalid_token', times: 1 });
      sandbox.inject('discord', { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 }, times: 1 });
      sandbox.inject('telegram', { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was kicked from the group chat' }, times: 1 });
      sandbox.inject('ntfy', { status: 403, body: { code: 40301, http: 403, error: 'forbidden', link: 'https://ntfy.sh/docs/publish/#authentication' }, times: 1 });
      const expected = {
        slack: 'Slack answered 403: invalid_token',
        discord: 'Discord answered 401: Invalid Webhook Token (code 50027)',
        telegram: 'Telegram answered 403: Forbidden: bot was kicked from the group chat',
        ntfy: `The ntfy server ${new URL(sandbox.services.ntfy.url).host} answered 403: ntfy error 40301`,
      };
      for (const [kind, message] of Object.entries(expected)) {
        const id = connections[kind as keyof typeof expected].id;
        expect({ kind, message: ((await call('POST', `/api/channels/${id}/test`)).json as { message: string }).message }).toEqual({ kind, message });
        expect(await lastFailure(id)).toBe(message);
      }
      // What a destination answered is the owner's to read: an API token, read or write, lists the rows without it.
      nextMinute();
      sandbox.inject('slack', { status: 404, body: 'no_service', times: 1 });
      expect(((await call('POST', `/api/channels/${connections.slack.id}/test`)).json as { outcome: string }).outcome).toBe('gone');
      const owner = ((await call('GET', '/api/channels')).json as { connections: ChannelConnection[] }).connections;
      expect(owner.find((c) => c.id === connections.slack.id)).toMatchObject({ lastFailure: 'Slack answered 404: no_service', needsAttention: 'Slack answered 404: no_service' });
      expect(owner.filter((c) => c.lastFailure !== null)).toHaveLength(5);
      for (const scope of ['read', 'write'] as const) {
        const listed = await as({ via: 'token', scope, tokenId: `tok-${scope}` })('GET', '/api/channels');
        expect(listed.status).toBe(200);
        const rows = (listed.json as { connections: ChannelConnection[] }).connections;
        expect(rows.map((c) => c.lastFailure)).toEqual([null, null, null, null, null]);
        expect(rows.every((c) => c.lastFailureAt !== null)).toBe(true);
        expect(rows.find((c) => c.id === connections.slack.id)?.needsAttention).toBe(ATTENTION_FOR_TOKENS);
        expect(JSON.stringify(rows)).not.toMatch(/answered|no_service|invalid_token/);
      }
    } finally {
      await new Promise((resolve) => internal.close(resolve));
    }
  });

  it('refuses bad input with a clear 400 and stores nothing', async () => {
    const { call, list } = await dashboard();
    const cases: [unknown, string][] = [
      [{ name: 'x', destination: { kind: 'slack', webhookUrl: 'https://evil.example/services/T1/B1/abc' } }, 'webhookUrl is a Slack incoming webhook URL'],
      [{ name: 'x', destination: { kind: 'discord', webhookUrl: 'https://discord.com.evil.example/api/webhooks/1/abc' } }, 'webhookUrl is a Discord webhook URL'],
      [{ name: 'x', destination: { kind: 'telegram', botToken: 'not-a-token', chatId: '42' } }, 'botToken is the token @BotFather gave'],
      [{ name: 'x', destination: { kind: 'telegram', botToken: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ', chatId: 'me' } }, 'chatId is a chat'],
      [{ name: 'x', destination: { kind: 'ntfy', topic: 'no spaces please' } }, 'topic is 1 to 64 letters'],
      [{ name: 'x', destination: { kind: 'ntfy', topic: 'ok', token: 'tk_1', username: 'a', password: 'b' } }, 'not both'],
      [{ name: 'x', destination: { kind: 'webhook', url: 'http://hooks.example.com/x' } }, 'https'],
      [{ name: 'x', destination: { kind: 'webhook', url: 'https://169.254.169.254/latest/meta-data' } }, 'destination.url'],
      [{ name: 'x', destination: { kind: 'webhook', url: 'https://user:pass@hooks.example.com/x' } }, 'must not hold a user or password'],
      [{ name: 'x', destination: { kind: 'irc', url: 'irc://x' } }, 'destination.kind is one of'],
      [{ name: '', destination: { kind: 'webhook', url: 'https://hooks.example.com/x' } }, 'Name the connection'],
      [{ name: 'x', minSeverity: 'success', destination: { kind: 'webhook', url: 'https://hooks.example.com/x' } }, 'minSeverity is error, warning or info'],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/api/channels', body);
      expect({ body, status: res.status, message: errorOf(res) }).toEqual({ body, status: 400, message: expect.stringContaining(message) });
    }
    expect(await list()).toEqual([]);
  });

  it('refuses an API token, even write, on adding, changing, testing and removing (403), and lets one list', async () => {
    const { call, as, list } = await dashboard();
    const { connection } = (await call('POST', '/api/channels', { name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } })).json as { connection: ChannelConnection };
    for (const token of [writeToken, readToken]) {
      const client = as(token);
      for (const [method, path, body] of [
        ['POST', '/api/channels', { name: 'Attacker', destination: { kind: 'webhook', url: 'https://attacker.example/x' } }],
        ['PATCH', `/api/channels/${connection.id}`, { destination: { kind: 'slack', webhookUrl: slackHook('#attacker').pasted } }],
        ['POST', `/api/channels/${connection.id}/test`, undefined],
        ['DELETE', `/api/channels/${connection.id}`, undefined],
      ] as const) {
        const res = await client(method, path, body);
        expect({ path, method, scope: token.scope, status: res.status }).toEqual({ path, method, scope: token.scope, status: 403 });
      }
      expect((await client('GET', '/api/channels')).status).toBe(200);
    }
    expect((await list()).map((c) => [c.name, c.target])).toEqual([['#ops', connection.target]]);
    expect(sandbox.slackMessages()).toEqual([]);
  });

  it('asks a signed-in session for the password once one is set, to add or to change where a connection sends', async () => {
    const { api, as, list } = await dashboard();
    await api.caller.auth.changePassword({ newPassword: PASSWORD });
    const body = { name: '#ops', destination: { kind: 'slack', webhookUrl: slackHook().pasted } };
    const none = await as(session)('POST', '/api/channels', body);
    expect([none.status, errorOf(none)]).toEqual([403, 'Confirm this with the dashboard password (the password field).']);
    expect(await list()).toEqual([]);
    const added = await as(session)('POST', '/api/channels', { ...body, password: PASSWORD });
    expect(added.status).toBe(201);
    const id = (added.json as { connection: ChannelConnection }).connection.id;
    const moved = await as(session)('PATCH', `/api/channels/${id}`, { destination: { kind: 'slack', webhookUrl: slackHook('#elsewhere').pasted } });
    expect(moved.status).toBe(403);
    // Removing only narrows where data goes: the session alone.
    expect((await as(session)('DELETE', `/api/channels/${id}`)).json).toEqual({ ok: true, removed: true });
  });

  it('keeps a secret to its host: a new ntfy server needs its token again, a new webhook host gets a new secret, and another kind is refused', async () => {
    const { call, list } = await dashboard();
    const access = sandbox.protectNtfyTopic('team-9x');
    const ntfy = ((await call('POST', '/api/channels', { name: 'Phone', destination: { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'team-9x', ...access } })).json as { connection: ChannelConnection }).connection;
    const elsewhere = await call('PATCH', `/api/channels/${ntfy.id}`, { destination: { kind: 'ntfy', server: 'https://ntfy.example.com', topic: 'team-9x' } });
    const again = `the ntfy login saved goes only to ${new URL(sandbox.services.ntfy.url).origin}: give its access token (or user and password) again for https://ntfy.example.com`;
    expect([elsewhere.status, errorOf(elsewhere)]).toEqual([400, `Invalid input: destination.token: ${again}`]);
    // Named as a validation issue is, so a form puts it beside its field.
    expect((elsewhere.json.error as { issues: unknown }).issues).toEqual([{ path: ['destination', 'token'], message: again }]);
    // The same server, another topic: the token saved with it stays, and a test reaches the protected topic.
    sandbox.protectNtfyTopic('team-10x', access);
    const renamed = await call('PATCH', `/api/channels/${ntfy.id}`, { name: 'My phone', destination: { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'team-10x' } });
    expect(renamed.status).toBe(200);
    expect((await call('POST', `/api/channels/${ntfy.id}/test`)).json).toMatchObject({ outcome: 'sent' });
    expect(sandbox.ntfyMessages('team-10x').map((message) => message.title)).toEqual(['Test from your founder dashboard']);

    const hook = (await call('POST', '/api/channels', { name: 'Hook', destination: { kind: 'webhook', url: 'https://hooks.example.com/a' } })).json as { connection: ChannelConnection; secret: string };
    const samePlace = await call('PATCH', `/api/channels/${hook.connection.id}`, { destination: { kind: 'webhook', url: 'https://hooks.example.com/b' } });
    expect(samePlace.json).not.toHaveProperty('secret');
    const moved = await call('PATCH', `/api/channels/${hook.connection.id}`, { destination: { kind: 'webhook', url: 'https://other.example.com/a' } });
    const fresh = (moved.json as { secret: string }).secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(hook.secret);

    const kind = await call('PATCH', `/api/channels/${hook.connection.id}`, { destination: { kind: 'slack', webhookUrl: slackHook().pasted } });
    expect([kind.status, errorOf(kind)]).toEqual([400, 'Invalid input: destination.kind: this connection is webhook; add a new connection for slack']);
    expect((await list()).map((c) => [c.name, c.target]).sort(([a = ""], [b = ""]) => a.localeCompare(b))).toEqual([
      ['Hook', 'other.example.com'],
      ['My phone', `${new URL(sandbox.services.ntfy.url).host} · topic tea… (protected)`],
    ]);
  });

  it('keeps a saved ntfy login to the scheme, host and port it was saved for: an edit elsewhere without it is a 400 naming destination.token, and nothing stored changes', async () => {
    const { call, api, list } = await dashboard();
    const access = sandbox.protectNtfyTopic('origin-7q');
    // The fake ntfy listens on plain http on this machine; the login is saved for https on the same host and port.
    const served = new URL(sandbox.services.ntfy.url);
    const saved = `https://${served.host}`;
    const { connection } = (await call('POST', '/api/channels', { name: 'Phone', destination: { kind: 'ntfy', server: saved, topic: 'origin-7q', ...access } })).json as { connection: ChannelConnection };
    const stored = await api.store.channels.get(connection.id);
    const listed = await list();
    for (const [server, what] of [
      [`http://${served.host}`, 'the scheme'],
      [`https://${served.hostname}:${Number(served.port) + 1}`, 'the port'],
      [`https://localhost:${served.port}`, 'the host'],
    ] as const) {
      const res = await call('PATCH', `/api/channels/${connection.id}`, { destination: { kind: 'ntfy', server, topic: 'origin-7q' } });
      const message = `the ntfy login saved goes only to ${saved}: give its access token (or user and password) again for ${new URL(server).origin}`;
      expect({ what, status: res.status, message: errorOf(res), issues: (res.json.error as { issues: unknown }).issues }).toEqual({
        what,
        status: 400,
        message: `Invalid input: destination.token: ${message}`,
        issues: [{ path: ['destination', 'token'], message }],
      });
      expect(await api.store.channels.get(connection.id)).toEqual(stored);
    }
    expect(await list()).toEqual(listed);
    expect(sandbox.requestsTo('ntfy')).toEqual([]);
    // With the login given again for the new address, the edit is saved and the test message reaches the protected topic.
    const moved = await call('PATCH', `/api/channels/${connection.id}`, { destination: { kind: 'ntfy', server: served.origin, topic: 'origin-7q', ...access } });
    expect(moved.status).toBe(200);
    expect((await call('POST', `/api/channels/${connection.id}/test`)).json).toMatchObject({ outcome: 'sent' });
    expect(sandbox.ntfyMessages('origin-7q').map((message) => message.title)).toEqual(['Test from your founder dashboard']);
  });

  it('sends to an ntfy server over plain http only on this machine, and gives a signed webhook moved to another scheme a new secret', async () => {
    const { call, api } = await dashboard();
    const access = sandbox.protectNtfyTopic('plain-4z');
    for (const server of ['http://ntfy.example.com', 'http://192.168.1.20:8080', 'http://[fe80::1]']) {
      const res = await call('POST', '/api/channels', { name: 'Phone', destination: { kind: 'ntfy', server, topic: 'plain-4z', ...access } });
      expect({ server, status: res.status, message: errorOf(res) }).toEqual({ server, status: 400, message: expect.stringContaining('destination.server') });
    }
    expect(errorOf(await call('POST', '/api/channels', { name: 'Phone', destination: { kind: 'ntfy', server: 'http://ntfy.example.com', topic: 'plain-4z' } }))).toBe(
      'Invalid input: destination.server: The ntfy server address must use https (plain http only to this machine: localhost, 127.0.0.1 or [::1])',
    );
    expect(await api.store.channels.list()).toEqual([]);
    // This machine by any of its names: added (no request is made on adding).
    for (const server of [sandbox.services.ntfy.url, 'http://localhost:8080', 'http://[::1]:8080']) {
      expect((await call('POST', '/api/channels', { name: server, destination: { kind: 'ntfy', server, topic: 'plain-4z', ...access } })).status).toBe(201);
    }
    // An edit to plain http elsewhere, even with the login given, is refused the same way and changes nothing.
    const [first] = await api.store.channels.list();
    const edited = await call('PATCH', `/api/channels/${first?.id ?? ''}`, { destination: { kind: 'ntfy', server: 'http://ntfy.example.com', topic: 'plain-4z', ...access } });
    expect([edited.status, errorOf(edited)]).toEqual([400, 'Invalid input: destination.server: The ntfy server address must use https (plain http only to this machine: localhost, 127.0.0.1 or [::1])']);
    expect(await api.store.channels.get(first?.id ?? '')).toEqual(first);

    const port = new URL(sandbox.services.ntfy.url).port;
    const hook = (await call('POST', '/api/channels', { name: 'Hook', destination: { kind: 'webhook', url: `https://127.0.0.1:${port}/hook` } })).json as { connection: ChannelConnection; secret: string };
    const plain = await call('PATCH', `/api/channels/${hook.connection.id}`, { destination: { kind: 'webhook', url: `http://127.0.0.1:${port}/hook` } });
    expect(plain.status).toBe(200);
    const fresh = (plain.json as { secret?: string }).secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(hook.secret);
  });

  it('never opens a secret for a host it was not sealed for, even when the stored address is changed behind its back', async () => {
    const { call, api } = await dashboard();
    const access = sandbox.protectNtfyTopic('secret-topic');
    const { connection } = (await call('POST', '/api/channels', { name: 'Phone', destination: { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'secret-topic', ...access } })).json as { connection: ChannelConnection };
    const [row] = await api.store.channels.list();
    const settings = JSON.parse(row?.settings ?? '{}') as Record<string, string>;
    await api.store.channels.update({ ...(row as NonNullable<typeof row>), settings: JSON.stringify({ ...settings, server: 'https://attacker.example' }) });
    const res = await call('POST', `/api/channels/${connection.id}/test`);
    expect(res.json).toMatchObject({ outcome: 'refused', message: expect.stringContaining('cannot be opened') });
    expect(sandbox.requestsTo('ntfy')).toEqual([]);
  });

  it('binds a login sealed for its host alone (saved before origins were recorded) to the origin saved with it, at its first send', async () => {
    const { call, api } = await dashboard();
    const access = sandbox.protectNtfyTopic('legacy-2m');
    const { connection } = (await call('POST', '/api/channels', { name: 'Phone', destination: { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'legacy-2m', ...access } })).json as { connection: ChannelConnection };
    const vault = new CredentialVault(api.credentialsKey);
    const { host, origin } = new URL(sandbox.services.ntfy.url);
    const row = (await api.store.channels.get(connection.id)) as ChannelConnectionRow;
    const secret = vault.open(`channel:${row.id}:${origin}`, row.sealedSecret);
    await api.store.channels.update({ ...row, sealedSecret: vault.seal(`channel:${row.id}:${host}`, secret) });
    expect((await call('POST', `/api/channels/${connection.id}/test`)).json).toMatchObject({ outcome: 'sent' });
    expect(sandbox.ntfyMessages('legacy-2m')).toHaveLength(1);
    const bound = ((await api.store.channels.get(connection.id)) as ChannelConnectionRow).sealedSecret;
    expect(vault.open(`channel:${row.id}:${origin}`, bound)).toEqual(secret);
    expect(() => vault.open(`channel:${row.id}:${host}`, bound)).toThrow();
  });

  it("seals an ntfy topic and a webhook's URL (not in the store, nor a read token's export); ones saved in clear before are sealed at the next start and still send", async () => {
    const { call, as, api } = await dashboard();
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      received.push(req.url ?? '');
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/catch/8841/k9Zq?key=hook-key-55`;
      const added = [
        await call('POST', '/api/channels', { name: 'Phone', destination: { kind: 'ntfy', server: sandbox.services.ntfy.url, topic: 'founder-alerts-q7x2' } }),
        await call('POST', '/api/channels', { name: 'Hook', destination: { kind: 'webhook', url: hookUrl } }),
      ];
      expect(added.map((res) => res.status)).toEqual([201, 201]);
      // Saved before destinations were sealed: the topic and the URL in clear settings, the rest sealed for their origin.
      const vault = new CredentialVault(api.credentialsKey);
      const ntfyOrigin = new URL(sandbox.services.ntfy.url).origin;
      const legacy = (id: string, kind: ChannelConnectionRow['kind'], settings: object, origin: string, secret: Record<string, string>): ChannelConnectionRow => ({
        id,
        kind,
        name: id,
        minSeverity: 'warning',
        settings: JSON.stringify(settings),
        sealedSecret: vault.seal(`channel:${id}:${origin}`, secret),
        createdAt: Date.now(),
        lastSuccessAt: null,
        lastFailureAt: null,
        lastFailure: null,
        attentionAt: null,
        attention: null,
      });
      await api.store.channels.add(legacy('old-phone', 'ntfy', { server: sandbox.services.ntfy.url, topic: 'old-topic-m3v8', auth: 'none' }, ntfyOrigin, {}));
      await api.store.channels.add(legacy('old-hook', 'webhook', { url: `${hookUrl}&old=1` }, new URL(hookUrl).origin, { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` }));
      const secrets = ['founder-alerts-q7x2', 'old-topic-m3v8', '/catch/8841', 'hook-key-55'];
      // A token reading the export before the restart: the rows saved in clear leave it with only what the list shows.
      const early = await as(readToken)('GET', '/api/database/export');
      expect(early.status).toBe(200);
      for (const value of secrets) expect(early.text).not.toContain(value);

      await api.ctx.database?.reload();
      const stored = JSON.stringify(await api.store.channels.list());
      for (const value of secrets) expect(stored).not.toContain(value);
      const exported = await as(readToken)('GET', '/api/database/export');
      for (const value of secrets) expect(exported.text).not.toContain(value);
      // The list shows what it showed, and every connection still sends where it was saved for.
      const connections = ((await call('GET', '/api/channels')).json as { connections: ChannelConnection[] }).connections;
      const hookHost = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      expect(connections.map((c) => `${c.name}: ${c.target}`).sort()).toEqual([
        `Hook: ${hookHost}`,
        `Phone: ${new URL(sandbox.services.ntfy.url).host} · topic fou…`,
        `old-hook: ${hookHost}`,
        `old-phone: ${new URL(sandbox.services.ntfy.url).host} · topic old…`,
      ]);
      for (const connection of connections) expect({ name: connection.name, ...((await call('POST', `/api/channels/${connection.id}/test`)).json as object) }).toMatchObject({ name: connection.name, outcome: 'sent' });
      expect([sandbox.ntfyMessages('founder-alerts-q7x2').length, sandbox.ntfyMessages('old-topic-m3v8').length]).toEqual([1, 1]);
      expect(received.sort()).toEqual(['/catch/8841/k9Zq?key=hook-key-55', '/catch/8841/k9Zq?key=hook-key-55&old=1']);
    } finally {
      receiver.close();
    }
  });

  it('goes along with an export sealed, comes back with an import under the same credentials key, and is skipped (named) under another', async () => {
    const { call, api } = await dashboard();
    const bot = sandbox.createTelegramBot();
    await call('POST', '/api/channels', { name: 'Group', destination: { kind: 'telegram', botToken: bot.token, chatId: '-100200300' } });
    const exported = await call('GET', '/api/database/export');
    expect(exported.text).not.toContain(bot.token);
    expect((exported.json as { tables: { channel_connections: { name: string; sealedSecret: string }[] } }).tables.channel_connections).toMatchObject([
      { name: 'Group', sealedSecret: expect.stringMatching(/^v1\./) },
    ]);
    const same = await createTestApi({ scheduler: false, credentialsKey: api.credentialsKey });
    apis.push(same);
    const sameCall = restClient(() => same.caller);
    expect((await sameCall('POST', '/api/database/import', exported.json)).status).toBe(200);
    expect(((await sameCall('GET', '/api/channels')).json as { connections: ChannelConnection[] }).connections.map((c) => c.target)).toEqual(['Telegram chat -100200300']);
    const other = await dashboard();
    const imported = await other.call('POST', '/api/database/import', exported.json);
    expect((imported.json as { skipped: unknown[] }).skipped).toContainEqual({
      table: 'channel_connections',
      key: 'Group',
      reason: 'its secret is sealed with another credentials key: add the connection again',
    });
    expect(await other.list()).toEqual([]);
  });

  it('sends a test now and writes the answer on the connection: one a minute, a refusal marks it “needs attention”, a success clears it', async () => {
    const { call, nextMinute, list } = await dashboard();
    const hook = slackHook();
    const { connection } = (await call('POST', '/api/channels', { name: '#ops', destination: { kind: 'slack', webhookUrl: hook.pasted } })).json as { connection: ChannelConnection };
    const sent = await call('POST', `/api/channels/${connection.id}/test`);
    expect(sent.json).toMatchObject({ outcome: 'sent', status: 200, message: 'Slack accepted it', connection: { lastSuccessAt: expect.any(String), needsAttention: null } });
    expect(sandbox.slackMessages().map((message) => message.text)).toEqual(['Test from your founder dashboard']);
    const limited = await call('POST', `/api/channels/${connection.id}/test`);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '60']);

    sandbox.deleteSlackWebhook(hook.id);
    nextMinute();
    const refused = await call('POST', `/api/channels/${connection.id}/test`);
    expect(refused.json).toMatchObject({ outcome: 'gone', status: 404, message: 'Slack answered 404: no_service', connection: { needsAttention: 'Slack answered 404: no_service' } });
    expect((await list())[0]).toMatchObject({ needsAttention: 'Slack answered 404: no_service', lastFailure: 'Slack answered 404: no_service' });
    expect(JSON.stringify(refused.json)).not.toContain(hook.secret);
    // A new webhook, and a test that goes through: nothing needs attention any more.
    const fresh = slackHook();
    await call('PATCH', `/api/channels/${connection.id}`, { destination: { kind: 'slack', webhookUrl: fresh.pasted } });
    nextMinute();
    expect((await call('POST', `/api/channels/${connection.id}/test`)).json).toMatchObject({ outcome: 'sent', connection: { needsAttention: null } });
    expect((await call('POST', '/api/channels/nope/test')).status).toBe(404);
    expect((await call('DELETE', `/api/channels/${connection.id}`)).json).toEqual({ ok: true, removed: true });
    expect(await list()).toEqual([]);
  });
});
