import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NARROW_REFRESH_TOKEN, REVOKED_REFRESH_TOKEN_PREFIX, sandboxGoogle, startSandbox, type Sandbox } from '@dash/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApi, restClient } from '../testing.ts';
import type { CliLocations } from './cli-import.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;

let sandbox: Sandbox;
let home: string;
const apis: Api[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.reset();
  home = mkdtempSync(join(tmpdir(), 'dash-cli-home-'));
});
afterEach(async () => {
  for (const api of apis.splice(0)) await api.dispose();
  rmSync(home, { recursive: true, force: true });
});

/** A file of `json` at `path` under the temporary home. */
function file(path: string, json: unknown) {
  const full = join(home, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, typeof json === 'string' ? json : JSON.stringify(json));
  return full;
}

const userCredentials = (refreshToken: string = sandboxGoogle.refreshToken) => ({
  account: 'founder@example.com',
  client_id: sandboxGoogle.clientId,
  client_secret: sandboxGoogle.clientSecret,
  refresh_token: refreshToken,
  type: 'authorized_user',
  universe_domain: 'googleapis.com',
});

/** A local dashboard whose Google connection points at the fake Google with stale values, and a project on Search Console. */
async function dashboard(locations: Partial<CliLocations> = {}, mode: 'local' | 'remote' = 'local') {
  const api = await createTestApi({
    cliLocations: { home, googleBaseUrl: sandbox.services.google.baseUrl, ...locations },
    ...(mode === 'remote' ? { access: { mode, origin: 'https://dash.example.com' } } : {}),
  });
  apis.push(api);
  const stale = { clientId: 'old.apps.googleusercontent.com', clientSecret: 'old-secret', refreshToken: '1//old', baseUrl: sandbox.services.google.baseUrl };
  await api.store.credentials.putSealed('google', api.ctx.vault.seal('google', stale));
  await api.caller.projects.create({ slug: 'formfox', name: 'Formfox', integrations: { seo: { siteUrl: 'sc-domain:formfox.io' } } });
  const stored = async () => api.ctx.vault.open('google', (await api.store.credentials.getSealed('google')) ?? '');
  return { api, rest: restClient(() => api.caller), stored, stale };
}

const cliImport = (rest: ReturnType<typeof restClient>) => rest('POST', '/api/auth/cli-import');

describe('POST /api/auth/cli-import', () => {
  it("imports gcloud's application-default login, proves it with one refresh, and the SEO widget reads with it", async () => {
    const path = file('gcloud/application_default_credentials.json', userCredentials());
    const { api, rest, stored } = await dashboard({ CLOUDSDK_CONFIG: join(home, 'gcloud') });
    const answer = await cliImport(rest);
    expect([answer.status, answer.json]).toEqual([200, { imported: true, source: path, account: 'founder@example.com' }]);
    expect(await stored()).toEqual({ clientId: sandboxGoogle.clientId, clientSecret: sandboxGoogle.clientSecret, refreshToken: sandboxGoogle.refreshToken, baseUrl: sandbox.services.google.baseUrl });
    expect(sandbox.requestsTo('google', '/token').map((request) => request.status)).toEqual([200]);
    const seo = await api.caller.data.seo({ project: 'formfox', refresh: true });
    expect(seo.meta).toMatchObject({ cache: 'MISS' });
    // The secrets never come back in an answer.
    expect(answer.text).not.toContain(sandboxGoogle.clientSecret);
    expect(answer.text).not.toContain(sandboxGoogle.refreshToken);
  });

  it("looks in the Workspace CLI's files first: its credentials-file variable, then its plaintext credentials.json", async () => {
    file('gcloud/application_default_credentials.json', userCredentials(NARROW_REFRESH_TOKEN));
    const gws = file('gws/credentials.json', { ...userCredentials(), account: undefined });
    const first = await dashboard({ CLOUDSDK_CONFIG: join(home, 'gcloud'), GOOGLE_WORKSPACE_CLI_CONFIG_DIR: join(home, 'gws') });
    expect((await cliImport(first.rest)).json).toEqual({ imported: true, source: gws, account: null });

    const named = file('exports/gws.json', userCredentials());
    const second = await dashboard({ GOOGLE_WORKSPACE_CLI_CREDENTIALS_FILE: named, GOOGLE_WORKSPACE_CLI_CONFIG_DIR: join(home, 'gws') });
    expect((await cliImport(second.rest)).json).toMatchObject({ source: named });
  });

  it('takes GOOGLE_APPLICATION_CREDENTIALS when it names a user’s file, and refuses a service account key, storing nothing', async () => {
    const user = file('adc/user.json', userCredentials());
    const ok = await dashboard({ GOOGLE_APPLICATION_CREDENTIALS: user });
    expect((await cliImport(ok.rest)).json).toMatchObject({ imported: true, source: user });

    const key = file('adc/service-account.json', { type: 'service_account', project_id: 'p', private_key_id: 'k', private_key: '-----BEGIN PRIVATE KEY-----', client_email: 'robot@p.iam.gserviceaccount.com' });
    const refused = await dashboard({ GOOGLE_APPLICATION_CREDENTIALS: key });
    const answer = await cliImport(refused.rest);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: { message: expect.stringContaining('holds "service_account" credentials, not a user\'s (authorized_user)') as string } });
    expect(answer.text).not.toContain('BEGIN PRIVATE KEY');
    expect(await refused.stored()).toEqual(refused.stale);
  });

  it('answers 404 naming every place looked in and the command that creates a file', async () => {
    const { rest, stored, stale } = await dashboard({ CLOUDSDK_CONFIG: join(home, 'gcloud') });
    const answer = await cliImport(rest);
    expect(answer.status).toBe(404);
    const { message } = (answer.json as { error: { message: string } }).error;
    expect(message).toContain(join(home, '.config', 'gws', 'credentials.json'));
    expect(message).toContain(join(home, 'gcloud', 'application_default_credentials.json'));
    expect(message).toContain('gcloud auth application-default login --client-id-file=client_secret.json --scopes=https://www.googleapis.com/auth/webmasters.readonly');
    expect(await stored()).toEqual(stale);
  });

  it('refuses, storing nothing, a token without Search Console’s scope, a revoked one, and a file that is not JSON', async () => {
    file('gcloud/application_default_credentials.json', userCredentials(NARROW_REFRESH_TOKEN));
    const narrow = await dashboard({ CLOUDSDK_CONFIG: join(home, 'gcloud') });
    const answer = await cliImport(narrow.rest);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: { message: expect.stringContaining('works but does not reach Search Console (it was granted https://www.googleapis.com/auth/cloud-platform') as string } });
    expect(await narrow.stored()).toEqual(narrow.stale);

    file('revoked/application_default_credentials.json', userCredentials(`${REVOKED_REFRESH_TOKEN_PREFIX}-cli`));
    const revoked = await dashboard({ CLOUDSDK_CONFIG: join(home, 'revoked') });
    const refused = await cliImport(revoked.rest);
    expect([refused.status, (refused.json as { error: { message: string } }).error.message]).toEqual([400, expect.stringContaining('invalid_grant') as string]);
    expect(await revoked.stored()).toEqual(revoked.stale);

    file('broken/application_default_credentials.json', '{"type": "authorized_user",');
    const broken = await dashboard({ CLOUDSDK_CONFIG: join(home, 'broken') });
    expect((await cliImport(broken.rest)).json).toMatchObject({ error: { message: expect.stringContaining('is not JSON') as string } });
  });

  it('is only offered by a local dashboard', async () => {
    file('gcloud/application_default_credentials.json', userCredentials());
    const { rest, stored, stale } = await dashboard({ CLOUDSDK_CONFIG: join(home, 'gcloud') }, 'remote');
    const answer = await cliImport(rest);
    expect(answer.status).toBe(403);
    expect(await stored()).toEqual(stale);
  });

  it('sends the login on this computer to Google only, never to a base URL an API client saved with the Google credential', async () => {
    const seen: string[] = [];
    const listener = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
      req.on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}'));
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    try {
      file('gcloud/application_default_credentials.json', userCredentials());
      const { rest, api, stored } = await dashboard({ CLOUDSDK_CONFIG: join(home, 'gcloud') });
      const elsewhere = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      await api.store.credentials.putSealed('google', api.ctx.vault.seal('google', { clientId: 'x.apps.googleusercontent.com', clientSecret: 'mine', baseUrl: elsewhere }));
      const answer = await cliImport(rest);
      expect(answer.status).toBe(200);
      expect(seen).toEqual([]);
      expect(await stored()).toMatchObject({ refreshToken: sandboxGoogle.refreshToken, baseUrl: sandbox.services.google.baseUrl });
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
