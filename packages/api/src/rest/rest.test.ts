import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '@dash/contracts';
import { appRouter } from '../root.ts';
import { createTestApi, restClient } from '../testing.ts';
import { handleRest, MAX_BODY_BYTES, restRoutes } from './index.ts';

type Api = Awaited<ReturnType<typeof createTestApi>>;
let api: Api;

beforeEach(async () => {
  api = await createTestApi();
});
afterEach(async () => {
  await api.dispose();
});

const call = restClient(() => api.caller);

const project = (slug: string, extra: Record<string, unknown> = {}) => ({ slug, name: slug.toUpperCase(), ...extra });

describe('route table', () => {
  it('has no duplicate method and path', () => {
    const seen = restRoutes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('names only procedures that exist, and every procedure declares an output schema', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { output?: unknown } }>;
    for (const route of restRoutes) expect(procedures[route.procedure], route.procedure).toBeDefined();
    for (const [path, procedure] of Object.entries(procedures)) expect(procedure._def.output, path).toBeDefined();
  });
});

describe('errors', () => {
  it('answers an unknown path with 404 JSON', async () => {
    const res = await call('GET', '/api/nope');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: { code: 'NOT_FOUND', message: 'No route for GET /api/nope' } });
  });

  it('answers a wrong method with 405 and the allowed ones', async () => {
    const res = await call('PUT', '/api/settings', {});
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(res.json).toMatchObject({ error: { code: 'METHOD_NOT_SUPPORTED' } });
  });

  it('rejects malformed JSON with 400 and changes nothing', async () => {
    const res = await call('POST', '/api/settings', '{"projectOrder": [');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(/not valid JSON/) } });
    expect((await call('GET', '/api/settings')).json).toEqual(defaultSettings);
  });

  it('rejects wrong types with 400 and the zod issues', async () => {
    const res = await call('POST', '/api/settings', { widgetLayout: { slots: { revenue: 42 } } });
    expect(res.status).toBe(400);
    const error = res.json.error as { issues: { path: unknown[] }[]; message: string };
    expect(error.issues[0]?.path).toEqual(['widgetLayout', 'slots', 'revenue']);
    expect(error.message).toMatch(/^Invalid input: widgetLayout\.slots\.revenue: /);
  });

  it('rejects a body over the limit with 413, with or without a Content-Length', async () => {
    const big = JSON.stringify({ projectOrder: ['x'.repeat(MAX_BODY_BYTES)] });
    expect((await call('POST', '/api/settings', big)).status).toBe(413);

    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        if (sent > MAX_BODY_BYTES * 8) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const request = new Request('http://dash.test/api/settings', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    const res = await handleRest(request, api.caller);
    expect(res.status).toBe(413);
    // It stopped reading soon after the limit instead of taking the whole body in.
    expect(sent).toBeLessThan(MAX_BODY_BYTES * 2);
  });

  it('rejects a body that is not JSON with 415', async () => {
    const res = await call('POST', '/api/settings', 'projectOrder=a', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });
});

describe('settings', () => {
  it('returns the defaults on a fresh store', async () => {
    const res = await call('GET', '/api/settings');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      projectOrder: [],
      exchangeRates: { CAD: 1.38 },
      widgetLayout: {
        slots: { revenue: 'revenue', shipping: 'shipping', ideas: 'ideas', analytics: 'analytics', seo: 'seo', detail: 'errortracker' },
        more: [],
        configs: { revenue: { showOC: false } },
      },
      relayUrl: null,
    });
  });

  it('changes only the fields it includes; slots and configs merge key by key, null clears', async () => {
    expect((await call('POST', '/api/settings', { widgetLayout: { slots: { detail: 'health', seo: null } } })).json).toEqual({ ok: true });
    await call('POST', '/api/settings', { widgetLayout: { configs: { revenue: { showOC: true } } } });
    const { json } = await call('GET', '/api/settings');
    expect(json.widgetLayout).toEqual({
      slots: { revenue: 'revenue', shipping: 'shipping', ideas: 'ideas', analytics: 'analytics', detail: 'health' },
      more: [],
      configs: { revenue: { showOC: true } },
    });
  });

  it('merges exchange rates by currency; null brings a default back, USD and bad codes are refused', async () => {
    expect((await call('POST', '/api/settings', { exchangeRates: { CAD: 1.41, EUR: 0.93 } })).status).toBe(200);
    expect((await call('GET', '/api/settings')).json).toMatchObject({ exchangeRates: { CAD: 1.41, EUR: 0.93 } });
    expect((await call('POST', '/api/settings', { exchangeRates: { CAD: null, EUR: null } })).status).toBe(200);
    expect((await call('GET', '/api/settings')).json).toMatchObject({ exchangeRates: { CAD: 1.38 } });
    expect(((await call('GET', '/api/settings')).json as { exchangeRates: object }).exchangeRates).toEqual({ CAD: 1.38 });
    for (const bad of [{ USD: 2 }, { cad: 1.4 }, { CAD: 0 }, { CAD: 'x' }]) {
      expect((await call('POST', '/api/settings', { exchangeRates: bad })).status, JSON.stringify(bad)).toBe(400);
    }
    expect(((await call('GET', '/api/settings')).json as { exchangeRates: object }).exchangeRates).toEqual({ CAD: 1.38 });
  });

  it('keeps both of two concurrent POSTs that touch different fields', async () => {
    await call('POST', '/api/projects', project('alpha'));
    await call('POST', '/api/projects', project('beta'));
    const results = await Promise.all([
      call('POST', '/api/settings', { projectOrder: ['beta', 'alpha'] }),
      call('POST', '/api/settings', { widgetLayout: { slots: { detail: 'funding' } } }),
      call('POST', '/api/settings', { widgetLayout: { configs: { revenue: { showOC: true } } } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const { json } = await call('GET', '/api/settings');
    expect(json.projectOrder).toEqual(['beta', 'alpha']);
    expect(json.widgetLayout).toMatchObject({ slots: { detail: 'funding' }, configs: { revenue: { showOC: true } } });
  });

  it('rejects a projectOrder naming an unknown project and keeps the order', async () => {
    await call('POST', '/api/projects', project('alpha'));
    const res = await call('POST', '/api/settings', { projectOrder: ['ghost', 'alpha'] });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { message: expect.stringContaining('ghost') } });
    expect((await call('GET', '/api/settings')).json.projectOrder).toEqual(['alpha']);
  });

  it('rejects an unknown slot name', async () => {
    const res = await call('POST', '/api/settings', { widgetLayout: { slots: { sidebar: 'revenue' } } });
    expect(res.status).toBe(400);
  });
});

describe('the widgets of a view', () => {
  /** Every integration but the deploy host: nine widgets' worth, more than the six slots hold. */
  const everything = {
    revenue: { provider: 'stripe' },
    code_host: { repos: ['acme/app'] },
    issue_tracker: { teamIds: ['team-1'] },
    storefront: { appId: '1588431207' },
    analytics: { platforms: [{ platform: 'web', provider: 'plausible', siteId: 'acme.app' }] },
    seo: { siteUrl: 'https://acme.app/' },
    error_tracker: { org: 'acme', project: 'app' },
    uptime_monitor: { monitorIds: ['2001'] },
    funding: { slug: 'acme-oss' },
  };
  const widgets = async (query = '') => (await call('GET', `/api/widgets${query}`)).json;

  beforeEach(async () => {
    await call('POST', '/api/projects', project('full', { integrations: everything }));
    await call('POST', '/api/projects', project('bare'));
    await call('POST', '/api/projects', project('watched', { integrations: { uptime_monitor: { monitorIds: ['2002'] } } }));
  });

  it('answers the six slots, then every other widget the project set up, in the integrations’ order', async () => {
    const { slots } = defaultSettings.widgetLayout;
    const full = await call('GET', '/api/widgets?project=full');
    expect(full.status).toBe(200);
    expect(full.json).toEqual({ slots, more: ['storefront', 'health', 'funding'] });
    // Nothing set up: the slots say what to add; no widget joins the row.
    expect(await widgets('?project=bare')).toEqual({ slots, more: [] });
    expect(await widgets('?project=watched')).toEqual({ slots, more: ['health'] });
    // All projects: whatever any project set up.
    expect(await widgets()).toEqual({ slots, more: ['storefront', 'health', 'funding'] });
    expect(await widgets('?project=')).toEqual({ slots, more: ['storefront', 'health', 'funding'] });
  });

  it('keeps a saved row order, leaves out what a slot holds, and goes back to the default order with null', async () => {
    expect((await call('POST', '/api/settings', { widgetLayout: { more: ['funding', 'health'] } })).json).toEqual({ ok: true });
    expect(((await call('GET', '/api/settings')).json as { widgetLayout: { more: unknown } }).widgetLayout.more).toEqual(['funding', 'health']);
    // The widgets the saved order leaves out follow it, in the default order.
    expect(await widgets('?project=full')).toMatchObject({ more: ['funding', 'health', 'storefront'] });

    // A widget put in a slot leaves the row (the one it replaced joins it), and comes back to its place in the
    // order when the slot lets it go.
    await call('POST', '/api/settings', { widgetLayout: { slots: { seo: 'health' } } });
    expect(await widgets('?project=full')).toMatchObject({ slots: { seo: 'health' }, more: ['funding', 'seo', 'storefront'] });
    expect(await widgets('?project=watched')).toMatchObject({ more: [] });
    await call('POST', '/api/settings', { widgetLayout: { slots: { seo: 'seo', detail: null } } });
    expect(await widgets('?project=full')).toMatchObject({ more: ['funding', 'health', 'storefront', 'errortracker'] });

    await call('POST', '/api/settings', { widgetLayout: { more: null } });
    expect(await widgets('?project=full')).toMatchObject({ more: ['storefront', 'errortracker', 'health', 'funding'] });
  });

  it('refuses a bad row order with a 400 naming the field, and changes nothing of the layout', async () => {
    await call('POST', '/api/settings', { widgetLayout: { more: ['health'] } });
    const before = (await call('GET', '/api/settings')).json;
    for (const [more, path, message] of [
      [['health', 'funding', 'health'], ['widgetLayout', 'more'], /^Invalid input: widgetLayout\.more: more lists a widget twice/],
      [['health', 'sidebar'], ['widgetLayout', 'more', 1], /^Invalid input: widgetLayout\.more\.1: /],
      ['health', ['widgetLayout', 'more'], /^Invalid input: widgetLayout\.more: /],
    ] as const) {
      // Sent with a good slot change: that is not kept either.
      const res = await call('POST', '/api/settings', { widgetLayout: { slots: { detail: 'funding' }, more } });
      expect(res.status, JSON.stringify(more)).toBe(400);
      const error = res.json.error as { code: string; issues: { path: unknown[] }[]; message: string };
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.issues[0]?.path).toEqual(path);
      expect(error.message).toMatch(message);
    }
    expect((await call('GET', '/api/settings')).json).toEqual(before);
  });

  it('answers 404 naming a project that does not exist', async () => {
    const res = await call('GET', '/api/widgets?project=ghost');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: { code: 'NOT_FOUND', message: 'No project with the slug "ghost"' } });
  });
});

describe('projects', () => {
  it('creates with 201, appends to projectOrder, and refuses a taken slug with 409', async () => {
    const created = await call('POST', '/api/projects', project('alpha', { color: '#4f46e5' }));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ slug: 'alpha', name: 'ALPHA', color: '#4f46e5', integrations: {} });
    await call('POST', '/api/projects', project('beta'));
    expect((await call('GET', '/api/settings')).json.projectOrder).toEqual(['alpha', 'beta']);

    const dup = await call('POST', '/api/projects', { slug: 'alpha', name: 'Other' });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ error: { code: 'CONFLICT' } });
    expect((await call('GET', '/api/projects/alpha')).json).toMatchObject({ name: 'ALPHA' });
  });

  it('rejects a slug that is not lowercase and url-safe', async () => {
    const res = await call('POST', '/api/projects', { slug: 'Bad Slug!', name: 'x' });
    expect(res.status).toBe(400);
    const error = res.json.error as { issues: { path: unknown[]; message: string }[] };
    expect(error.issues).toEqual([{ path: ['slug'], message: expect.stringMatching(/lowercase/) }]);
    expect((await call('GET', '/api/projects')).json).toEqual({ projects: [] });
  });

  it('validates integration settings', async () => {
    const res = await call('POST', '/api/projects', project('alpha', { integrations: { code_host: { repos: ['not a repo'] } } }));
    expect(res.status).toBe(400);
    const error = res.json.error as { issues: { path: unknown[] }[] };
    expect(error.issues[0]?.path).toEqual(['integrations', 'code_host', 'repos', 0]);
  });

  it('patches integrations one by one and removes one with null', async () => {
    await call('POST', '/api/projects', project('alpha', {
      integrations: { code_host: { repos: ['acme/app'] }, funding: { slug: 'acme' } },
    }));
    const patched = await call('PATCH', '/api/projects/alpha', {
      name: 'Alpha app',
      integrations: { funding: null, error_tracker: { org: 'acme', project: 'app' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({
      name: 'Alpha app',
      integrations: { code_host: { repos: ['acme/app'] }, error_tracker: { org: 'acme', project: 'app' } },
    });
    expect((patched.json.integrations as Record<string, unknown>).funding).toBeUndefined();
  });

  it('answers 404 for an unknown project on get, patch and delete', async () => {
    expect((await call('GET', '/api/projects/ghost')).status).toBe(404);
    expect((await call('PATCH', '/api/projects/ghost', { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', '/api/projects/ghost')).status).toBe(404);
  });

  it('deleting a project removes it from projectOrder', async () => {
    for (const slug of ['alpha', 'beta', 'gamma']) await call('POST', '/api/projects', project(slug));
    expect((await call('DELETE', '/api/projects/beta')).json).toEqual({ ok: true });
    expect((await call('GET', '/api/settings')).json.projectOrder).toEqual(['alpha', 'gamma']);
    expect(((await call('GET', '/api/projects')).json.projects as { slug: string }[]).map((p) => p.slug)).toEqual(['alpha', 'gamma']);
  });
});

describe('credentials', () => {
  const secret = 'ghp_Sup3rSecretTokenValue0123456789';

  it('stores encrypted values, lists the key, and never returns, logs or writes a value in clear', async () => {
    const saved = await call('POST', '/api/credentials', { key: 'github', values: { token: secret } });
    expect(saved.json).toEqual({ ok: true, key: 'github' });
    const listed = await call('GET', '/api/credentials');
    expect(listed.json).toEqual({ connectedKeys: ['github'] });
    const tested = await call('POST', '/api/credentials/test', { key: 'github' });

    for (const res of [saved, listed, tested]) expect(res.text).not.toContain(secret);
    expect(api.log.lines.join('\n')).not.toContain(secret);
    await api.dispose({ keepFiles: true });
    // The database file and its WAL, byte for byte.
    for (const name of readdirSync(dirname(api.dbFile))) {
      expect(readFileSync(join(dirname(api.dbFile), name)).includes(secret), name).toBe(false);
    }
    api = await createTestApi({ dir: api.dir, credentialsKey: api.credentialsKey });
  });

  it('answers DELETE with removed true, then false', async () => {
    await call('POST', '/api/credentials', { key: 'vercel', values: { token: 't' } });
    expect((await call('DELETE', '/api/credentials', { key: 'vercel' })).json).toEqual({ ok: true, removed: true });
    expect((await call('DELETE', '/api/credentials', { key: 'vercel' })).json).toEqual({ ok: true, removed: false });
    expect((await call('GET', '/api/credentials')).json).toEqual({ connectedKeys: [] });
  });

  it('requires the fields the service needs and refuses unknown ones', async () => {
    const res = await call('POST', '/api/credentials', { key: 'appstoreconnect', values: { keyId: 'K', colour: 'x' } });
    expect(res.status).toBe(400);
    const paths = (res.json.error as { issues: { path: string[] }[] }).issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(['values.issuerId', 'values.privateKey', 'values.colour']);
    expect((await call('GET', '/api/credentials')).json).toEqual({ connectedKeys: [] });
  });

  it('accepts a labelled key for a second account and rejects an unknown service', async () => {
    expect((await call('POST', '/api/credentials', { key: 'github:work', values: { token: 't' } })).status).toBe(200);
    expect((await call('POST', '/api/credentials', { key: 'myspace', values: { token: 't' } })).status).toBe(400);
  });

  it('answers a test whose service cannot be reached with ok false and the reason, not the key', async () => {
    // Port 9 (discard) is closed here: the connector's lightest call fails to connect.
    const res = await call('POST', '/api/credentials/test', { key: 'plausible', values: { apiKey: secret, baseUrl: 'http://127.0.0.1:9' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: false, error: 'Plausible could not be reached' });
    expect(res.text).not.toContain(secret);
  });

  it('gives a clear error, not garbage, when CREDENTIALS_KEY changed', async () => {
    await call('POST', '/api/credentials', { key: 'github', values: { token: secret } });
    await api.dispose({ keepFiles: true });
    api = await createTestApi({ dir: api.dir });
    expect(api.log.lines.join('\n')).toMatch(/cannot be decrypted with the current CREDENTIALS_KEY/);

    const saved = await call('POST', '/api/credentials', { key: 'vercel', values: { token: 't' } });
    expect(saved.status).toBe(500);
    expect(saved.json).toMatchObject({ error: { message: expect.stringMatching(/CREDENTIALS_KEY/) } });
    expect((await call('GET', '/api/credentials')).json).toEqual({ connectedKeys: ['github'] });
  });
});
