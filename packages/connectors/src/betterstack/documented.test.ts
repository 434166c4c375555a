import { healthSchema } from '@dash/contracts';
import { betterstackDocumented as documented } from '@dash/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { insaneValues } from '@dash/sandbox/contract';
import { documentedContext, serveDocumented, type DocumentedAnswer } from '../documented-testing.ts';
import { betterstack } from './index.ts';

/** Every list answer ends with the `pagination` object the Pagination page prints (there: the last page). */
const withPagination = (list: DocumentedAnswer): DocumentedAnswer => ({
  status: list.status,
  body: { ...(list.body as object), ...(documented.pagination.body as object) },
});

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Better Stack answering as its documentation prints, for the documented monitor "2". */
async function documentedBetterStack(answers: Record<string, DocumentedAnswer> = {}) {
  const server = await serveDocumented({
    '/api/v2/monitors': withPagination(documented.listMonitors),
    '/api/v2/monitors/2/response-times': documented.responseTimes,
    '/api/v3/incidents': withPagination(documented.listIncidents),
    ...answers,
  });
  close = () => server.close();
  return { ctx: documentedContext(`${server.url}/api`), server };
}

describe('Better Stack connector, on the examples of Better Stack’s documentation', () => {
  it('shows the documented monitor by its name, up, with its newest response time in ms and its last check', async () => {
    const { ctx } = await documentedBetterStack();
    const health = await betterstack.health(ctx, { config: { monitorIds: ['2'] } });
    expect(healthSchema.parse(health)).toEqual(health);
    // The newest of the documented samples is eu's 11:17:27 check, 0.34252 s.
    expect(health.monitors).toEqual([
      { name: 'Uptime homepage', url: 'https://uptime.betterstack.com', status: 'up', responseTime: 343, lastCheckedAt: '2020-09-01T14:17:46.000Z' },
    ]);
    expect(insaneValues(health)).toEqual([]);
  });

  it('lists the documented unresolved incident as ongoing, named by its monitor and cause', async () => {
    const { ctx } = await documentedBetterStack();
    const health = await betterstack.health(ctx, { config: { monitorIds: ['2'] } });
    expect(health.incidents).toEqual([
      { name: 'uptime homepage: Status 404', status: 'ongoing', startedAt: '2020-03-09T17:37:56.662Z', url: 'https://uptime.betterstack.com/' },
    ]);
  });

  it('reads the credential test’s listing from the documented list', async () => {
    const { ctx, server } = await documentedBetterStack();
    await expect(betterstack.test(ctx)).resolves.toBeUndefined();
    expect(server.paths).toEqual(['/api/v2/monitors']);
  });

  it('says what Better Stack’s documented 404 says when a monitor is gone', async () => {
    const { ctx } = await documentedBetterStack({ '/api/v2/monitors/2/response-times': documented.monitorNotFound });
    await expect(betterstack.health(ctx, { config: { monitorIds: ['2'] } })).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Better Stack found nothing there (404): Resource with provided ID was not found',
    });
  });

  it('leaves out a monitor the project does not name, and asks nothing more about it', async () => {
    const { ctx, server } = await documentedBetterStack();
    const health = await betterstack.health(ctx, { config: { monitorIds: ['3'] } });
    expect(health).toEqual({ monitors: [], incidents: [] });
    expect(server.paths).toEqual(['/api/v2/monitors']);
  });

  it('reads the documented availability summary as a fraction and its incidents, and asks nothing for days before the monitor was created', async () => {
    const { ctx, server } = await documentedBetterStack({ '/api/v2/monitors/2/sla': documented.monitorSla });
    // The documented monitor was created on 18 February 2020; the server answers every day with the documented summary.
    const now = Date.parse('2020-09-08T13:10:20Z');
    const series = await betterstack.history?.series(ctx, { config: { monitorIds: ['2'] }, from: '2020-02-16', to: '2020-02-19', now });
    expect(series).toEqual([
      { metric: 'uptime.up_ratio', date: '2020-02-18', value: 0.9998 },
      { metric: 'uptime.incidents', date: '2020-02-18', value: 3 },
      { metric: 'uptime.up_ratio', date: '2020-02-19', value: 0.9998 },
      { metric: 'uptime.incidents', date: '2020-02-19', value: 3 },
    ]);
    expect(server.paths).toEqual(['/api/v2/monitors', '/api/v2/monitors/2/sla', '/api/v2/monitors/2/sla']);
  });

  it('says what Better Stack’s documented 400 says when it cannot read the range', async () => {
    const { ctx } = await documentedBetterStack({ '/api/v2/monitors/2/sla': documented.slaInvalidRange });
    const now = Date.parse('2020-09-08T13:10:20Z');
    await expect(betterstack.history?.series(ctx, { config: { monitorIds: ['2'] }, from: '2020-09-01', to: '2020-09-01', now })).rejects.toMatchObject({
      kind: 'upstream',
      retryable: false,
      message: expect.stringContaining('The data range is invalid') as string,
    });
  });
});
