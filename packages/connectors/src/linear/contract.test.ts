import { ideaSchema, shippedItemSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { describedContext } from '../testing.ts';
import { linear } from './index.ts';

/** What the described upstream puts in every String field, labels' names included. */
const GENERATED_TEXT = 'string';
const NOW = Date.UTC(2026, 0, 15);
const config = { teamIds: ['6b0f3a52-1c7e-4d0a-9f1b-2d8e5c4a7b10'] };
const shippedSchema = shippedItemSchema.omit({ project: true });

const contextFor = (upstream: { baseUrl: string }): ConnectorContext => describedContext(upstream, { apiKey: 'lin_api_contract' }, NOW);

describe.skipIf(!descriptionOf('linear'))('Linear connector against answers made from Linear’s own schema', () => {
  describe.each(['minimal', 'maximal', 'full'] as const satisfies readonly SampleMode[])('%s answers', (mode) => {
    const upstream = useDescribedUpstream('linear', mode);

    it('accepts the credentials with one viewer query', async () => {
      await expect(linear.test(contextFor(upstream))).resolves.toBeUndefined();
      expect(upstream.requests).toEqual([{ request: 'POST /graphql', status: 200 }]);
    });

    it('lists the generated issue as an idea under a label word it carries, its priority (a Float in the schema) read as one of Linear’s levels', async () => {
      const ideas = await linear.ideas(contextFor(upstream), { config: { ...config, ideaLabels: [GENERATED_TEXT] }, limit: 30 });
      expect(ideas.map((idea) => ideaSchema.parse(idea))).toEqual(ideas);
      expect(insaneValues(ideas)).toEqual([]);
      expect(ideas).toEqual([expect.objectContaining({ title: GENERATED_TEXT, type: 'idea', labels: [GENERATED_TEXT], priority: 0, status: 'open' })]);
      // The generated answer says there is no next page: one query, answered.
      expect(upstream.requests).toEqual([{ request: 'POST /graphql', status: 200 }]);
    });

    it('lists the generated issue as shipped only when it has a completion date (nullable in the schema)', async () => {
      const shipped = await linear.shipped(contextFor(upstream), { config, limit: 20, now: NOW });
      expect(shipped.map((item) => shippedSchema.parse(item))).toEqual(shipped);
      expect(insaneValues(shipped)).toEqual([]);
      expect(shipped).toEqual(mode === 'minimal' ? [] : [{ title: GENERATED_TEXT, source: 'issue_tracker', url: GENERATED_TEXT, shippedAt: '2026-01-01T00:00:00.000Z' }]);
      expect(upstream.requests).toEqual([{ request: 'POST /graphql', status: 200 }]);
    });
  });
});
