import { describe, expect, it } from 'vitest';
import { composeDigest, formatDuration, type HeldItem } from './digest.ts';

const at = (iso: string) => Date.parse(iso);
const minutes = (n: number) => n * 60_000;

// 22:00–07:00 in Europe/Berlin on the night of 2026-06-01 (CEST, +02:00).
const night = { periods: [{ kind: 'quiet_hours', start: at('2026-06-01T20:00:00Z'), end: at('2026-06-02T05:00:00Z') }], timezone: 'Europe/Berlin' } as const;

let next = 0;
function item(patch: Partial<HeldItem> & Pick<HeldItem, 'type'>): HeldItem {
  next += 1;
  return {
    threadId: `t${next}`,
    integration: 'code_host',
    severity: 'info',
    title: `Thread ${next}`,
    status: 'info',
    firstAt: at('2026-06-01T22:00:00Z'),
    ...patch,
  };
}

const prMerged = () => item({ type: 'pr.merged', severity: 'success' });
const deployFailed = (patch: Partial<HeldItem> = {}) =>
  item({ integration: 'deploy_host', type: 'deploy.error', severity: 'error', status: 'resolved', resolvedAt: at('2026-06-01T22:10:00Z'), ...patch });
const outage = (patch: Partial<HeldItem> = {}) =>
  item({ integration: 'uptime_monitor', type: 'monitor.down', severity: 'error', title: 'Monitor down: API', ...patch });

describe('composeDigest', () => {
  it('Q3: composes nothing when nothing was held', () => {
    expect(composeDigest([], night)).toBeNull();
  });

  it('Q3: leaves out items read in the app, and composes nothing when all were read', () => {
    const read = [prMerged(), outage({ status: 'open' })].map((held) => ({ ...held, readAt: at('2026-06-02T04:00:00Z') }));
    expect(composeDigest(read, night)).toBeNull();
    const digest = composeDigest([...read, prMerged()], night);
    expect(digest).toMatchObject({ lines: ['1 PR merged'], itemCount: 1 });
  });

  it('says what happened, grouped by kind, most severe first, with the quiet hours in the header', () => {
    const items = [
      ...Array.from({ length: 14 }, prMerged),
      deployFailed({ status: 'info', resolvedAt: null }),
      outage({ status: 'resolved', firstAt: at('2026-06-01T23:10:00Z'), resolvedAt: at('2026-06-01T23:30:00Z') }),
      deployFailed({ status: 'info', resolvedAt: null }),
    ];
    expect(composeDigest(items, night)).toEqual({
      title: 'While quiet hours were on (22:00–07:00): 2 deploys failed, 1 outage resolved after 20 min, 14 PRs merged',
      lines: ['2 deploys failed', '1 outage resolved after 20 min', '14 PRs merged'],
      itemCount: 17,
    });
  });

  it('Q4/Q5: puts subjects still open first, with the local time they started', () => {
    const digest = composeDigest(
      [
        prMerged(),
        outage({ status: 'resolved', firstAt: at('2026-06-01T23:10:00Z'), resolvedAt: at('2026-06-01T23:30:00Z') }),
        outage({ status: 'open', firstAt: at('2026-06-02T00:14:00Z') }),
        deployFailed({ status: 'open', title: 'Deploy failed: web (production)', severity: 'warning', firstAt: at('2026-06-01T21:00:00Z') }),
      ],
      night,
    );
    expect(digest?.lines).toEqual([
      'Monitor down: API — still down since 02:14',
      'Deploy failed: web (production) — still failing since 23:00',
      '1 outage resolved after 20 min',
      '1 PR merged',
    ]);
    expect(digest?.title).toBe('While quiet hours were on (22:00–07:00): 2 still open, 1 outage resolved after 20 min, 1 PR merged');
  });

  it('names the day of a subject open for more than a day', () => {
    const digest = composeDigest([outage({ status: 'open', firstAt: at('2026-05-29T21:50:00Z') })], night);
    expect(digest?.lines).toEqual(['Monitor down: API — still down since Fri 23:50']);
  });

  it('gives the longest recovery when several of a kind resolved', () => {
    const digest = composeDigest(
      [
        outage({ status: 'resolved', resolvedAt: at('2026-06-01T22:05:00Z') }),
        outage({ status: 'resolved', resolvedAt: at('2026-06-01T23:15:00Z') }),
        deployFailed({ resolvedAt: at('2026-06-01T22:00:48Z') }),
      ],
      night,
    );
    expect(digest?.lines).toEqual(['2 outages resolved within 1 h 15 min', '1 deploy failed, fixed after 48 s']);
  });

  it('counts a thread held twice (its trigger and its resolve) once, with its last state', () => {
    const down = outage({ status: 'open' });
    const up = { ...down, status: 'resolved' as const, resolvedAt: down.firstAt + minutes(20) };
    expect(composeDigest([down, up], night)).toMatchObject({ lines: ['1 outage resolved after 20 min'], itemCount: 1 });
  });

  it('counts unknown types per service, the most severe first', () => {
    const digest = composeDigest(
      [
        item({ integration: 'error_tracker', type: 'error.regression', severity: 'warning' }),
        item({ integration: 'error_tracker', type: 'error.regression' }),
        item({ integration: 'error_tracker', type: 'error.spike' }),
        item({ integration: 'payments', type: 'charge.failed', severity: 'error' }),
        item({ type: 'star.created' }),
      ],
      night,
    );
    expect(digest?.lines).toEqual(['1 payments event', '3 Sentry events', '1 new star']);
  });

  it('keeps titles as plain text; escaping is the email and browser layers’ job', () => {
    const digest = composeDigest([outage({ status: 'open', title: '<script>alert(1)</script> & "API"', firstAt: at('2026-06-01T22:00:00Z') })], night);
    expect(digest?.lines).toEqual(['<script>alert(1)</script> & "API" — still down since 00:00']);
  });

  it('says "paused" for a pause, with weekdays when it spans a day or more, in the given zone', () => {
    const digest = composeDigest([prMerged()], {
      periods: [{ kind: 'pause', start: at('2026-06-05T16:30:00Z'), end: at('2026-06-08T01:30:00Z') }],
      timezone: 'Asia/Kolkata',
    });
    expect(digest?.title).toBe('While notifications were paused (Fri 22:00–Mon 07:00): 1 PR merged');
  });

  it('names a pause and quiet hours each with its own times when both held items back', () => {
    const digest = composeDigest([prMerged()], {
      periods: [
        { kind: 'pause', start: at('2026-06-01T19:00:00Z'), end: at('2026-06-01T21:00:00Z') },
        { kind: 'quiet_hours', start: at('2026-06-01T20:00:00Z'), end: at('2026-06-02T05:00:00Z') },
      ],
      timezone: 'Europe/Berlin',
    });
    expect(digest?.title).toBe('While notifications were paused (21:00–23:00) and quiet hours were on (22:00–07:00): 1 PR merged');
  });
});

describe('formatDuration', () => {
  it('reads as people say it', () => {
    expect([48_000, minutes(20), minutes(60), minutes(65), minutes(60 * 27), minutes(60 * 48)].map(formatDuration)).toEqual([
      '48 s',
      '20 min',
      '1 h',
      '1 h 5 min',
      '1 d 3 h',
      '2 d',
    ]);
  });
});
