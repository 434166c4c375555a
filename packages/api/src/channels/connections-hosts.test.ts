import type { ChannelConnection } from '@dash/contracts';
import type { ChannelConnectionRow } from '@dash/db';
import { describe, expect, it } from 'vitest';
import { CredentialVault } from '../credentials/vault.ts';
import { channelConnectionTests, errorOf } from './connections-testing.ts';

// A connection's secret kept to its host: a new host needs the login again or gets a new secret, plain http only on
// this machine, and a secret never opened for a host it was not sealed for.

const { sandbox, dashboard, slackHook } = channelConnectionTests();

describe('/api/channels', () => {
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
});
