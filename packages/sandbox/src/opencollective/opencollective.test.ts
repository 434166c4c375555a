import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxTokens } from '../demo.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { holdToDescriptions } from '../contract/index.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

async function post(query: string, variables: Record<string, unknown> = {}, token: string | null = sandboxTokens.opencollective) {
  const response = await fetch(`${sandbox.services.opencollective.baseUrl}/graphql/v2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { 'personal-token': token }) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe('Open Collective fake', () => {
  it('answers an unknown slug as Open Collective does: 200, account null and the model’s error', async () => {
    const { status, body } = await post('query A($slug: String!) {\n  account(slug: $slug) { id }\n}', { slug: 'Nope' });
    expect(status).toBe(200);
    expect(body).toEqual({
      errors: [{ message: 'No collective found with slug Nope', locations: [{ line: 2, column: 3 }], path: ['account'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      data: { account: null },
    });
    expect((await post('{ account(slug: "nope", throwIfMissing: false) { id } }')).body).toEqual({ data: { account: null } });
  });

  it('filters members by role, pages them by limit and offset, and counts them all', async () => {
    const query = 'query($o: Int) { account(slug: "tideline-oss") { __typename members(role: [BACKER], limit: 10, offset: $o) { totalCount nodes { role tier { name } totalDonations { valueInCents currency } } } } }';
    const first = (await post(query, { o: 0 })).body as { data: { account: { members: { totalCount: number; nodes: { role: string }[] } } } };
    const { totalCount, nodes } = first.data.account.members;
    expect(nodes).toHaveLength(10);
    expect(totalCount).toBeGreaterThanOrEqual(60);
    expect(totalCount).toBeLessThanOrEqual(120);
    expect(new Set(nodes.map((n) => n.role))).toEqual(new Set(['BACKER']));
    const all = (await post('{ account(slug: "tideline-oss") { __typename members(limit: 500) { totalCount } } }')).body as { data: { account: { members: { totalCount: number } } } };
    expect(all.data.account.members.totalCount).toBeGreaterThan(totalCount);
  });

  it('refuses a wrong token with the 401 body that echoes it, serves anonymous requests, and sends rate headers', async () => {
    const wrong = await post('{ me { id } }', {}, 'bogus');
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 401, type: 'unauthorized', message: 'Invalid Personal Token (Api Key): bogus' } } });
    expect((await post('{ me { id } }', {}, null)).body).toEqual({ data: { me: null } });
    const ok = await post('{ me { id } }');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('rejects a field the schema lacks with a 400 validation error', async () => {
    const { status, body } = await observe.offDescription(() => post('{ account(slug: "tideline-oss") { stats { totalAmountSpentNope { valueInCents } } } }'));
    expect(status).toBe(400);
    expect(body).toEqual({ errors: [{ message: 'Cannot query field "totalAmountSpentNope" on type "AccountStats".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
  });

  it('draws the balance over time as Open Collective does: a running balance per bucket, none for a quiet range, a start off a bucket refused', async () => {
    const query = 'query($from: DateTime, $to: DateTime, $unit: TimeUnit) { account(slug: "tideline-oss") { __typename stats { balance { valueInCents } balanceTimeSeries(dateFrom: $from, dateTo: $to, timeUnit: $unit) { timeUnit nodes { date amount { valueInCents currency } } } } } }';
    type Answer = { data: { account: { stats: { balance: { valueInCents: number }; balanceTimeSeries: { timeUnit: string; nodes: { date: string; amount: { valueInCents: number } }[] } } } | null } };
    const day = (daysAgo: number) => `${new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`;
    const daily = ((await post(query, { from: day(60), to: day(-1), unit: 'DAY' })).body as Answer).data.account?.stats;
    expect(daily?.balanceTimeSeries.nodes.map((n) => n.date)).toEqual(Array.from({ length: 61 }, (_, i) => day(60 - i)));
    // The last node is today's balance so far: the stats' balance.
    expect(daily?.balanceTimeSeries.nodes.at(-1)?.amount.valueInCents).toBe(daily?.balance.valueInCents);
    // Last month by the month: one node, the balance at the end of its last day.
    const thisMonth = new Date(`${day(0).slice(0, 7)}-01T00:00:00.000Z`);
    const lastMonth = new Date(Date.UTC(thisMonth.getUTCFullYear(), thisMonth.getUTCMonth() - 1, 1));
    const months = ((await post(query, { from: lastMonth.toISOString(), to: thisMonth.toISOString(), unit: 'MONTH' })).body as Answer).data.account?.stats.balanceTimeSeries;
    const lastDay = new Date(thisMonth.getTime() - 86_400_000).toISOString();
    expect(months?.nodes.map((n) => n.date)).toEqual([lastMonth.toISOString()]);
    expect(months?.nodes[0]?.amount.valueInCents).toBe(daily?.balanceTimeSeries.nodes.find((n) => n.date === lastDay)?.amount.valueInCents);
    const quiet = ((await post(query, { from: day(1100), to: day(1090), unit: 'DAY' })).body as Answer).data.account?.stats.balanceTimeSeries;
    expect(quiet?.nodes).toEqual([]);
    const unaligned = await post(query, { from: new Date(Date.now() - 5 * 86_400_000).toISOString(), unit: 'DAY' });
    expect(unaligned.body).toMatchObject({ errors: [{ message: 'Time series data not aligned', path: ['account'] }], data: { account: null } });
  });
});
