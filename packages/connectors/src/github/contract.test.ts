import { shippedItemSchema } from '@dash/contracts';
import { descriptionOf, insaneValues, type SampleMode, useDescribedUpstream } from '@dash/sandbox/contract';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { describedContext } from '../testing.ts';
import { github, githubLogin } from './index.ts';

const shippedSchema = shippedItemSchema.omit({ project: true });

const contextFor = (upstream: { baseUrl: string }): ConnectorContext => describedContext(upstream, { token: 'ghp_contract0000000000000000000000000000' });

describe.skipIf(!descriptionOf('github'))('GitHub connector against answers generated from GitHub’s description', () => {
  describe.each<SampleMode>(['minimal', 'maximal', 'full'])('%s answers', (mode) => {
    const upstream = useDescribedUpstream('github', mode);

    it('lists the merged pull requests of each repository as sane shipped items', async () => {
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
