import { seoSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, startDescribedUpstream, type DescribedUpstream, type SampleMode } from '@dash/sandbox/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { unlimited } from '../limiter.ts';
import { testClock } from '../testing.ts';
import { google } from './index.ts';

const siteUrl = 'https://pocketledger.app/';
const queryPath = `/webmasters/v3/sites/${encodeURIComponent(siteUrl)}/searchAnalytics/query`;

/** A stored access token still good for an hour: Google's token endpoint is not part of the Search Console description. */
function contextFor(upstream: DescribedUpstream): ConnectorContext {
  const clock = testClock();
  return {
    credentials: { accessToken: 'ya29.contract-access-token', expiresAt: new Date(clock.now() + 3_600_000).toISOString() },
    baseUrl: upstream.baseUrl,
    fetch: globalThis.fetch,
    clock,
    limiter: unlimited(clock),
  };
}

describe.skipIf(!descriptionOf('google'))('Search Console connector against answers generated from Google’s description', () => {
  describe.each<SampleMode>(['minimal', 'maximal', 'full'])('%s answers', (mode) => {
    let upstream: DescribedUpstream;
    beforeAll(async () => {
      upstream = await startDescribedUpstream('google', mode);
    });
    afterAll(() => upstream.close());

    it('reads the top queries and the totals into sane search figures, unknown ones null', async () => {
      upstream.requests.length = 0;
      const seo = await google.seo(contextFor(upstream), { siteUrl, now: Date.now() });
      expect(seoSchema.parse(seo)).toEqual(seo);
      expect(insaneValues(seo)).toEqual([]);
      expect(upstream.requests).toEqual([
        { request: `POST ${queryPath}`, status: 200 },
        { request: `POST ${queryPath}`, status: 200 },
      ]);
      if (mode === 'minimal') {
        // No rows: no search data in the window, so nothing to divide for a ctr or a position.
        expect(seo).toEqual({ queries: [], totals: { clicks: 0, impressions: 0, ctr: null, position: null } });
      } else {
        // The generated row comes through as Google gave it, counts whole; its keyed row stands for the totals too (no dimensionless row came).
        const { rows = [] } = (await (await fetch(`${upstream.baseUrl}${queryPath}`, { method: 'POST', body: '{}' })).json()) as {
          rows?: { keys: string[]; clicks: number; impressions: number; ctr: number; position: number }[];
        };
        const [row = { keys: [], clicks: NaN, impressions: NaN, ctr: NaN, position: NaN }] = rows;
        expect(seo.queries).toEqual([{ query: row.keys[0], clicks: Math.round(row.clicks), impressions: Math.round(row.impressions), ctr: row.ctr, position: row.position }]);
        expect(seo.totals).toMatchObject({ clicks: Math.round(row.clicks), impressions: Math.round(row.impressions) });
      }
    });

    it('checks the account with one call to the site list', async () => {
      upstream.requests.length = 0;
      await google.test(contextFor(upstream));
      expect(upstream.requests).toEqual([{ request: 'GET /webmasters/v3/sites', status: 200 }]);
    });
  });
});
