import { describe, expect, it } from 'vitest';
import { channelConnectionTests, errorOf } from './connections-testing.ts';

// Adding connections through /api/channels: one of each kind, listed with nothing secret in the answer; bad input
// refused with a clear 400 and nothing stored.

const { sandbox, dashboard, slackHook } = channelConnectionTests();

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
});
