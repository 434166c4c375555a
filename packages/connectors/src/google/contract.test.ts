import { seoSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { describedContext } from '../testing.ts';
import { google } from './index.ts';

const siteUrl = 'https://pocketledger.app/';
const queryPath = `/webmasters/v3/sites/${encodeURIComponent(siteUrl)}/searchAnalytics/query`;

/** A stored access token still good for an hour: Google's token endpoint is not part of the Search Console description. */
function contextFor(upstream: { baseUrl: string }): ConnectorContext {
  const now = Date.now();
  return describedContext(upstream, { accessToken: 'ya29.contract-access-token', expiresAt: new Date(now + 3_600_000).toISOString() }, now);
}

describe.skipIf(!descriptionOf('google'))('Search Console connector against answers generated from Google’s description', () => {
  describe.each<SampleMode>(['minimal', 'maximal', 'full'])('%s answers', (mode) => {
    const upstream = useDescribedUpstream('google', mode);

    it('reads the top queries and the totals into sane search figures, unknown ones null', async () => {
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

    it('reads the daily series as Google gives it, no day from a generated key that is not one of the window', async () => {
      const now = Date.now();
      const values = await google.history?.series(contextFor(upstream), { siteUrl, from: '2026-01-09', to: '2026-01-15', now });
      expect(insaneValues(values)).toEqual([]);
      // The generated row's key is no date of the window: nothing is made of it.
      expect(values).toEqual([]);
      expect(upstream.requests).toEqual([{ request: `POST ${queryPath}`, status: 200 }]);
    });

    it('checks the account with one call to the site list', async () => {
      await google.test(contextFor(upstream));
      expect(upstream.requests).toEqual([{ request: 'GET /webmasters/v3/sites', status: 200 }]);
    });
  });
});
