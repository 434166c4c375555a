import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { receiveSettingsFrom } from '@dash/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { RelayEnvironment } from '../index.ts';
import { createTestApi, restClient } from '../testing.ts';

// A stored secret goes only to the host it was saved with: the relay poll secret (saved, or RELAY_POLL_SECRET) and
// its relay URL, over the procedures and REST routes as a client calls them, against listeners on real sockets.

const SAVED = 'saved-poll-secret-0123456789abcdef0123456789';
const ENV = 'env-poll-secret-0123456789abcdef0123456789ab';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A relay look-alike: answers health and one empty page of events, and keeps every Authorization it is sent. */
async function listener() {
  const seen: { path: string; authorization: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (req.url?.startsWith('/api/health')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    res.writeHead(200, { 'content-type': 'application/json', 'x-relay-timestamp': '1700000000000' }).end('[]');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${base}/api`, base, seen, secretsSeen: () => seen.map((s) => s.authorization).filter(Boolean) };
}

const relayEnv = (url?: string, secret?: string): RelayEnvironment => ({ url, secret, receive: receiveSettingsFrom({}) });

async function dashboard(relay?: RelayEnvironment) {
  const api = await createTestApi({ scheduler: false, ...(relay ? { relay } : {}) });
  cleanup.push(() => api.dispose());
  return { ...api, call: restClient(() => api.caller) };
}

const errorOf = (res: { json: unknown }) => (res.json as { error: { code: string; message: string } }).error;

describe('the saved relay poll secret', () => {
  it('is never sent to a relay URL on another host: settings and the test both answer 400 and the listener sees nothing', async () => {
    const relay = await listener();
    const attacker = await listener();
    const dash = await dashboard();
    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url })).status).toBe(200);
    await dash.caller.relay.saveSecret({ secret: SAVED });

    const moved = await dash.call('POST', '/api/settings', { relayUrl: attacker.url });
    expect(moved.status).toBe(400);
    expect(errorOf(moved)).toEqual({
      code: 'BAD_REQUEST',
      message: `relayUrl: Enter the poll secret again for the new host ${attacker.base}: the saved poll secret is only sent to ${relay.base}. Save the URL and its secret together in Settings → Relay.`,
    });
    expect((await dash.call('GET', '/api/settings')).json).toMatchObject({ relayUrl: relay.url });

    await expect(dash.caller.relay.test({ url: attacker.url })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: `secret: Enter the poll secret to test ${attacker.base}: the saved poll secret is only sent to ${relay.base}.`,
    });
    // Another path on the attacker's host is still another host than the secret's.
    await expect(dash.caller.relay.test({ url: `${attacker.base}/api/t/acme` })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(attacker.seen).toEqual([]);

    // The poller and an explicit poll still go to the secret's own relay, with it.
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true, eventCount: 0 });
    expect(relay.secretsSeen()).toEqual([`Bearer ${SAVED}`]);
    expect(attacker.seen).toEqual([]);
  });

  it('moves to another host when it is entered again with the URL, and a test of another URL uses only the secret given with it', async () => {
    const relay = await listener();
    const other = await listener();
    const dash = await dashboard();
    await dash.caller.relay.saveSecret({ secret: SAVED, url: relay.url });
    expect((await dash.call('GET', '/api/settings')).json).toMatchObject({ relayUrl: relay.url });

    // Same host, another path (a tenant): the saved secret goes with it.
    expect(await dash.caller.relay.test({ url: `${relay.base}/api/t/acme` })).toEqual({ ok: true, eventCount: 0 });
    expect(relay.secretsSeen()).toEqual([`Bearer ${SAVED}`]);

    expect(await dash.caller.relay.test({ url: other.url, secret: 'typed-for-the-other-relay-0123' })).toEqual({ ok: true, eventCount: 0 });
    expect(other.secretsSeen()).toEqual(['Bearer typed-for-the-other-relay-0123']);

    const next = 'the-other-relays-poll-secret-0123456789';
    expect(await dash.caller.relay.saveSecret({ secret: next, url: other.url })).toEqual({ ok: true });
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ configured: true, url: other.url, urlSource: 'settings', secretSource: 'settings', secretNote: null });
    expect((await dash.call('POST', '/api/relay/poll')).status).toBe(200);
    expect(other.secretsSeen()).toEqual(['Bearer typed-for-the-other-relay-0123', `Bearer ${next}`]);
    expect(other.secretsSeen().join()).not.toContain(SAVED);
    // And the old one is gone: back on the first relay's host, nothing is stored for it.
    await expect(dash.caller.relay.test({ url: relay.url })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('saved with no relay URL in effect, it goes nowhere until entered again with one', async () => {
    const relay = await listener();
    const dash = await dashboard();
    await dash.caller.relay.saveSecret({ secret: SAVED });
    const res = await dash.call('POST', '/api/settings', { relayUrl: relay.url });
    expect([res.status, errorOf(res).message]).toEqual([400, expect.stringMatching(/^relayUrl: Enter the poll secret again for the new host /)]);
    await dash.caller.relay.saveSecret({ secret: SAVED, url: relay.url });
    expect((await dash.call('POST', '/api/relay/poll')).json).toMatchObject({ configured: true });
    expect(relay.secretsSeen()).toEqual([`Bearer ${SAVED}`]);
  });

  it('refuses a url at the cloud metadata address with the secret, and stores neither', async () => {
    const dash = await dashboard();
    await expect(dash.caller.relay.saveSecret({ secret: SAVED, url: 'http://169.254.169.254/api' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^url: The address 169\.254\.169\.254 /),
    });
    expect(await dash.ctx.notifications.secrets.pollSecret()).toBeUndefined();
    expect((await dash.call('GET', '/api/settings')).json).toMatchObject({ relayUrl: null });
  });
});

describe('RELAY_POLL_SECRET', () => {
  it('goes only to WEBHOOK_RELAY_URL: another relay URL in settings needs the secret entered with it', async () => {
    const relay = await listener();
    const attacker = await listener();
    const dash = await dashboard(relayEnv(relay.url, ENV));

    const moved = await dash.call('POST', '/api/settings', { relayUrl: attacker.url });
    expect([moved.status, errorOf(moved).message]).toEqual([400, expect.stringContaining(`RELAY_POLL_SECRET is only sent to ${relay.base}`)]);
    await expect(dash.caller.relay.test({ url: attacker.url })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^secret: /) });
    expect(await dash.caller.relay.test({})).toEqual({ ok: true, eventCount: 0 });
    expect(relay.secretsSeen()).toEqual([`Bearer ${ENV}`]);
    expect(attacker.seen).toEqual([]);
  });

  it('with no WEBHOOK_RELAY_URL, is sent to no relay URL saved in settings', async () => {
    const attacker = await listener();
    const dash = await dashboard(relayEnv(undefined, ENV));
    const res = await dash.call('POST', '/api/settings', { relayUrl: attacker.url });
    expect([res.status, errorOf(res).message]).toEqual([400, expect.stringContaining('RELAY_POLL_SECRET is only sent to the relay URL it is saved with')]);
    expect((await dash.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });
    expect(attacker.seen).toEqual([]);
  });
});

describe('secrets stored before they were bound to a host', () => {
  it('a saved poll secret without a host is bound to the relay URL in effect at the first read, and only ever sent there', async () => {
    const relay = await listener();
    const attacker = await listener();
    const dash = await dashboard();
    expect((await dash.call('POST', '/api/settings', { relayUrl: relay.url })).status).toBe(200);
    // As an earlier version sealed it: the secret alone.
    await dash.store.meta.put('relayPollSecret', dash.ctx.vault.seal('relayPollSecret', { secret: SAVED }));

    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({ configured: true, secretSource: 'settings' });
    expect(dash.ctx.vault.open('relayPollSecret', (await dash.store.meta.get('relayPollSecret')) as string)).toEqual({ secret: SAVED, url: relay.url });
    expect((await dash.call('POST', '/api/settings', { relayUrl: attacker.url })).status).toBe(400);
    expect((await dash.call('POST', '/api/relay/poll')).status).toBe(200);
    expect(relay.secretsSeen()).toEqual([`Bearer ${SAVED}`]);
    expect(attacker.seen).toEqual([]);
  });

  it('RELAY_POLL_SECRET polling a relay URL from settings keeps that one relay, and no other', async () => {
    const relay = await listener();
    const attacker = await listener();
    // An earlier version: the URL saved in settings, the secret in the environment, nothing bound yet.
    const first = await dashboard();
    await first.store.settings.update({ relayUrl: relay.url });
    const dir = first.dir;
    const dash = await createTestApi({ dir, scheduler: false, relay: relayEnv(undefined, ENV) });
    cleanup.push(() => dash.dispose({ keepFiles: true }));
    const call = restClient(() => dash.caller);

    expect((await call('GET', '/api/relay/status')).json).toMatchObject({ configured: true, url: relay.url, secretSource: 'env', secretNote: null });
    expect((await call('POST', '/api/settings', { relayUrl: attacker.url })).status).toBe(400);
    expect((await call('POST', '/api/relay/poll')).status).toBe(200);
    expect(relay.secretsSeen()).toEqual([`Bearer ${ENV}`]);
    expect(attacker.seen).toEqual([]);
  });

  it('says in the status when the stored secret is for another host than the relay URL in effect', async () => {
    const relay = await listener();
    const envRelay = await listener();
    const dash = await dashboard(relayEnv(envRelay.url));
    await dash.caller.relay.saveSecret({ secret: SAVED, url: relay.url });
    // Forgetting the settings URL brings WEBHOOK_RELAY_URL back: the saved secret is not for it.
    expect((await dash.call('POST', '/api/settings', { relayUrl: null })).status).toBe(200);
    expect((await dash.call('GET', '/api/relay/status')).json).toMatchObject({
      configured: false,
      url: envRelay.url,
      secretSource: null,
      secretNote: `The saved poll secret is only sent to ${relay.base}: enter the poll secret again for ${envRelay.base}.`,
    });
    expect((await dash.call('POST', '/api/relay/poll')).json).toEqual({ configured: false });
    expect(envRelay.seen).toEqual([]);
  });
});
