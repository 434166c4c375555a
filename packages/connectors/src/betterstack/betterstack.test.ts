import { startSandbox, type Sandbox } from '@dash/sandbox';
import { healthSchema } from '@dash/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { betterstack } from './index.ts';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const formfox = { monitorIds: ['2003', '2004', '2006'] };

describe('Better Stack connector', () => {
  it('maps monitors to up, down and degraded with the newest response time in ms, and lists the open incident', async () => {
    const health = await betterstack.health(sandboxContext(sandbox, 'betterstack'), { config: formfox });
    expect(healthSchema.parse(health)).toEqual(health);
    expect(health.monitors.map((m) => [m.name, m.status])).toEqual([
      ['App', 'up'],
      ['Submission worker', 'down'],
      ['Webhooks out', 'degraded'],
    ]);
    for (const m of health.monitors) expect(m.responseTime).toBeGreaterThan(50);
    expect(health.incidents).toEqual([
      expect.objectContaining({ name: 'Submission worker: Status 503', status: 'ongoing', url: 'https://worker.formfox.io/healthz' }),
    ]);
  });

  it('leaves paused monitors out and follows the listing across pages', async () => {
    const health = await betterstack.health(sandboxContext(sandbox, 'betterstack'), { config: { monitorIds: ['1990', '2005'] } });
    expect(health.monitors.map((m) => m.name)).toEqual(['Tide data API']);
    // Thirteen monitors fit one page of 250: the listing asks again only when Better Stack links a next page.
    expect(sandbox.requestsTo('betterstack', '/api/v2/monitors?')).toHaveLength(1);
  });

  it('says the token was rejected, with Better Stack’s reason and without the token', async () => {
    const ctx = sandboxContext(sandbox, 'betterstack', { credentials: { apiToken: 'wrong-token-123' } });
    const error = await betterstack.test(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'Better Stack rejected the credentials (401): Invalid Team API Token' });
    expect((error as Error).message).not.toContain('wrong-token-123');
  });

  it('backs off on 429 as Retry-After says, then succeeds', async () => {
    const clock = testClock();
    sandbox.inject('betterstack', { status: 429, headers: { 'retry-after': '2' }, body: { errors: 'Too Many Requests' }, times: 1 });
    await betterstack.test(sandboxContext(sandbox, 'betterstack', { clock }));
    expect(clock.slept).toContain(2000);
    expect(sandbox.requestsTo('betterstack').map((r) => r.status)).toEqual([429, 200]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('betterstack', { status: 502, body: { errors: 'Bad gateway' } });
    const error = await betterstack.test(sandboxContext(sandbox, 'betterstack')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true });
    expect(sandbox.requestsTo('betterstack')).toHaveLength(3);
  });

  it('turns a body that is not JSON into a clear bad_response error', async () => {
    sandbox.inject('betterstack', { malformed: true });
    await expect(betterstack.test(sandboxContext(sandbox, 'betterstack'))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Better Stack answered 200 with something that is not JSON',
    });
  });
});
