import { demoOrg, sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { shippedItemSchema } from '@dash/contracts';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { vercel } from './index.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const formfox = { projectId: 'prj_formfoxWeb3k2', teamId: demoOrg.vercelTeamId };
const tideline = { projectId: 'prj_tidelineWeb9x', teamId: demoOrg.vercelTeamId };
const shippedList = z.array(shippedItemSchema.omit({ project: true }));

interface RawDeployment {
  url: string | null;
  state: string;
  target: string | null;
  created: number;
}

/** Every deployment of a project as the fake holds it, read page by page without the connector. */
async function allDeployments(projectId: string): Promise<RawDeployment[]> {
  const all: RawDeployment[] = [];
  let until: number | null = null;
  do {
    const url = new URL(`${sandbox.services.vercel.baseUrl}/v6/deployments`);
    url.search = new URLSearchParams({ projectId, teamId: demoOrg.vercelTeamId, limit: '100', ...(until ? { until: String(until) } : {}) }).toString();
    const response = await fetch(url, { headers: { authorization: `Bearer ${sandboxTokens.vercel}` } });
    const page = (await response.json()) as { deployments: RawDeployment[]; pagination: { next: number | null } };
    all.push(...page.deployments);
    until = page.pagination.next;
  } while (until !== null);
  sandbox.reset();
  return all;
}

describe('Vercel connector', () => {
  it('lists production deployments that went live, newest first, titled by the commit headline', async () => {
    const clock = testClock();
    const shipped = await vercel.shipped(sandboxContext(sandbox, 'vercel', { clock }), { config: formfox, limit: 10, now: clock.now() });
    expect(shippedList.parse(shipped)).toEqual(shipped);
    expect(shipped).toHaveLength(10);
    // The newest push is still building; the one before it carries a commit body that must not leak into the title.
    expect(shipped[0]).toMatchObject({ title: 'Add conditional logic to multi-step forms', source: 'deploy_host' });
    expect(shipped[0]?.url).toMatch(/^https:\/\/formfox-web-[a-z0-9]+-demo-founder\.vercel\.app$/);
    const times = shipped.map((item) => item.shippedAt);
    expect(times).toEqual([...times].sort().reverse());
    // A deployment from the CLI has no commit: it is named after the project.
    expect(shipped.map((item) => item.title)).toContain('formfox-web');
    expect(sandbox.requestsTo('vercel', '/v6/deployments?')[0]?.path).toContain('target=production&state=READY&limit=10');
  });

  it('leaves out previews, failed and cancelled builds and the one still building', async () => {
    const raw = await allDeployments(tideline.projectId);
    const live = raw.filter((d) => d.state === 'READY' && d.target === 'production');
    // The fake has each kind the connector must skip, so this test can fail.
    expect(raw.some((d) => d.target === null)).toBe(true);
    expect(raw.some((d) => d.state === 'ERROR' && d.target === 'production')).toBe(true);
    expect(raw.some((d) => d.state === 'CANCELED')).toBe(true);
    expect(raw.some((d) => d.state === 'BUILDING')).toBe(true);

    const shipped = await vercel.shipped(sandboxContext(sandbox, 'vercel'), { config: tideline, limit: 200, now: Date.now() });
    expect(shipped.map((item) => item.url).sort()).toEqual(live.map((d) => `https://${d.url}`).sort());
  });

  it('follows pagination.next as `until` when the project has more than a page of deployments', async () => {
    const shipped = await vercel.shipped(sandboxContext(sandbox, 'vercel'), { config: formfox, limit: 150, now: Date.now() });
    const requests = sandbox.requestsTo('vercel', '/v6/deployments?');
    expect(requests).toHaveLength(2);
    expect(requests[0]?.path).not.toContain('until=');
    expect(requests[1]?.path).toMatch(/until=\d{13}/);
    expect(shipped.length).toBeGreaterThan(100);
    expect(new Set(shipped.map((item) => item.url)).size).toBe(shipped.length);
  });

  it('asks for one small page when only a few items are wanted', async () => {
    const shipped = await vercel.shipped(sandboxContext(sandbox, 'vercel'), { config: formfox, limit: 3, now: Date.now() });
    expect(shipped).toHaveLength(3);
    expect(sandbox.requestsTo('vercel', '/v6/deployments?')).toHaveLength(1);
  });

  it('says access was refused for a team the token does not belong to', async () => {
    const error = await vercel
      .shipped(sandboxContext(sandbox, 'vercel'), { config: { ...formfox, teamId: 'team_someoneElse' }, limit: 5, now: Date.now() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', message: 'Vercel refused access (403): Not authorized' });
  });

  it('says the token was rejected, with Vercel’s reason and without the token', async () => {
    const ctx = sandboxContext(sandbox, 'vercel', { credentials: { token: 'wrong-vercel-token-123' } });
    const error = await vercel.test(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'Vercel refused access (403): Not authorized' });
    expect((error as Error).message).not.toContain('wrong-vercel-token-123');
  });

  it('accepts the demo token in the credential check', async () => {
    await expect(vercel.test(sandboxContext(sandbox, 'vercel'))).resolves.toBeUndefined();
    expect(sandbox.requestsTo('vercel', '/v2/user')).toHaveLength(1);
  });

  it('backs off on 429 as Retry-After says, then succeeds', async () => {
    const clock = testClock();
    sandbox.inject('vercel', {
      status: 429,
      headers: { 'retry-after': '2', 'x-ratelimit-remaining': '0' },
      body: { error: { code: 'rate_limited', message: 'Rate limit exceeded' } },
      times: 1,
    });
    await vercel.test(sandboxContext(sandbox, 'vercel', { clock }));
    expect(clock.slept).toContain(2000);
    expect(sandbox.requestsTo('vercel').map((r) => r.status)).toEqual([429, 200]);
  });

  it('waits until X-RateLimit-Reset when a 429 has no Retry-After', async () => {
    const clock = testClock(1_800_000_000_000);
    sandbox.inject('vercel', {
      status: 429,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1800000003' },
      body: { error: { code: 'rate_limited', message: 'Rate limit exceeded' } },
      times: 1,
    });
    await vercel.test(sandboxContext(sandbox, 'vercel', { clock }));
    expect(clock.slept).toEqual([3000]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('vercel', { status: 502, body: { error: { code: 'internal_server_error', message: 'An unexpected internal error occurred' } } });
    const error = await vercel.test(sandboxContext(sandbox, 'vercel')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'Vercel failed (502): An unexpected internal error occurred' });
    expect(sandbox.requestsTo('vercel')).toHaveLength(3);
  });

  it('turns a body that is not JSON, or not a deployment list, into a clear bad_response error', async () => {
    sandbox.inject('vercel', { malformed: true, times: 1 });
    await expect(vercel.test(sandboxContext(sandbox, 'vercel'))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Vercel answered 200 with something that is not JSON',
    });
    sandbox.inject('vercel', { status: 200, body: { deployments: 'none', pagination: null }, times: 1 });
    await expect(vercel.shipped(sandboxContext(sandbox, 'vercel'), { config: formfox, limit: 5, now: Date.now() })).rejects.toMatchObject({
      kind: 'bad_response',
      message: expect.stringContaining('Vercel sent a response we do not understand (deployments'),
    });
  });
});
