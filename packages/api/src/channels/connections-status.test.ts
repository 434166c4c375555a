import type { ChannelConnection } from '@dash/contracts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ATTENTION_FOR_TOKENS } from '../router/auth.ts';
import { channelConnectionTests } from './connections-testing.ts';

// What a connection shows of its sends: its last failure, never the service's answer (a known service's own code
// kept), and the test message, one a minute, marking or clearing "needs attention".

const { sandbox, dashboard, slackHook } = channelConnectionTests();

describe('/api/channels', () => {
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
