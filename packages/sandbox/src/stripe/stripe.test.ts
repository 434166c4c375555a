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

const get = async (path: string, token: string = sandboxTokens.stripe) => {
  const response = await fetch(`${sandbox.services.stripe.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
};

interface Txn {
  id: string;
  amount: number;
  fee: number;
  net: number;
  created: number;
  type: string;
}

describe('Stripe fake', () => {
  it('masks a rejected key like Stripe: prefix and last four kept', async () => {
    const { status, body } = await get('/balance', 'sk_test_51SomebodyElsesKeyABCD1234');
    expect(status).toBe(401);
    expect(body).toEqual({ error: { message: 'Invalid API Key provided: sk_test_**********************1234', type: 'invalid_request_error' } });
  });

  it('keeps a year of balance transactions in integer cents, fees and net consistent, newest first', async () => {
    const { body } = await get('/balance_transactions?limit=100');
    const data = body.data as Txn[];
    expect(body).toMatchObject({ object: 'list', url: '/v1/balance_transactions', has_more: true });
    expect(data).toHaveLength(100);
    for (const t of data) {
      expect(Number.isInteger(t.amount) && Number.isInteger(t.fee) && Number.isInteger(t.net)).toBe(true);
      expect(t.net).toBe(t.amount - t.fee);
    }
    expect(data.map((t) => t.created)).toEqual([...data.map((t) => t.created)].sort((a, b) => b - a));
    const charges = data.filter((t) => t.type === 'charge');
    expect(charges.every((t) => t.fee === Math.round(t.amount * 0.029) + 30)).toBe(true);
  });

  it('filters by created[gte]/created[lt], pages after the last id, and refuses a limit over 100', async () => {
    const from = Math.floor(Date.now() / 1000) - 10 * 86_400;
    const first = await get(`/balance_transactions?created%5Bgte%5D=${from}&limit=30`);
    const page = first.body.data as Txn[];
    expect(page.every((t) => t.created >= from)).toBe(true);
    const next = await get(`/balance_transactions?created%5Bgte%5D=${from}&limit=30&starting_after=${page.at(-1)?.id}`);
    const second = next.body.data as Txn[];
    expect(second.length).toBeGreaterThan(0);
    expect(second.some((t) => page.some((p) => p.id === t.id))).toBe(false);
    const tooMany = await get('/balance_transactions?limit=101');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: { type: 'invalid_request_error', param: 'limit' } });
  });

  it('has the refunds, payouts and Billing fees a real ledger has', async () => {
    const types = new Set<string>();
    for (const type of ['refund', 'payout', 'stripe_fee']) {
      const { body } = await get(`/balance_transactions?type=${type}&limit=100`);
      for (const t of body.data as Txn[]) {
        types.add(t.type);
        expect(t.amount).toBeLessThan(0);
      }
    }
    expect([...types].sort()).toEqual(['payout', 'refund', 'stripe_fee']);
  });

  it('lists 312 active subscriptions, monthly and yearly', async () => {
    const seen: { items: { data: { price: { recurring: { interval: string } } }[] } }[] = [];
    let after = '';
    for (;;) {
      const { body } = await get(`/subscriptions?status=active&limit=100${after ? `&starting_after=${after}` : ''}`);
      const data = body.data as ((typeof seen)[number] & { id: string })[];
      seen.push(...data);
      if (!body.has_more) break;
      after = data.at(-1)?.id ?? '';
    }
    expect(seen).toHaveLength(312);
    expect(new Set(seen.map((s) => s.items.data[0]?.price.recurring.interval))).toEqual(new Set(['month', 'year']));
  });
});
