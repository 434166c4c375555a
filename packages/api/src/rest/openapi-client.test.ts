import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.ts';

/**
 * What the README shows: `npx openapi-typescript` turns the document into types, and a client written against them
 * compiles (and one that misreads an answer does not), so a generated client works against the routes as described.
 */

const dir = mkdtempSync(join(tmpdir(), 'dash-openapi-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const document = buildOpenApiDocument();
  writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0])));
}, 30_000);

/** The type errors of each client file, compiled strictly against the generated types in one program. */
function typeErrors(...clients: string[]): string[][] {
  const files = clients.map((client, i) => {
    const file = join(dir, `client-${i}.ts`);
    writeFileSync(file, client);
    return file;
  });
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  });
  return files.map((file) => ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')));
}

const client = `
import type { paths } from './api.d.ts';

type Json<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer B } } } } ? B : never;

export type Revenue = Json<'/api/revenue', 'get', 200>;
export type Project = Json<'/api/projects', 'post', 201>;
export type NewProject = paths['/api/projects']['post']['requestBody']['content']['application/json'];
export type RevenueQuery = NonNullable<paths['/api/revenue']['get']['parameters']['query']>;
export type Failure = Json<'/api/projects', 'post', 409>;

export async function monthlyRevenue(base: string, token: string, query: RevenueQuery): Promise<number | null | undefined> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const response = await fetch(base + '/api/revenue?' + search.toString(), { headers: { authorization: 'Bearer ' + token } });
  const answer = (await response.json()) as Revenue;
  return 'configured' in answer ? undefined : answer.mrr;
}

export async function createProject(base: string, token: string, project: NewProject): Promise<Project | Failure> {
  const response = await fetch(base + '/api/projects', { method: 'POST', body: JSON.stringify(project), headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' } });
  return (await response.json()) as Project | Failure;
}

export const example: NewProject = { slug: 'my-app', name: 'My app' };
export const range: RevenueQuery = { range: '30d' };
export const code = (failure: Failure) => failure.error.code;
`;

describe('a client generated with openapi-typescript', () => {
  it('compiles against the document, and does not when it misreads it: an unknown range, a missing name, a field not answered', () => {
    const [right, ...wrong] = typeErrors(
      client,
      `${client}\nexport const badRange: RevenueQuery = { range: '2w' };`,
      `${client}\nexport const noName: NewProject = { slug: 'x' };`,
      `${client}\nexport const nope = (project: Project) => project.revenue;`,
    );
    expect(right).toEqual([]);
    expect(wrong.map((errors) => errors.length > 0)).toEqual([true, true, true]);
  });
});
