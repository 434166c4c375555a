import { fundingSchema } from '@dash/contracts';
import { descriptionOf, GraphQLDescription, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { describedContext } from '../testing.ts';
import { opencollective } from './index.ts';

/** What the described upstream puts in every String field. */
const GENERATED_TEXT = 'string';

function context(baseUrl: string, fetch: typeof globalThis.fetch = globalThis.fetch): ConnectorContext {
  return { ...describedContext({ baseUrl }, { personalToken: 'oc_contract_token' }), fetch };
}

type Json = Record<string, unknown>;
const record = (value: unknown): Json => value as Json;

describe.skipIf(!descriptionOf('opencollective'))('Open Collective connector against answers made from its own schema', () => {
  describe.each(['minimal', 'maximal', 'full'] as const satisfies readonly SampleMode[])('%s answers', (mode) => {
    const upstream = useDescribedUpstream('opencollective', mode);

    it('accepts the token when `me` is an account, and says to add one when `me` is null (nullable in the schema)', async () => {
      const checked = opencollective.test(context(upstream.baseUrl));
      if (mode === 'minimal') await expect(checked).rejects.toMatchObject({ kind: 'auth', message: expect.stringContaining('add a personal token') as string });
      else await expect(checked).resolves.toBeUndefined();
      expect(upstream.requests).toEqual([{ request: 'POST /graphql/v2', status: 200 }]);
    });

    it('reads the generated collective, or says there is none when `account` is null (nullable in the schema)', async () => {
      const read = opencollective.funding(context(upstream.baseUrl), { slug: 'generated' });
      if (mode === 'minimal') {
        await expect(read).rejects.toMatchObject({ kind: 'not_found', message: expect.stringContaining('"generated"') as string });
      } else {
        const funding = await read;
        expect(fundingSchema.parse(funding)).toEqual(funding);
        expect(insaneValues(funding)).toEqual([]);
        // Amounts are Floats of cents in the schema: 1.5 cents is two cents in major units, not a crash.
        expect(funding.stats).toEqual({ balance: 0.02, totalRaised: 0.02, yearlyBudget: 0.02, backerCount: 1 });
        expect(funding.transactions).toEqual([expect.objectContaining({ description: GENERATED_TEXT, amount: 0.02, createdAt: '2026-01-01T00:00:00.000Z' })]);
        expect(funding.members).toEqual([{ name: GENERATED_TEXT, role: 'BACKER', tier: GENERATED_TEXT, totalDonated: 0.02, imageUrl: GENERATED_TEXT }]);
      }
      expect(upstream.requests).toEqual([{ request: 'POST /graphql/v2', status: 200 }]);
    });
  });

  describe.each(['minimal', 'maximal', 'full'] as const satisfies readonly SampleMode[])('%s answers to the daily balance', (mode) => {
    const upstream = useDescribedUpstream('opencollective', mode);

    it('sends a query the schema accepts, and reads the generated answer: no collective (null), or a series by another unit than the day it asked', async () => {
      const read = opencollective.history?.series(context(upstream.baseUrl), { slug: 'generated', from: '2026-01-01', to: '2026-01-07', now: Date.parse('2026-01-07T12:00:00Z') });
      // The generated `timeUnit` is the enum's first value, SECOND: nodes by the second are no day's balance.
      if (mode === 'minimal') await expect(read).rejects.toMatchObject({ kind: 'not_found', message: expect.stringContaining('"generated"') as string });
      else await expect(read).rejects.toMatchObject({ kind: 'bad_response', message: 'Open Collective answered a daily balance by SECOND' });
      expect(upstream.requests).toEqual([{ request: 'POST /graphql/v2', status: 200 }]);
    });
  });

  describe('a collective whose nullable figures are null', () => {
    const described = descriptionOf('opencollective')?.description;
    const schema = described instanceof GraphQLDescription ? described : undefined;

    /**
     * Answers the connector's own query with the schema's full sample, then `unknown` blanks what the
     * schema lets be null; the answer is checked against the schema before the connector sees it.
     */
    async function fundingWith(unknown: (account: Json) => void) {
      const problems: string[] = [];
      const fetch: typeof globalThis.fetch = (_input, init) => {
        const body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as unknown;
        problems.push(...(schema?.checkRequest(body) ?? ['no schema']));
        const answer = record(schema?.sampleAnswer(body, 'full'));
        unknown(record(record(answer.data).account));
        problems.push(...(schema?.checkResponse(body, answer) ?? []));
        return Promise.resolve(Response.json(answer));
      };
      const funding = await opencollective.funding(context('http://127.0.0.1:9', fetch), { slug: 'generated' });
      expect(problems).toEqual([]);
      expect(fundingSchema.parse(funding)).toEqual(funding);
      expect(insaneValues(funding)).toEqual([]);
      return funding;
    }

    it('shows every stat as unknown, not 0, when Open Collective gives no stats and no counts', async () => {
      const funding = await fundingWith((account) => {
        account.stats = null;
        account.transactions = { totalCount: null, nodes: null };
        account.members = { totalCount: null, nodes: null };
      });
      expect(funding.stats).toEqual({ balance: null, totalRaised: null, yearlyBudget: null, backerCount: null });
      expect(funding.transactions).toEqual([]);
      expect(funding.members).toEqual([]);
    });

    it('shows amounts without a value as unknown, leaves out a transaction without a date, and keeps a hidden backer nameless but listed', async () => {
      const funding = await fundingWith((account) => {
        const stats = record(account.stats);
        for (const key of ['balance', 'totalAmountReceived', 'yearlyBudget']) record(stats[key]).valueInCents = null;
        const transactions = record(account.transactions);
        const [dated] = transactions.nodes as Json[];
        transactions.nodes = [null, { ...dated, id: 'undated', createdAt: null }, { ...dated, id: 'no-amount', amount: { valueInCents: null, currency: null } }, dated];
        const members = record(account.members);
        const [member] = members.nodes as Json[];
        members.nodes = [null, { ...member, tier: { name: null }, account: null, totalDonations: { valueInCents: null, currency: null } }, member];
      });
      expect(funding.stats).toEqual({ balance: null, totalRaised: null, yearlyBudget: null, backerCount: 1 });
      expect(funding.transactions.map((t) => t.id)).toEqual([GENERATED_TEXT]);
      expect(funding.members).toEqual([
        { name: GENERATED_TEXT, role: 'BACKER', tier: GENERATED_TEXT, totalDonated: 0.02, imageUrl: GENERATED_TEXT },
        { name: 'Incognito', role: 'BACKER', tier: '', totalDonated: null, imageUrl: '' },
      ]);
    });
  });
});
