import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxTokens } from '../demo.ts';
import { shapeDifferences } from '../documented.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { betterstackDocumented as documented } from './documented.ts';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${sandbox.services.betterstack.baseUrl}${path}`, { headers: { authorization: `Bearer ${sandboxTokens.betterstack}` } });
  return { status: response.status, body: await response.json() };
}

const field = (body: unknown, key: string): unknown => (body as Record<string, unknown>)[key];

describe('the fake Better Stack answers in the shapes Better Stack’s documentation prints', () => {
  it('lists monitors with every documented attribute, and the documented pagination links', async () => {
    const { status, body } = await get('/v2/monitors?per_page=5');
    expect(status).toBe(200);
    expect(shapeDifferences(field(documented.listMonitors.body, 'data'), field(body, 'data'), '$.data')).toEqual([]);
    expect(shapeDifferences(field(documented.pagination.body, 'pagination'), field(body, 'pagination'), '$.pagination')).toEqual([]);
  });

  it('answers one monitor as documented, and an unknown one with the documented 404', async () => {
    const one = await get('/v2/monitors/2003');
    expect(one.status).toBe(200);
    expect(shapeDifferences(documented.getMonitor.body, one.body)).toEqual([]);
    expect(await get('/v2/monitors/123456789')).toEqual({ status: 404, body: documented.monitorNotFound.body });
  });

  it('answers response times per region with the documented timings', async () => {
    const { status, body } = await get('/v2/monitors/2003/response-times');
    expect(status).toBe(200);
    expect(shapeDifferences(documented.responseTimes.body, body)).toEqual([]);
  });

  it('lists incidents with the documented attributes, metadata and monitor relationship', async () => {
    const { status, body } = await get('/v3/incidents?resolved=false');
    expect(status).toBe(200);
    expect(shapeDifferences(field(documented.listIncidents.body, 'data'), field(body, 'data'), '$.data')).toEqual([]);
    expect(shapeDifferences(field(documented.pagination.body, 'pagination'), field(body, 'pagination'), '$.pagination')).toEqual([]);
  });
});

describe('shapeDifferences', () => {
  it('names a missing key, an undocumented key and a value of another type, and lets null stand for any type', () => {
    expect(shapeDifferences({ a: 1, b: { c: 'x' }, d: [{ e: true }], f: null }, { a: '1', b: {}, d: [{ e: true, g: 0 }], f: 'set' })).toEqual([
      '$.a: documented number, got string',
      '$.b.c: documented, missing',
      '$.d[0].g: not documented',
    ]);
    expect(shapeDifferences({ a: [{ b: 1 }] }, { a: [] })).toEqual([]);
  });
});
