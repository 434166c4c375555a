import { shippedItemSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, startDescribedUpstream, type DescribedUpstream, type SampleMode } from '@dash/sandbox/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { unlimited } from '../limiter.ts';
import { testClock } from '../testing.ts';
import { github, githubLogin } from './index.ts';

const shippedSchema = shippedItemSchema.omit({ project: true });

function contextFor(upstream: DescribedUpstream): ConnectorContext {
  const clock = testClock();
  return { credentials: { token: 'ghp_contract0000000000000000000000000000' }, baseUrl: upstream.baseUrl, fetch: globalThis.fetch, clock, limiter: unlimited(clock) };
}

describe.skipIf(!descriptionOf('github'))('GitHub connector against answers generated from GitHub’s description', () => {
  describe.each<SampleMode>(['minimal', 'maximal', 'full'])('%s answers', (mode) => {
    let upstream: DescribedUpstream;
    beforeAll(async () => {
      upstream = await startDescribedUpstream('github', mode);
    });
    afterAll(() => upstream.close());

    it('lists the merged pull requests of each repository as sane shipped items', async () => {
      upstream.requests.length = 0;
      const shipped = await github.shipped(contextFor(upstream), { config: { repos: ['formfox/web', 'formfox/worker'] }, limit: 20, now: Date.now() });
      for (const item of shipped) expect(shippedSchema.parse(item)).toEqual(item);
      expect(insaneValues(shipped)).toEqual([]);
      expect(upstream.requests.map((r) => r.request).sort()).toEqual([
        'GET /repos/formfox/web/pulls?state=closed&sort=updated&direction=desc&per_page=20',
        'GET /repos/formfox/worker/pulls?state=closed&sort=updated&direction=desc&per_page=20',
      ]);
      expect(upstream.requests.every((r) => r.status === 200)).toBe(true);
      if (mode === 'maximal') {
        // merged_at is nullable and null here: a pull request never merged is not shipped work.
        expect(shipped).toEqual([]);
      } else {
        // One generated pull request a repository, merged: its title and link come through as GitHub gave them.
        const [generated] = (await (await fetch(`${upstream.baseUrl}/repos/formfox/web/pulls`)).json()) as { title: string; html_url: string; merged_at: string }[];
        expect(shipped).toHaveLength(2);
        expect(shipped[0]).toMatchObject({ title: generated?.title, url: generated?.html_url, source: 'code_host', shippedAt: new Date(generated?.merged_at ?? '').toISOString() });
      }
    });

    it('checks the token with GET /user and reads the account’s login', async () => {
      upstream.requests.length = 0;
      await github.test(contextFor(upstream));
      const login = await githubLogin(contextFor(upstream));
      expect(upstream.requests).toEqual([
        { request: 'GET /user', status: 200 },
        { request: 'GET /user', status: 200 },
      ]);
      const generated = (await (await fetch(`${upstream.baseUrl}/user`)).json()) as { login: string };
      expect(login).toBe(generated.login);
      expect(insaneValues(login)).toEqual([]);
    });
  });
});
