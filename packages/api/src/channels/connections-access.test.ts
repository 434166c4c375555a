import type { ChannelConnection } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { PASSWORD, readToken, session, writeToken } from '../testing/identities.ts';
import { channelConnectionTests, errorOf } from './connections-testing.ts';

// Who may change the connections: API tokens refused (a read one may list), a signed-in session asked for the password
// to add or to change where one sends.

const { sandbox, dashboard, slackHook } = channelConnectionTests();

describe('/api/channels', () => {
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
});
