import { startSandbox, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { shippedItemSchema } from '@dash/contracts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { github } from './index.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
// A test that lowers the fake's limit must not leave it low for the next one.
afterEach(() => sandbox.limit('github', { limit: 5000, windowMs: 3_600_000 }));

const shippedSchema = shippedItemSchema.omit({ project: true });
const DAY = 86_400_000;
const formfox = { repos: ['formfox/web', 'formfox/worker'] };
const rateLimitBody = {
  message: 'API rate limit exceeded for user ID 98213745.',
  documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
  status: '403',
};

describe('GitHub connector', () => {
  it('lists merged pull requests of every repository, newest merged first, leaving out closed-unmerged and open ones', async () => {
    const now = Date.now();
    const shipped = await github.shipped(sandboxContext(sandbox, 'github'), { config: formfox, limit: 20, now });
    for (const item of shipped) expect(shippedSchema.parse(item)).toEqual(item);
    // Ten merged in web, five in the worker.
    expect(shipped).toHaveLength(15);
    expect(shipped.map((s) => s.shippedAt)).toEqual(shipped.map((s) => s.shippedAt).sort().reverse());
    const titles = shipped.map((s) => s.title);
    expect(titles).toContain('Multi-page forms');
    expect(titles).toContain('Drain the queue on graceful shutdown');
    expect(titles).not.toContain('Typeform importer');
    expect(titles).not.toContain('Move the queue to BullMQ');
    expect(titles).not.toContain('Conditional logic between pages');
    for (const item of shipped) {
      expect(item.source).toBe('code_host');
      expect(item.url).toMatch(/^https:\/\/github\.com\/formfox\/(web|worker)\/pull\/\d+$/);
      expect(Date.parse(item.shippedAt)).toBeGreaterThan(now - 43 * DAY);
    }
    const [first] = sandbox.requestsTo('github', '/repos/formfox/web/pulls');
    expect(first?.path).toBe('/repos/formfox/web/pulls?state=closed&sort=updated&direction=desc&per_page=20');
  });

  it('follows the Link header to the next page when the first does not hold enough merged pull requests', async () => {
    const shipped = await github.shipped(sandboxContext(sandbox, 'github'), { config: { repos: ['formfox/web'] }, limit: 10, now: Date.now() });
    expect(shipped).toHaveLength(10);
    expect(sandbox.requestsTo('github').map((r) => r.path.split('?')[0])).toEqual(['/repos/formfox/web/pulls', expect.stringMatching(/^\/repositories\/\d+\/pulls$/)]);
    expect(sandbox.requestsTo('github', '/repositories/')[0]?.path).toMatch(/[?&]page=2(&|$)/);
  });

  it('reads no further page once later pages cannot hold one of the newest', async () => {
    // Eleven closed pull requests at ten a page: GitHub links a second page, which cannot matter for the newest two.
    const shipped = await github.shipped(sandboxContext(sandbox, 'github'), { config: { repos: ['pocketledger/ios-app'] }, limit: 2, now: Date.now() });
    expect(shipped).toHaveLength(2);
    expect(sandbox.requestsTo('github')).toHaveLength(1);
  });

  it('names the repository GitHub does not know', async () => {
    const error = await github.shipped(sandboxContext(sandbox, 'github'), { config: { repos: ['formfox/web', 'formfox/nope'] }, limit: 5, now: Date.now() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not_found', retryable: false, message: 'GitHub has no repository formfox/nope that this token can read (404)' });
  });

  it('says GitHub is not connected yet, without a request, when only an OAuth app’s client is saved', async () => {
    const ctx = sandboxContext(sandbox, 'github', { credentials: { clientId: 'Ov23liSandboxOAuthApp', clientSecret: 'secret' } });
    await expect(github.test(ctx)).rejects.toMatchObject({ kind: 'auth', message: 'GitHub is not connected yet: use "Connect with GitHub" in settings' });
    expect(sandbox.requestsTo('github')).toHaveLength(0);
  });

  it('says the token was rejected, with GitHub’s reason and without the token', async () => {
    const ctx = sandboxContext(sandbox, 'github', { credentials: { token: 'ghp_wrongToken123' } });
    const error = await github.shipped(ctx, { config: formfox, limit: 5, now: Date.now() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'GitHub rejected the credentials (401): Bad credentials' });
    expect((error as Error).message).not.toContain('ghp_wrongToken123');
  });

  it('treats a 403 with x-ratelimit-remaining: 0 as a rate limit and waits until x-ratelimit-reset', async () => {
    const start = 1_800_000_000_000;
    const clock = testClock(start);
    sandbox.inject('github', {
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(start / 1000 + 3) },
      body: rateLimitBody,
      times: 1,
    });
    await github.test(sandboxContext(sandbox, 'github', { clock }));
    expect(clock.slept).toContain(3000);
    expect(sandbox.requestsTo('github').map((r) => r.status)).toEqual([403, 200]);
  });

  it('waits as long as Retry-After says on a secondary rate limit (403) and on a 429', async () => {
    const clock = testClock();
    sandbox.inject('github', {
      status: 403,
      headers: { 'retry-after': '2' },
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest' },
      times: 1,
    });
    await github.test(sandboxContext(sandbox, 'github', { clock }));
    sandbox.inject('github', { status: 429, headers: { 'retry-after': '4' }, body: rateLimitBody, times: 1 });
    await github.test(sandboxContext(sandbox, 'github', { clock }));
    expect(clock.slept).toEqual([2000, 4000]);
    expect(sandbox.requestsTo('github').map((r) => r.status)).toEqual([403, 200, 429, 200]);
  });

  it('gives up at once when the used-up limit resets later than we wait, keeping GitHub’s reason', async () => {
    sandbox.limit('github', { limit: 1, windowMs: 3_600_000 });
    await github.test(sandboxContext(sandbox, 'github'));
    const error = await github.test(sandboxContext(sandbox, 'github')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true });
    expect((error as Error).message).toMatch(/^GitHub is rate limiting us \(403\): API rate limit exceeded for user ID \d+\./);
    expect((error as ConnectorError).retryAfterMs).toBeGreaterThan(3_000_000);
    expect(sandbox.requestsTo('github')).toHaveLength(2);
  });

  it('keeps a 403 that is not a rate limit an access error', async () => {
    sandbox.inject('github', { status: 403, body: { message: 'Resource not accessible by personal access token', documentation_url: 'https://docs.github.com/rest', status: '403' }, times: 1 });
    await expect(github.test(sandboxContext(sandbox, 'github'))).rejects.toMatchObject({
      kind: 'auth',
      message: 'GitHub refused access (403): Resource not accessible by personal access token',
    });
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('github', { status: 502, body: { message: 'Server Error' } });
    const error = await github.test(sandboxContext(sandbox, 'github')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true });
    expect(sandbox.requestsTo('github')).toHaveLength(3);
  });

  it('turns a body that is not JSON, or not a list of pull requests, into a bad_response error', async () => {
    sandbox.inject('github', { malformed: true, times: 1 });
    await expect(github.test(sandboxContext(sandbox, 'github'))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'GitHub answered 200 with something that is not JSON',
    });
    sandbox.inject('github', { status: 200, body: { items: [] }, times: 1 });
    await expect(github.shipped(sandboxContext(sandbox, 'github'), { config: { repos: ['formfox/web'] }, limit: 5, now: Date.now() })).rejects.toMatchObject({
      kind: 'bad_response',
    });
  });

  it('checks the token with GET /user: ok with the demo token, auth error with another', async () => {
    await expect(github.test(sandboxContext(sandbox, 'github'))).resolves.toBeUndefined();
    await expect(github.test(sandboxContext(sandbox, 'github', { credentials: { token: 'nope' } }))).rejects.toMatchObject({ kind: 'auth' });
    expect(sandbox.requestsTo('github').map((r) => [r.path, r.status])).toEqual([
      ['/user', 200],
      ['/user', 401],
    ]);
  });
});
