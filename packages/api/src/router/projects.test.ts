import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

const sentry = (host?: string) => ({ error_tracker: { org: 'acme', project: 'web', ...(host === undefined ? {} : { host }) } });

describe('a self-hosted Sentry host on a link-local or cloud-metadata address', () => {
  it('is refused when a project is created, and no project is made', async () => {
    const res = await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry('http://169.254.169.254') });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: { code: 'BAD_REQUEST', message: 'Sentry host: The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream' },
    });
    expect((await call('GET', '/api/projects')).json).toEqual({ projects: [] });
  });

  it('is refused when a project is changed, and the project stays as it was', async () => {
    expect((await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry('https://sentry.example.lan') })).status).toBe(201);
    const res = await call('PATCH', '/api/projects/app', { name: 'Renamed', integrations: sentry('http://[fd00:ec2::254]') });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^Sentry host: The address fd00:ec2::254 /) } });
    expect((await call('GET', '/api/projects/app')).json).toMatchObject({ name: 'App', integrations: sentry('https://sentry.example.lan') });
  });

  it('leaves loopback, LAN and sentry.io alone', async () => {
    for (const [slug, host] of [
      ['loop', 'http://127.0.0.1:9000'],
      ['lan', 'http://192.168.1.20'],
      ['cloud', undefined],
    ] as const) {
      expect((await call('POST', '/api/projects', { slug, name: slug, integrations: sentry(host) })).status, slug).toBe(201);
    }
    expect((await call('PATCH', '/api/projects/lan', { integrations: sentry('http://[::1]:9000') })).status).toBe(200);
  });
});

describe('a Sentry host other than the one the stored token was saved for', () => {
  const TOKEN = 'sntrys_the-stored-sentry-token-0123456789';

  /** A Sentry look-alike that keeps every Authorization it is sent. */
  async function listener() {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const step of cleanups.splice(0)) await step();
  });

  it('is refused with 400 when a project is created or changed, and the token goes nowhere', async () => {
    const attacker = await listener();
    expect((await call('POST', '/api/credentials', { key: 'sentry', values: { authToken: TOKEN, orgSlug: 'acme' } })).status).toBe(200);
    const created = await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry(attacker.base) });
    expect(created.status).toBe(400);
    expect(created.json).toEqual({
      error: {
        code: 'BAD_REQUEST',
        message: `Sentry host: Enter the Sentry token again for the new host ${attacker.base}: the token under "sentry" is only sent to https://sentry.io, where it was saved. Save it with the Base URL ${attacker.base}/api/0 in Settings → Connections → Sentry (the same key, or another one named in credentialKey).`,
      },
    });
    expect((await call('GET', '/api/projects')).json).toEqual({ projects: [] });

    expect((await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry() })).status).toBe(201);
    const patched = await call('PATCH', '/api/projects/app', { integrations: sentry(attacker.base) });
    expect([patched.status, (patched.json as { error: { message: string } }).error.message]).toEqual([400, expect.stringMatching(/^Sentry host: Enter the Sentry token again/)]);
    expect((await call('GET', '/api/projects/app')).json).toMatchObject({ integrations: sentry() });
    // sentry.io itself is the token's host.
    expect((await call('PATCH', '/api/projects/app', { integrations: sentry('https://sentry.io') })).status).toBe(200);
    expect(attacker.seen).toEqual([]);
  });

  it('is used once the token is saved again for it, under the key the project names', async () => {
    const selfHosted = await listener();
    expect((await call('POST', '/api/credentials', { key: 'sentry', values: { authToken: TOKEN, orgSlug: 'acme' } })).status).toBe(200);
    const next = 'sntrys_the-self-hosted-token-0123456789';
    const saved = await call('POST', '/api/credentials', { key: 'sentry:self', values: { authToken: next, orgSlug: 'acme', baseUrl: `${selfHosted.base}/api/0` } });
    expect(saved.status).toBe(200);
    const integrations = { error_tracker: { org: 'acme', project: 'web', host: selfHosted.base, credentialKey: 'sentry:self' } };
    expect((await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations })).status).toBe(201);
    await call('GET', '/api/errortracker?project=app');
    expect(selfHosted.seen.length).toBeGreaterThan(0);
    expect(new Set(selfHosted.seen)).toEqual(new Set([`Bearer ${next}`]));
  });

  it('set before the token was saved, it is refused at every call: the token is not sent', async () => {
    const attacker = await listener();
    expect((await call('POST', '/api/projects', { slug: 'app', name: 'App', integrations: sentry(attacker.base) })).status).toBe(201);
    expect((await call('POST', '/api/credentials', { key: 'sentry', values: { authToken: TOKEN, orgSlug: 'acme' } })).status).toBe(200);
    const res = await call('GET', '/api/errortracker?project=app');
    expect(res.status).toBe(502);
    expect(res.text).toContain('Enter the Sentry token again for the new host');
    expect(res.text).not.toContain(TOKEN);
    expect(attacker.seen).toEqual([]);
  });
});
