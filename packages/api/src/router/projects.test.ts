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
