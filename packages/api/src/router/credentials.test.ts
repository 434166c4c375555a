import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { refusedAddressIn } from '@dash/connectors';
import { createTestApi, restClient } from '../testing.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;
let api: Api;

beforeEach(async () => {
  api = await createTestApi();
});
afterEach(async () => {
  await api.dispose();
});

const call = restClient(() => api.caller);

const secret = 'phc_Sup3rSecretApiKeyValue0123456789';

describe('a credential base URL on a link-local or cloud-metadata address', () => {
  it.each([
    ['http://169.254.169.254', '169.254.169.254'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[fd00:ec2::254]', 'fd00:ec2::254'],
    ['https://[fe80::1]:8443', 'fe80::1'],
    ['http://[::ffff:169.254.169.254]', '::ffff:a9fe:a9fe'],
  ])('is refused on save with 400 and nothing is stored: %s', async (baseUrl, address) => {
    const res = await call('POST', '/api/credentials', { key: 'plausible', values: { apiKey: secret, baseUrl } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: { code: 'BAD_REQUEST', message: `Base URL: The address ${address} (link-local or cloud metadata) is not allowed as an upstream` },
    });
    expect(res.text).not.toContain(secret);
    expect((await call('GET', '/api/credentials')).json).toEqual({ connectedKeys: [] });
    expect(await api.store.credentials.keys()).toEqual([]);
  });

  it('is refused by the procedure too, and by a test with values', async () => {
    const baseUrl = 'http://169.254.169.254';
    await expect(api.caller.credentials.save({ key: 'github', values: { token: 't', baseUrl } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^Base URL: The address 169\.254\.169\.254 \(link-local or cloud metadata\)/),
    });
    expect(await api.store.credentials.keys()).toEqual([]);

    const tested = await call('POST', '/api/credentials/test', { key: 'plausible', values: { apiKey: secret, baseUrl: 'http://[fd00:ec2::254]/' } });
    expect(tested.status).toBe(400);
    expect(tested.json).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(/fd00:ec2::254/) } });
  });

  it('leaves a loopback, LAN or named base URL alone', async () => {
    for (const [key, baseUrl] of [
      ['plausible', 'http://127.0.0.1:9'],
      ['umami', 'http://10.0.0.7:3000'],
      ['github', 'http://[::1]:8080'],
      ['vercel', 'https://vercel.example.lan'],
    ] as const) {
      const values = key === 'github' || key === 'vercel' ? { token: 't', baseUrl } : { apiKey: 't', baseUrl };
      const res = await call('POST', '/api/credentials', { key, values });
      expect(res.status, baseUrl).toBe(200);
    }
    expect((await call('GET', '/api/credentials')).json).toEqual({ connectedKeys: ['github', 'plausible', 'umami', 'vercel'] });
  });

  it('stored before these checks existed, fails its test with the reason, not a retry loop or a hang', async () => {
    // Written past the router, as a credential saved by an older version would be.
    await api.store.credentials.putSealed('plausible', api.ctx.vault.seal('plausible', { apiKey: secret, baseUrl: 'http://169.254.169.254' }));
    const started = Date.now();
    const res = await call('POST', '/api/credentials/test', { key: 'plausible' });
    expect(res.json).toEqual({
      ok: false,
      error: 'Plausible was not called: The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream',
    });
    expect(res.text).not.toContain(secret);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('the connections’ default fetch', () => {
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reaches loopback and refuses the metadata address at connect time', async () => {
    const upstream = await api.ctx.data.connections.context('plausible', 'plausible', { values: { apiKey: 't' } });
    expect(await (await upstream.fetch(`${baseUrl}/ping`)).json()).toEqual({ ok: true });
    const error = await upstream.fetch('http://169.254.169.254/latest/meta-data/', { signal: AbortSignal.timeout(3_000) }).catch((e: unknown) => e);
    expect(refusedAddressIn(error)?.message).toBe('The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream');
  });
});

describe('a GitHub credential', () => {
  it('takes a personal access token, or an OAuth app’s client ID and secret together, and says which is missing otherwise', async () => {
    const issuesOf = async (values: Record<string, string>) => {
      const res = await call('POST', '/api/credentials', { key: 'github', values });
      return res.status === 200 ? 'saved' : (res.json.error as { issues: { path: (string | number)[]; message: string }[] }).issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    };
    expect(await issuesOf({})).toEqual(['values.token: A personal access token, or an OAuth app’s client ID and secret (then "Connect with GitHub"), is required']);
    expect(await issuesOf({ clientId: 'Ov23li123' })).toEqual([
      'values.token: A personal access token, or an OAuth app’s client ID and secret (then "Connect with GitHub"), is required',
      'values.clientSecret: The OAuth client secret goes with the client ID',
    ]);
    expect(await api.store.credentials.keys()).toEqual([]);
    expect(await issuesOf({ clientId: 'Ov23li123', clientSecret: 'shh' })).toBe('saved');
    expect(await issuesOf({ token: 'github_pat_x' })).toBe('saved');
    // A Google credential needs its OAuth client; the refresh token comes from "Connect with Google" or a paste.
    expect((await call('POST', '/api/credentials', { key: 'google', values: { clientId: 'x.apps.googleusercontent.com', clientSecret: 'GOCSPX-x' } })).status).toBe(200);
  });
});

describe('a stored credential and another base URL', () => {
  let server: Server;
  let attacker: string;
  const seen: (string | undefined)[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"no"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    attacker = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('cannot move the stored secret: a save or test naming another base URL needs the secret itself, and the old one is never sent there', async () => {
    seen.length = 0;
    expect((await call('POST', '/api/credentials', { key: 'plausible', values: { apiKey: secret } })).status).toBe(200);

    const moved = await call('POST', '/api/credentials', { key: 'plausible', values: { baseUrl: attacker } });
    expect(moved.status).toBe(400);
    expect(moved.json).toMatchObject({ error: { code: 'BAD_REQUEST', issues: [{ path: ['values', 'apiKey'], message: 'Stats API key is required' }] } });
    expect(await api.ctx.data.connections.stored('plausible')).toEqual({ apiKey: secret });

    const tested = await call('POST', '/api/credentials/test', { key: 'plausible', values: { baseUrl: attacker } });
    expect(tested.status).toBe(400);
    // With a secret typed in, the test sends that one only.
    const typed = await call('POST', '/api/credentials/test', { key: 'plausible', values: { apiKey: 'typed-for-the-test', baseUrl: attacker } });
    expect(typed.json).toMatchObject({ ok: false });
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['Bearer typed-for-the-test']));
  });

  it('saved again for another host with its secret, keeps nothing of the old one (OAuth tokens included)', async () => {
    seen.length = 0;
    const stored = { clientId: 'Ov23li123', clientSecret: 'the-old-client-secret', token: 'gho_the-old-oauth-token', refreshToken: 'ghr_the-old-refresh' };
    await api.store.credentials.putSealed('github', api.ctx.vault.seal('github', stored));
    expect((await call('POST', '/api/credentials', { key: 'github', values: { clientId: 'Ov23li999', clientSecret: 'a-new-secret', baseUrl: attacker } })).status).toBe(200);
    expect(await api.ctx.data.connections.stored('github')).toEqual({ clientId: 'Ov23li999', clientSecret: 'a-new-secret', baseUrl: attacker });
    await call('POST', '/api/credentials/test', { key: 'github' });
    expect(seen.join(' ')).not.toMatch(/the-old/);
  });
});
