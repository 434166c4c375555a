import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxTokens } from '../demo.ts';
import { holdToDescriptions } from '../contract/index.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());

const get = (url: string, token: string = sandboxTokens.github) =>
  fetch(url.startsWith('http') ? url : `${sandbox.services.github.baseUrl}${url}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json' } });

describe('GitHub fake', () => {
  it('pages pulls with per_page and a Link header of next and last, then prev and first', async () => {
    const first = await get('/repos/tideline-dev/tideline/pulls?state=closed&sort=updated&direction=desc&per_page=5');
    expect(first.headers.get('x-ratelimit-resource')).toBe('core');
    const link = first.headers.get('link') ?? '';
    expect(link).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/repositories\/\d+\/pulls\?state=closed&sort=updated&direction=desc&per_page=5&page=2>; rel="next", <[^>]+page=3>; rel="last"$/);
    const pulls = (await first.json()) as { state: string; updated_at: string }[];
    expect(pulls).toHaveLength(5);
    expect(pulls.map((p) => p.updated_at)).toEqual(pulls.map((p) => p.updated_at).sort().reverse());
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? '';
    const second = await get(next);
    expect(second.headers.get('link')).toMatch(/rel="prev".*rel="next".*rel="last".*rel="first"/);
    expect(((await second.json()) as { state: string }[]).every((p) => p.state === 'closed')).toBe(true);
  });

  it('answers GitHub’s own 401 and 404 bodies', async () => {
    const unauthorized = await get('/user', 'ghp_wrong');
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    const missing = await get('/repos/formfox/nope/pulls');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: 'Not Found', status: '404' });
  });
});
