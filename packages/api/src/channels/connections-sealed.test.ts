import type { ChannelConnection } from '@dash/contracts';
import type { ChannelConnectionRow } from '@dash/db';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CredentialVault } from '../credentials/vault.ts';
import { createTestApi, restClient } from '../testing.ts';
import { readToken } from '../testing/identities.ts';
import { channelConnectionTests } from './connections-testing.ts';

// Destinations sealed at rest: an ntfy topic and a webhook's URL kept out of the store and a read token's export (old
// clear rows sealed at start), and an export's connections back after an import under the same credentials key.

const { sandbox, apis, dashboard } = channelConnectionTests();

describe('/api/channels', () => {
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
});
