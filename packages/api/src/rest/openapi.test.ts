import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { demoSetup, demoUpstreamsOf, startSandbox, type Sandbox } from '@dash/sandbox';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi } from '../testing.ts';
import { OpenApiJudge } from './conformance.ts';
import { handleRest, restRoutes } from './index.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { outsideTheTable } from './openapi-outside.ts';
import { invalidRequests, validRequests, type GeneratedRequest } from './openapi-requests.ts';

type Json = Record<string, unknown>;
const document = buildOpenApiDocument();
const operations = (doc: Json) =>
  Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
const templateOf = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\.1\./);
  });

  it('describes every route of the table, and besides them only the /api routes SvelteKit serves itself', () => {
    const table = restRoutes.map((route) => `${route.method} ${templateOf(route.path)}`);
    const outside = outsideTheTable.map((extra) => `${extra.method} ${extra.path}`);
    expect(operations(document).sort()).toEqual([...table, ...outside].sort());

    // The SvelteKit routes under /api other than the table's catch-all and tRPC: each method a +server.ts exports, GET for a page.
    const apiDir = fileURLToPath(new URL('../../../../apps/web/src/routes/api', import.meta.url));
    const served: string[] = [];
    for (const file of readdirSync(apiDir, { recursive: true, encoding: 'utf8' })) {
      const path = `/api/${relative(apiDir, join(apiDir, file, '..'))}`.replace(/\[([^\]]+)\]/g, '{$1}');
      if (path.startsWith('/api/{...path}') || path.startsWith('/api/trpc')) continue;
      if (file.endsWith('+page.svelte')) served.push(`GET ${path}`);
      if (file.endsWith('+server.ts')) {
        for (const [, method] of readFileSync(join(apiDir, file), 'utf8').matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)) served.push(`${method} ${path}`);
      }
    }
    expect(served.sort()).toEqual(outside.sort());
  });

  it('gives every operation a unique id, a summary, a tag, its scope and its error answers', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const name = `${method} ${path}`;
        expect(typeof operation.operationId, name).toBe('string');
        expect(ids.has(operation.operationId as string), `${name}: duplicate id`).toBe(false);
        ids.add(operation.operationId as string);
        expect(operation.summary, name).toBeTruthy();
        expect(operation.tags, name).toHaveLength(1);
        expect(['read', 'write', 'owner', 'backup', 'webhook'], name).toContain(operation['x-scope']);
        expect(Object.keys(operation.responses as Json), name).toEqual(expect.arrayContaining(['401', '500']));
      }
    }
  });

  it('says which scope each route needs: read for GET, write for changes, the session only for owner actions, BACKUP_SECRET for the backup trigger', () => {
    const paths = document.paths as Record<string, Record<string, { security: Json[]; responses: Json }>>;
    expect(paths['/api/revenue']?.get?.security).toEqual([{ apiToken: ['read'] }, { session: [] }]);
    expect(paths['/api/projects']?.post?.security).toEqual([{ apiToken: ['write'] }, { session: [] }]);
    expect(paths['/api/tokens']?.post?.security).toEqual([{ session: [] }]);
    expect(paths['/api/backup']?.post?.security).toEqual([{ backupSecret: [] }]);
    expect(paths['/api/backup']?.get?.security).toEqual([{ apiToken: ['read'] }, { session: [] }]);
    expect(Object.keys(paths['/api/webhooks/{integration}']?.post?.security[0] ?? {})).toEqual(['codeHostSignature']);
  });

  it('describes the data routes with their cache headers and the configured: false answer', () => {
    const revenue = (document.paths as Record<string, Record<string, { responses: Record<string, Json> }>>)['/api/revenue']?.get;
    const ok = revenue?.responses['200'] as { headers: Json; content: Record<string, { schema: { anyOf: Json[] } }> };
    expect(Object.keys(ok.headers)).toEqual(expect.arrayContaining(['x-cache', 'x-cache-fetched-at', 'x-cache-stale-reason']));
    expect(ok.content['application/json']?.schema.anyOf).toContainEqual({ $ref: '#/components/schemas/NotConfigured' });
    expect(Object.keys(revenue?.responses ?? {})).toEqual(expect.arrayContaining(['400', '404', '502']));
  });
});

describe('the judge of answers', () => {
  const judge = new OpenApiJudge(document);
  const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' });

  it('passes an answer that is what the document says', () => {
    const body = JSON.stringify({ connectedKeys: ['github'] });
    expect(judge.check({ method: 'GET', path: '/api/credentials', status: 200, headers, body })).toEqual([]);
  });

  it('fails a route that drifted: an unlisted status, a field of another type, another content type, a bad header', () => {
    expect(judge.check({ method: 'GET', path: '/api/credentials', status: 409, headers, body: '{}' })[0]).toMatch(/answered 409, which its description does not list/);
    expect(judge.check({ method: 'GET', path: '/api/credentials', status: 200, headers, body: '{"connectedKeys":"github"}' })[0]).toMatch(/connectedKeys must be array/);
    const html = new Headers({ 'content-type': 'text/html' });
    expect(judge.check({ method: 'GET', path: '/api/credentials', status: 200, headers: html, body: '<p>' })[0]).toMatch(/content type "text\/html"/);
    const stale = new Headers({ 'content-type': 'application/json', 'x-cache': 'MAYBE' });
    const notConfigured = JSON.stringify({ configured: false, integration: 'revenue', message: 'not set up' });
    expect(judge.check({ method: 'GET', path: '/api/revenue', status: 200, headers: stale, body: notConfigured })[0]).toMatch(/the header x-cache/);
  });
});

/**
 * Requests written from the document for every operation of the table, valid and invalid, in-process against the REST
 * dispatcher over a test api whose outgoing fetch is refused (no upstream is ever reached): no answer is a 5xx, and
 * every answer is one the operation lists, in the shape it describes.
 */
describe('requests generated from the document', () => {
  let api: Awaited<ReturnType<typeof createTestApi>>;
  const judge = new OpenApiJudge(document);
  const refused: typeof fetch = () => Promise.reject(new TypeError('fetch failed: no network in this test'));

  beforeAll(async () => {
    api = await createTestApi({ fetch: refused, backup: { delays: { revenue: 0, storefront: 0, other: 0 } }, cliLocations: { home: '/nonexistent-home' } });
  });
  afterAll(async () => {
    await api?.dispose();
  });

  /**
   * Valid requests would reach a database at an address or file the generator picked (postgres.js and libsql open
   * their own sockets and files, not through the refused fetch): these get only invalid ones.
   */
  const reachesOut = new Set(['database.choose', 'database.test']);

  async function send(request: GeneratedRequest) {
    const init: RequestInit = { method: request.method, headers: request.body === undefined ? {} : { 'content-type': 'application/json' } };
    if (request.body !== undefined) init.body = request.body;
    const response = await handleRest(new Request(`http://dash.test${request.path}`, init), api.caller);
    const body = await response.text();
    return { status: response.status, problems: judge.check({ ...request, status: response.status, headers: response.headers, body }), body };
  }

  for (const route of restRoutes) {
    const template = templateOf(route.path);
    it(`${route.method} ${route.path}`, async () => {
      const kinds = reachesOut.has(route.procedure) ? [invalidRequests] : [validRequests, invalidRequests];
      for (const requests of kinds) {
        await fc.assert(
          fc.asyncProperty(requests(document, route.method, template), async (request) => {
            const { status, problems, body } = await send(request);
            expect(status, `${request.method} ${request.path} ${request.body ?? ''} → ${body}`).toBeLessThan(500);
            expect(problems, `${request.method} ${request.path} ${request.body ?? ''}`).toEqual([]);
          }),
          { numRuns: 12 },
        );
      }
    });
  }
});

/**
 * The same generated requests for every read (GET) of the table, against the demo's projects over the sandbox's
 * fake upstreams, which are healthy: any 5xx is ours (a caller's mistake answered as the upstream's failure, or a
 * crash), never theirs. Each answer is one the operation lists, in its shape.
 */
describe('requests generated from the document, with healthy upstreams', () => {
  let sandbox: Sandbox;
  let api: Awaited<ReturnType<typeof createTestApi>>;
  const judge = new OpenApiJudge(document);

  beforeAll(async () => {
    sandbox = await startSandbox();
    const upstreams = demoUpstreamsOf(sandbox);
    api = await createTestApi({ scheduler: false, demo: { setup: () => Promise.resolve(demoSetup(upstreams)) } });
    await api.caller.demo.start();
  }, 60_000);
  afterAll(async () => {
    await api?.dispose();
    await sandbox?.close();
  });

  // Reads that reach beyond the sandbox (a database the generator would pick, the CLI's files), or stream forever.
  const elsewhere = new Set(['notifications.stream', 'database.status']);
  for (const route of restRoutes.filter((candidate) => candidate.method === 'GET' && !elsewhere.has(candidate.procedure))) {
    const template = templateOf(route.path);
    it(`${route.method} ${route.path}`, async () => {
      for (const requests of [validRequests, invalidRequests]) {
        await fc.assert(
          fc.asyncProperty(requests(document, route.method, template), async (request) => {
            const response = await handleRest(new Request(`http://dash.test${request.path}`, { method: 'GET' }), api.caller);
            const body = await response.text();
            expect(response.status, `${request.path} → ${body}`).toBeLessThan(500);
            expect(judge.check({ ...request, status: response.status, headers: response.headers, body }), request.path).toEqual([]);
          }),
          { numRuns: 8 },
        );
      }
    });
  }
});
