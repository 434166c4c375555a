import { sandboxTokens, startSandbox, type Sandbox } from '@dash/sandbox';
import { healthSchema } from '@dash/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.ts';
import { dayBefore, sandboxContext, testClock } from '../testing.ts';
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

describe('Better Stack daily series', () => {
  const history = betterstack.history;
  if (!history) throw new Error('Better Stack reads a daily series');
  const slaRequests = () => sandbox.requestsTo('betterstack', '/api/v2/monitors/').filter((r) => r.path.includes('/sla?'));

  /** One monitor's summary of one day, asked of the fake directly. */
  async function summary(id: string, date: string) {
    const response = await fetch(`${sandbox.services.betterstack.baseUrl}/v2/monitors/${id}/sla?from=${date}&to=${date}`, { headers: { authorization: `Bearer ${sandboxTokens.betterstack}` } });
    return ((await response.json()) as { data: { attributes: { availability: number; number_of_incidents: number } } }).data.attributes;
  }

  it('answers each day’s average availability as a fraction and its incidents summed, from one summary per monitor and day', async () => {
    const now = Date.now();
    const series = await history.series(sandboxContext(sandbox, 'betterstack'), { config: formfox, from: dayBefore(now, 9), to: dayBefore(now, 0), now });
    const days = Array.from({ length: 10 }, (_, i) => dayBefore(now, 9 - i));
    expect(series.filter((v) => v.metric === 'uptime.up_ratio').map((v) => v.date)).toEqual(days);
    expect(series.filter((v) => v.metric === 'uptime.incidents').map((v) => v.date)).toEqual(days);
    for (const v of series) expect(v.currency).toBeUndefined();
    // Each monitor once a day, the day as both ends; the listing once.
    const asked = slaRequests().map((r) => new URL(r.path, 'http://x'));
    expect(asked).toHaveLength(30);
    expect(asked.every((url) => url.searchParams.get('from') === url.searchParams.get('to'))).toBe(true);
    expect(new Set(asked.map((url) => `${url.pathname} ${url.searchParams.get('from') ?? ''}`)).size).toBe(30);
    expect(sandbox.requestsTo('betterstack', '/api/v2/monitors?')).toHaveLength(1);
    for (const date of [dayBefore(now, 0), dayBefore(now, 3), dayBefore(now, 5)]) {
      const each = await Promise.all(formfox.monitorIds.map((id) => summary(id, date)));
      const ratio = series.find((v) => v.metric === 'uptime.up_ratio' && v.date === date)?.value;
      expect(ratio).toBeCloseTo(each.reduce((sum, a) => sum + a.availability, 0) / 300, 6);
      expect(series.find((v) => v.metric === 'uptime.incidents' && v.date === date)?.value).toBe(each.reduce((sum, a) => sum + a.number_of_incidents, 0));
    }
    // The submission worker is down right now: today is not all up.
    expect(series.find((v) => v.metric === 'uptime.up_ratio' && v.date === dayBefore(now, 0))?.value).toBeLessThan(1);
    expect(series.every((v) => v.value >= 0 && (v.metric !== 'uptime.up_ratio' || v.value <= 1))).toBe(true);
  });

  it('asks only for the monitors health shows (named, not paused), and only the window’s days up to today', async () => {
    const now = Date.now();
    expect(history.seriesDays).toBe(30);
    const series = await history.series(sandboxContext(sandbox, 'betterstack'), { config: { monitorIds: ['1990', '2005'] }, from: dayBefore(now, 1), to: dayBefore(now, -3), now });
    expect(series.map((v) => `${v.metric} ${v.date}`)).toEqual([`uptime.up_ratio ${dayBefore(now, 1)}`, `uptime.incidents ${dayBefore(now, 1)}`, `uptime.up_ratio ${dayBefore(now, 0)}`, `uptime.incidents ${dayBefore(now, 0)}`]);
    expect(slaRequests().map((r) => r.path.split('?')[0])).toEqual(['/api/v2/monitors/2005/sla', '/api/v2/monitors/2005/sla']);
    sandbox.reset();
    expect(await history.series(sandboxContext(sandbox, 'betterstack'), { config: formfox, from: dayBefore(now, -2), to: dayBefore(now, -1), now })).toEqual([]);
    expect(sandbox.requestsTo('betterstack')).toEqual([]);
  });

  it('has at most four summaries in flight, each taking its turn on the account’s limiter', async () => {
    const now = Date.now();
    const clock = testClock();
    const ctx = sandboxContext(sandbox, 'betterstack', { clock, rateLimit: { limit: 10, windowMs: 1_000 } });
    let inFlight = 0;
    let most = 0;
    const counting: typeof fetch = async (input, init) => {
      most = Math.max(most, ++inFlight);
      try {
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const series = await history.series({ ...ctx, fetch: counting }, { config: formfox, from: dayBefore(now, 29), to: dayBefore(now, 0), now });
    expect(series).toHaveLength(60);
    expect(most).toBe(4);
    // 91 requests at 10 a second: the limiter made the later ones wait their turn.
    expect(clock.slept.length).toBeGreaterThan(0);
    expect(slaRequests()).toHaveLength(90);
  });

  it('says the token was rejected (401) and that Better Stack is rate limiting (429), as the other reads do', async () => {
    const now = Date.now();
    const window = { config: formfox, from: dayBefore(now, 2), to: dayBefore(now, 0), now };
    const rejected = await history.series(sandboxContext(sandbox, 'betterstack', { credentials: { apiToken: 'wrong-token-123' } }), window).catch((e: unknown) => e);
    expect(rejected).toMatchObject({ kind: 'auth', retryable: false, message: 'Better Stack rejected the credentials (401): Invalid Team API Token' });
    sandbox.inject('betterstack', { status: 429, headers: { 'retry-after': '1' }, body: { errors: 'Too Many Requests' } });
    const limited = await history.series(sandboxContext(sandbox, 'betterstack'), window).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ConnectorError);
    expect(limited).toMatchObject({ kind: 'rate_limited', retryAfterMs: 1000 });
  });
});
