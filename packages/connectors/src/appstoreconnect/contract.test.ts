import { storefrontSchema } from '@dash/contracts';
import { sandboxAppStoreKey } from '@dash/sandbox';
import { descriptionOf, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { describedContext } from '../testing.ts';
import { appstoreconnect } from './index.ts';

const credentials = { issuerId: sandboxAppStoreKey.issuerId, keyId: sandboxAppStoreKey.keyId, privateKey: sandboxAppStoreKey.privateKey };

const contextFor = (upstream: { baseUrl: string }): ConnectorContext => describedContext(upstream, credentials);

describe.skipIf(!descriptionOf('appstoreconnect'))('App Store Connect connector against answers generated from Apple’s description', () => {
  describe.each<SampleMode>(['minimal', 'maximal', 'full'])('%s answers', (mode) => {
    const upstream = useDescribedUpstream('appstoreconnect', mode);

    it('reads the app, its reviews and its versions into a sane storefront', async () => {
      const out = await appstoreconnect.storefront(contextFor(upstream), { config: { appId: '1588431207' } });
      expect(storefrontSchema.parse(out)).toEqual(out);
      expect(insaneValues(out)).toEqual([]);
      const asked = upstream.requests.map((r) => r.request);
      expect(asked).toContain('GET /v1/apps/1588431207?fields%5Bapps%5D=name%2CbundleId');
      expect(asked).toContain('GET /v1/apps/1588431207/customerReviews?sort=-createdDate&limit=20');
      expect(asked).toContain('GET /v1/apps/1588431207/appStoreVersions?limit=10');
      expect(upstream.requests.every((r) => r.status === 200)).toBe(true);
      // Generated pages may link a next page forever: the versions stop at the connector's bound.
      expect(upstream.requests.filter((r) => r.request.includes('appStoreVersions')).length).toBeLessThanOrEqual(5);
      if (mode === 'minimal') {
        // Apple promises only each resource's type and id: no name is made up, and a review without stars or date, a version without its number or date, is left out.
        expect(out).toEqual({ app: { name: '', bundleId: '' }, reviews: [], versions: [] });
      } else {
        // The generated app, review and version come through as Apple's answer gave them.
        const answer = async <T,>(path: string) => (await (await fetch(`${upstream.baseUrl}${path}`)).json()) as T;
        const about = await answer<{ data: { attributes: { name: string; bundleId: string } } }>('/v1/apps/1588431207');
        const review = (await answer<{ data: { attributes: { rating: number; title: string } }[] }>('/v1/apps/1588431207/customerReviews')).data[0]?.attributes;
        const version = (await answer<{ data: { attributes: { versionString: string } }[] }>('/v1/apps/1588431207/appStoreVersions')).data[0]?.attributes;
        expect(out.app).toEqual({ name: about.data.attributes.name, bundleId: about.data.attributes.bundleId });
        expect(out.reviews[0]).toMatchObject({ rating: review?.rating, title: review?.title });
        expect(out.versions[0]?.version).toBe(version?.versionString);
      }
    });

    it('checks the key with one call to /v1/apps', async () => {
      await appstoreconnect.test(contextFor(upstream));
      expect(upstream.requests).toEqual([{ request: 'GET /v1/apps?limit=1&fields%5Bapps%5D=name', status: 200 }]);
    });
  });
});
