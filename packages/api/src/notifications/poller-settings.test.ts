import { existsSync, readFileSync } from 'node:fs';
import { POLL_SECRET } from '@dash/relay/testing';
import { describe, expect, it } from 'vitest';
import { errorOf, pollerTests, post, relayEnv, signed } from './poller-testing.ts';

// The relay URL and the poll secret saved in Settings beside the environment's: which wins, what removing one does,
// a secret never shown or stored in clear, and a URL at the cloud metadata address refused.

const { startRelay, dashboard } = pollerTests();

describe('the relay URL and poll secret in settings', () => {
  it('relayUrl in settings overrides WEBHOOK_RELAY_URL without a restart, and null gives it back', async () => {
    const fromEnv = await startRelay();
    const fromSettings = await startRelay();
    await post(fromEnv, [signed.unmatched(1)]);
    await post(fromSettings, [signed.unmatched(2)]);
    const dash = await dashboard({ relay: relayEnv(fromEnv.url(), POLL_SECRET) });

    // Another host gets RELAY_POLL_SECRET only when it is entered again with the URL.
    expect((await dash.call('POST', '/api/settings', { relayUrl: fromSettings.url() })).status).toBe(400);
    await dash.caller.relay.saveSecret({ secret: POLL_SECRET, url: fromSettings.url() });
    expect((await dash.call('GET', '/api/settings')).json).toMatchObject({ relayUrl: fromSettings.url() });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ configured: true, url: fromSettings.url(), urlSource: 'settings', secretSource: 'settings' });
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    expect((await dash.inbox()).map((n) => n.url)).toEqual(['https://github.com/acme/app/pull/2']);
    expect(fromEnv.polls()).toEqual([]);

    expect((await dash.call('POST', '/api/settings', { relayUrl: null })).status).toBe(200);
    // The environment's URL with the environment's secret: the saved one is for the other host.
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ url: fromEnv.url(), urlSource: 'env', secretSource: 'env' });
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    expect((await dash.inbox()).map((n) => n.url)).toEqual(['https://github.com/acme/app/pull/1', 'https://github.com/acme/app/pull/2']);
  });

  it('a saved poll secret overrides RELAY_POLL_SECRET, and no response, log line or database page shows it', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    const dash = await dashboard({ relay: relayEnv(relay.url(), 'an-old-rotated-poll-secret') });
    expect((await dash.call('POST', '/api/relay/poll')).status).toBe(502);

    const saved = await dash.caller.relay.saveSecret({ secret: POLL_SECRET });
    const responses = [JSON.stringify(saved)];
    const poll = await dash.call('POST', '/api/relay/poll');
    expect(poll.json).toMatchObject({ configured: true, eventCount: 1 });
    const status = await dash.call('GET', '/api/relay/status');
    expect(status.json).toMatchObject({ configured: true, secretSource: 'settings', poller: { lastError: null } });
    const settings = await dash.call('GET', '/api/settings');
    responses.push(poll.text, status.text, settings.text, JSON.stringify(await dash.caller.relay.status()), JSON.stringify(await dash.caller.settings.get()));
    for (const text of responses) expect(text).not.toContain(POLL_SECRET);
    expect(dash.log.lines.join('\n')).not.toContain(POLL_SECRET);
    // Sealed at rest: the SQLite file (and its write-ahead log) never hold it in clear.
    for (const file of [dash.dbFile, `${dash.dbFile}-wal`].filter((f) => existsSync(f))) {
      expect(readFileSync(file).includes(Buffer.from(POLL_SECRET)), file).toBe(false);
    }

    // A wrong saved secret wins over the right one in the environment, too.
    const other = await dashboard({ relay: relayEnv(relay.url(), POLL_SECRET) });
    await other.caller.relay.saveSecret({ secret: 'a-saved-but-wrong-poll-secret' });
    const refused = await other.call('POST', '/api/relay/poll');
    expect([refused.status, errorOf(refused).message]).toEqual([502, expect.stringContaining('poll secret')]);
    expect(refused.text).not.toContain('a-saved-but-wrong-poll-secret');
  });

  it('removing the URL or the secret stops polling: { configured: false }, and the relay is not asked', async () => {
    const relay = await startRelay();
    await post(relay, [signed.unmatched()]);
    const dash = await dashboard();
    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    await dash.caller.relay.saveSecret({ secret: POLL_SECRET });
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 1 });
    expect(relay.polls()).toHaveLength(1);

    expect((await dash.call('POST', '/api/settings', { relayUrl: null })).status).toBe(200);
    expect((await dash.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ configured: false, url: null, urlSource: null, secretSource: 'settings' });

    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    await dash.caller.relay.saveSecret({ secret: null });
    expect((await dash.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ configured: false, secretSource: null });
    expect(relay.polls()).toHaveLength(1);
  });

  it('refuses a relayUrl at the cloud metadata address with 400 and keeps the one it had', async () => {
    const relay = await startRelay();
    const dash = await dashboard();
    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url() })).status).toBe(200);
    const res = await dash.call('POST', '/api/settings', { relayUrl: 'http://169.254.169.254/' });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^relayUrl: The address 169\.254\.169\.254 /) });
    expect((await dash.call('GET', '/api/settings')).json).toMatchObject({ relayUrl: relay.url() });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ url: relay.url() });
  });
});
