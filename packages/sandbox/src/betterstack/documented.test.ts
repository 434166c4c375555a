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

  it('answers a monitor’s availability summary as documented, counting each day from the `from` day to the end of the `to` day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const one = await get(`/v2/monitors/2003/sla?from=${today}&to=${today}`);
    expect(one.status).toBe(200);
    expect(shapeDifferences(documented.monitorSla.body, one.body)).toEqual([]);
    expect(shapeDifferences(documented.monitorSla.body, (await get('/v2/monitors/2003/sla')).body)).toEqual([]);
    // The submission worker has been down for the last 37 minutes: today (what of it has passed) is not all up.
    const worker = (await get(`/v2/monitors/2004/sla?from=${today}&to=${today}`)).body as { data: { attributes: { availability: number; total_downtime: number } } };
    expect(worker.data.attributes.availability).toBeLessThan(100);
    expect(worker.data.attributes.total_downtime).toBeGreaterThan(0);
    expect(worker.data.attributes.total_downtime).toBeLessThanOrEqual(37 * 60);
  });

  it('keeps more than a year of outages: short ones every few weeks, availability a little under 100 %', async () => {
    const from = new Date(Date.now() - 400 * 86_400_000).toISOString().slice(0, 10);
    const today = new Date().toISOString().slice(0, 10);
    const { body } = await get(`/v2/monitors/2001/sla?from=${from}&to=${today}`);
    const { attributes } = (body as { data: { attributes: { availability: number; number_of_incidents: number; total_downtime: number } } }).data;
    expect(attributes.number_of_incidents).toBeGreaterThan(8);
    expect(attributes.availability).toBeGreaterThan(99.5);
    expect(attributes.availability).toBeLessThan(100);
    expect(attributes.total_downtime).toBeGreaterThan(0);
  });

  it('refuses a range it cannot read with the documented 400: an end before the start, a start ahead, a date it cannot parse', async () => {
    const ahead = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    for (const query of ['from=2026-03-02&to=2026-03-01', `from=${ahead}&to=${ahead}`, 'from=yesterday&to=2026-03-01']) {
      expect(await get(`/v2/monitors/2003/sla?${query}`)).toEqual({ status: 400, body: documented.slaInvalidRange.body });
    }
    expect(await get('/v2/monitors/123456789/sla')).toEqual({ status: 404, body: documented.monitorNotFound.body });
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
