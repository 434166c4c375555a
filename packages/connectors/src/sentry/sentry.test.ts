import { demoOrg, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { errorTrackerSchema } from '@dash/contracts';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { sentry } from './index.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const formfox = { org: demoOrg.sentryOrg, project: 'formfox-web' };
const formfoxId = '4507284109876543';
const withOrg = { authToken: sandboxTokens.sentry, orgSlug: demoOrg.sentryOrg };

interface RawIssue {
  id: string;
  count: string;
  status: string;
}

/** The fake's issues of a project for a query, read in one page of 100 without the connector. */
async function rawIssues(query: string): Promise<RawIssue[]> {
  const url = new URL(`${sandbox.services.sentry.baseUrl}/organizations/${demoOrg.sentryOrg}/issues/`);
  url.search = new URLSearchParams({ project: formfoxId, query, limit: '100' }).toString();
  const response = await fetch(url, { headers: { authorization: `Bearer ${sandboxTokens.sentry}` } });
  expect(response.headers.get('link')).toContain('rel="next"; results="false"');
  const issues = (await response.json()) as RawIssue[];
  sandbox.reset();
  return issues;
}

/** The same context, talking to a Sentry that does not send X-Hits (older self-hosted). */
function withoutHits(ctx: ConnectorContext): ConnectorContext {
  return {
    ...ctx,
    fetch: async (input, init) => {
      const response = await globalThis.fetch(input, init);
      const headers = new Headers(response.headers);
      headers.delete('x-hits');
      return new Response(await response.text(), { status: response.status, headers });
    },
  };
}

describe('Sentry connector', () => {
  it('maps the first page of unresolved issues, most recently seen first, with integer counts', async () => {
    const raw = await rawIssues('is:unresolved');
    const { issues, errorCount } = await sentry.issues(sandboxContext(sandbox, 'sentry'), { config: formfox });
    expect(errorTrackerSchema.parse({ issues, errorCount })).toEqual({ issues, errorCount });
    expect(issues).toHaveLength(25);
    const lastSeen = issues.map((issue) => issue.lastSeen);
    expect(lastSeen).toEqual([...lastSeen].sort().reverse());
    // Sentry's count is a string: "1789" becomes 1789.
    const first = issues[0];
    expect(typeof raw[0]?.count).toBe('string');
    expect(first?.id).toBe(raw[0]?.id);
    expect(first?.count).toBe(Number(raw[0]?.count));
    for (const issue of issues) {
      expect(Number.isInteger(issue.count)).toBe(true);
      expect(['error', 'warning', 'fatal']).toContain(issue.level);
      expect(issue.url).toBe(`https://demo-founder.sentry.io/issues/${issue.id}/`);
      expect(issue.culprit).not.toBe('');
    }
    expect(issues.map((issue) => issue.title)).toContainEqual(expect.stringMatching(/^(TypeError|ChunkLoadError|Error|RangeError|HttpError): /));
  });

  it('counts every unresolved issue across pages from X-Hits, without reading the other pages', async () => {
    const unresolved = await rawIssues('is:unresolved');
    const resolved = await rawIssues('is:resolved');
    expect(unresolved.length).toBeGreaterThan(25);
    expect(resolved.length).toBeGreaterThan(0);

    const { issues, errorCount } = await sentry.issues(sandboxContext(sandbox, 'sentry'), { config: formfox });
    expect(errorCount).toBe(unresolved.length);
    const resolvedIds = new Set(resolved.map((issue) => issue.id));
    expect(issues.filter((issue) => resolvedIds.has(issue.id))).toEqual([]);
    const search = sandbox.requestsTo('sentry', `/api/0/organizations/${demoOrg.sentryOrg}/issues/`);
    expect(search).toHaveLength(1);
    expect(search[0]?.path).toContain(`project=${formfoxId}&query=is%3Aunresolved&statsPeriod=14d&sort=date&limit=25`);
  });

  it('follows the Link header until results="false" to count when Sentry sends no X-Hits', async () => {
    const unresolved = await rawIssues('is:unresolved');
    const { issues, errorCount } = await sentry.issues(withoutHits(sandboxContext(sandbox, 'sentry')), { config: formfox });
    expect(issues).toHaveLength(25);
    expect(errorCount).toBe(unresolved.length);
    const pages = sandbox.requestsTo('sentry', `/api/0/organizations/${demoOrg.sentryOrg}/issues/`);
    expect(pages).toHaveLength(Math.ceil(unresolved.length / 25));
    expect(pages[1]?.path).toMatch(/&cursor=\d+:\d+:0$/);
  });

  it('reports a project that fits one page in full', async () => {
    const { issues, errorCount } = await sentry.issues(sandboxContext(sandbox, 'sentry'), { config: { org: demoOrg.sentryOrg, project: 'tideline-android' } });
    expect(errorCount).toBe(issues.length);
    expect(errorCount).toBeGreaterThanOrEqual(10);
    expect(errorCount).toBeLessThan(25);
  });

  it('says what Sentry could not find for an unknown project', async () => {
    const error = await sentry.issues(sandboxContext(sandbox, 'sentry'), { config: { org: demoOrg.sentryOrg, project: 'nope' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not_found', message: 'Sentry found nothing there (404): The requested resource does not exist' });
  });

  it('says the token was rejected, with Sentry’s reason and without the token', async () => {
    const ctx = sandboxContext(sandbox, 'sentry', { credentials: { authToken: 'sntrys_wrongToken123', orgSlug: demoOrg.sentryOrg } });
    const error = await sentry.test(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'Sentry rejected the credentials (401): Invalid token' });
    expect((error as Error).message).not.toContain('sntrys_wrongToken123');
  });

  it('checks the token and the organization slug together', async () => {
    await expect(sentry.test(sandboxContext(sandbox, 'sentry', { credentials: withOrg }))).resolves.toBeUndefined();
    expect(sandbox.requestsTo('sentry').map((r) => r.path)).toEqual([`/api/0/organizations/${demoOrg.sentryOrg}/projects/?per_page=1`]);
    const error = await sentry.test(sandboxContext(sandbox, 'sentry', { credentials: { ...withOrg, orgSlug: 'someone-else' } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not_found' });
  });

  it('backs off on 429 until X-Sentry-Rate-Limit-Reset, then succeeds', async () => {
    const clock = testClock(1_800_000_000_000);
    sandbox.inject('sentry', {
      status: 429,
      headers: { 'x-sentry-rate-limit-limit': '40', 'x-sentry-rate-limit-remaining': '0', 'x-sentry-rate-limit-reset': '1800000003' },
      body: { detail: 'You are attempting to use this endpoint too frequently. Limit is 40 requests in 1 seconds' },
      times: 1,
    });
    await sentry.test(sandboxContext(sandbox, 'sentry', { clock, credentials: withOrg }));
    expect(clock.slept).toEqual([3000]);
    expect(sandbox.requestsTo('sentry').map((r) => r.status)).toEqual([429, 200]);
  });

  it('honours a Retry-After on 429 when one is sent', async () => {
    const clock = testClock(1_800_000_000_000);
    sandbox.inject('sentry', { status: 429, headers: { 'retry-after': '2' }, body: { detail: 'Too many requests' }, times: 1 });
    await sentry.test(sandboxContext(sandbox, 'sentry', { clock, credentials: withOrg }));
    expect(clock.slept).toEqual([2000]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('sentry', { status: 502, body: { detail: 'Internal Error' } });
    const error = await sentry.test(sandboxContext(sandbox, 'sentry', { credentials: withOrg })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'Sentry failed (502): Internal Error' });
    expect(sandbox.requestsTo('sentry')).toHaveLength(3);
  });

  it('turns a body that is not JSON, or an issue without its count, into a clear bad_response error', async () => {
    sandbox.inject('sentry', { malformed: true, times: 1 });
    await expect(sentry.test(sandboxContext(sandbox, 'sentry', { credentials: withOrg }))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Sentry answered 200 with something that is not JSON',
    });
    // The project lookup answers normally; the issue list then comes back without `count`.
    sandbox.inject('sentry', { status: 200, body: { id: formfoxId, slug: 'formfox-web' }, times: 1 });
    sandbox.inject('sentry', { status: 200, body: [{ id: '1', title: 'x', culprit: null, level: 'error', status: 'unresolved', userCount: 1, firstSeen: null, lastSeen: null }], times: 1 });
    await expect(sentry.issues(sandboxContext(sandbox, 'sentry'), { config: formfox })).rejects.toMatchObject({
      kind: 'bad_response',
      message: expect.stringContaining('Sentry sent a response we do not understand (0.count'),
    });
  });
});
