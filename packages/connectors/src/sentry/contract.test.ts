import { errorTrackerSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { describedContext } from '../testing.ts';
import { sentry } from './index.ts';

/** What the described upstream puts in every string field: ids, titles, and `count` too. */
const GENERATED_TEXT = 'string';
/** openapi-sampler's date-time. */
const GENERATED_TIME = '2019-08-24T14:15:22.000Z';
const config = { org: 'acme', project: 'web' };

const contextFor = (upstream: { baseUrl: string }, credentials: Record<string, string> = { authToken: 'sntrys_contract' }): ConnectorContext =>
  describedContext(upstream, credentials, Date.UTC(2026, 0, 15));

describe.skipIf(!descriptionOf('sentry'))('Sentry connector against answers made from Sentry’s own description', () => {
  describe.each(['minimal', 'maximal', 'full'] as const satisfies readonly SampleMode[])('%s answers', (mode) => {
    const upstream = useDescribedUpstream('sentry', mode);

    it('accepts a token with its organization by listing one project, and a token alone by listing one organization', async () => {
      await expect(sentry.test(contextFor(upstream, { authToken: 'sntrys_contract', orgSlug: 'acme' }))).resolves.toBeUndefined();
      await expect(sentry.test(contextFor(upstream))).resolves.toBeUndefined();
      expect(upstream.requests).toEqual([
        { request: 'GET /api/0/organizations/acme/projects/?per_page=1', status: 200 },
        { request: 'GET /api/0/organizations/?per_page=1', status: 200 },
      ]);
    });

    it('reads the usage stats without inventing a day: generated intervals are no days of the window', async () => {
      const values = await sentry.history?.series(contextFor(upstream), { config, projectId: '4507284109876543', from: '2026-01-09', to: '2026-01-15', now: Date.UTC(2026, 0, 15) });
      expect(values).toEqual([]);
      expect(upstream.requests).toEqual([
        {
          request:
            'GET /api/0/organizations/acme/stats_v2/?field=sum%28quantity%29&groupBy=outcome&category=error&interval=1d&project=4507284109876543&start=2026-01-09T00%3A00%3A00Z&end=2026-01-15T23%3A59%3A59Z',
          status: 200,
        },
      ]);
    });

    it('finds the project’s numeric id from its details', async () => {
      await expect(sentry.projectId(contextFor(upstream), { config })).resolves.toBe(GENERATED_TEXT);
      expect(upstream.requests).toEqual([{ request: 'GET /api/0/projects/acme/web/', status: 200 }]);
    });

    it('lists the generated issue with its title, its unreadable count unknown rather than 0, and leaves it out when it has no first or last seen', async () => {
      const out = await sentry.issues(contextFor(upstream), { config, projectId: '4507284109876543' });
      expect(errorTrackerSchema.parse(out)).toEqual(out);
      expect(insaneValues(out)).toEqual([]);
      // firstSeen and lastSeen are nullable: the maximal answer has neither, so there is nothing to place the issue in time.
      expect(out.issues).toEqual(
        mode === 'maximal'
          ? []
          : [{ id: GENERATED_TEXT, title: GENERATED_TEXT, culprit: GENERATED_TEXT, count: null, userCount: 0, level: 'sample', firstSeen: GENERATED_TIME, lastSeen: GENERATED_TIME, url: GENERATED_TEXT }],
      );
      // No X-Hits and no Link header: the one page is all there is, and its issue is unresolved whether listed or not.
      expect(out.errorCount).toBe(1);
      expect(upstream.requests).toEqual([
        { request: 'GET /api/0/organizations/acme/issues/?project=4507284109876543&query=is%3Aunresolved&statsPeriod=14d&sort=date&limit=25', status: 200 },
      ]);
    });
  });
});
