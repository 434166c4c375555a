import { shippedItemSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { describedContext } from '../testing.ts';
import { vercel } from './index.ts';

const NOW = Date.UTC(2026, 0, 15);
const config = { projectId: 'prj_contract', teamId: 'team_contract' };
const shippedSchema = shippedItemSchema.omit({ project: true });
const firstPage = 'GET /v6/deployments?projectId=prj_contract&target=production&state=READY&limit=20&teamId=team_contract';
/** The description's own example for `pagination.next`, which every generated page that has one repeats. */
const olderPage = firstPage.replace('&teamId=', '&until=1540095775951&teamId=');

const contextFor = (upstream: { baseUrl: string }): ConnectorContext => describedContext(upstream, { token: 'vercel_contract' }, NOW);

describe.skipIf(!descriptionOf('vercel'))('Vercel connector against answers made from Vercel’s own description', () => {
  describe.each(['minimal', 'maximal', 'full'] as const satisfies readonly SampleMode[])('%s answers', (mode) => {
    const upstream = useDescribedUpstream('vercel', mode);

    it('accepts the token by reading its user once', async () => {
      await expect(vercel.test(contextFor(upstream))).resolves.toBeUndefined();
      expect(upstream.requests).toEqual([{ request: 'GET /v2/user', status: 200 }]);
    });

    it('shows the generated deployment once, by name, only when it is READY in production, and stops when a page points nowhere older', async () => {
      const shipped = await vercel.shipped(contextFor(upstream), { config, limit: 20, now: NOW });
      expect(shipped.map((item) => shippedSchema.parse(item))).toEqual(shipped);
      expect(insaneValues(shipped)).toEqual([]);
      // Only the full answer has state READY and target production (both optional, target nullable); its meta carries no commit message.
      expect(shipped).toEqual(
        mode === 'full' ? [{ title: 'docs', source: 'deploy_host', url: 'https://docs-9jaeg38me.vercel.app', shippedAt: '2021-01-01T09:10:10.000Z' }] : [],
      );
      // pagination.next is nullable: null in the maximal answer; elsewhere the same timestamp again, so the second page is the last.
      expect(upstream.requests).toEqual((mode === 'maximal' ? [firstPage] : [firstPage, olderPage]).map((request) => ({ request, status: 200 })));
    });
  });
});
