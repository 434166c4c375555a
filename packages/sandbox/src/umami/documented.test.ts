import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxTokens } from '../demo.ts';
import { shapeDifferences } from '../documented.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { umamiDocumented as documented } from './documented.ts';
import { UMAMI_SHAPE_HEADER } from './index.ts';

const NOW = Date.UTC(2026, 4, 14, 15, 30);
const site = '/websites/3f1c2a9e-6d4b-4e1f-9a7c-2b5d8e0f1a34';
const window = `startAt=${NOW - 7 * 86_400_000}&endAt=${NOW}`;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => NOW });
});
afterAll(() => sandbox.close());

/** The fake's answer, as current Umami or (`old`) as a v2 server. */
async function get(path: string, shape: 'current' | 'old' = 'current'): Promise<unknown> {
  const headers: Record<string, string> = { 'x-umami-api-key': sandboxTokens.umami };
  if (shape === 'old') headers[UMAMI_SHAPE_HEADER] = 'old';
  const response = await fetch(`${sandbox.services.umami.baseUrl}${path}`, { headers });
  expect(response.status).toBe(200);
  return response.json();
}

describe('the fake Umami answers in the shapes Umami’s documentation prints', () => {
  it('lists websites with the documented fields, their creator and the paging counts', async () => {
    expect(shapeDifferences(documented.websites.body, await get('/websites?pageSize=1'))).toEqual([]);
  });

  it('answers stats flat with the previous period under `comparison`, as the current docs and Cloud’s changelog print', async () => {
    const stats = await get(`${site}/stats?${window}`);
    expect(shapeDifferences(documented.stats.body, stats)).toEqual([]);
    expect(shapeDifferences(documented.cloudStats.body, stats)).toEqual([]);
  });

  it('answers metrics, expanded metrics, the pageviews series and active visitors as documented', async () => {
    expect(shapeDifferences(documented.metrics.body, await get(`${site}/metrics?type=referrer&${window}`))).toEqual([]);
    expect(shapeDifferences(documented.metrics.body, await get(`${site}/metrics?type=path&${window}`))).toEqual([]);
    expect(shapeDifferences(documented.metricsExpanded.body, await get(`${site}/metrics/expanded?type=path&${window}`))).toEqual([]);
    expect(shapeDifferences(documented.pageviews.body, await get(`${site}/pageviews?unit=day&timezone=UTC&${window}`))).toEqual([]);
    expect(shapeDifferences(documented.active.body, await get(`${site}/active`))).toEqual([]);
  });

  it('answers as the v2 docs print when asked for the old shape: `{ value, prev }` stats, `url` metric rows, `{ x }` active', async () => {
    expect(shapeDifferences(documented.v2Stats.body, await get(`${site}/stats?${window}`, 'old'))).toEqual([]);
    expect(shapeDifferences(documented.v2Metrics.body, await get(`${site}/metrics?type=url&${window}`, 'old'))).toEqual([]);
    expect(shapeDifferences(documented.v2Pageviews.body, await get(`${site}/pageviews?unit=day&${window}`, 'old'))).toEqual([]);
    expect(shapeDifferences(documented.v2Active.body, await get(`${site}/active`, 'old'))).toEqual([]);
  });

  it('writes bucket times the way each version’s docs print them', async () => {
    const current = (await get(`${site}/pageviews?unit=day&timezone=UTC&${window}`)) as { sessions: { x: string }[] };
    const old = (await get(`${site}/pageviews?unit=day&${window}`, 'old')) as { sessions: { x: string }[] };
    expect(current.sessions[0]?.x).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(old.sessions[0]?.x).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });
});
