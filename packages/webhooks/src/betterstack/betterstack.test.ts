import { describe, expect, it } from 'vitest';
import { bytes, errorOf, eventsOf, headers, receivedAt } from '../testing.ts';
import { incident, monitorUpdated } from './fixtures.ts';
import { betterstack } from './index.ts';

const parse = (body: string) => betterstack.parse(bytes(body), headers(), receivedAt);

describe('Better Stack verify', () => {
  const body = bytes(incident('started'));
  const verify = (entries: Record<string, string>, secrets: readonly string[] = ['tok-3f9a']) => betterstack.verify(body, headers(entries), secrets);

  it('accepts the token in x-betterstack-token or as a bearer', () => {
    expect(verify({ 'x-betterstack-token': 'tok-3f9a' })).toBe(true);
    expect(verify({ Authorization: 'Bearer tok-3f9a' })).toBe(true);
    expect(verify({ authorization: 'bearer tok-3f9a' })).toBe(true);
  });

  it('accepts any token of a rotation list', () => {
    expect(verify({ authorization: 'Bearer tok-3f9a' }, ['', 'tok-new', 'tok-3f9a'])).toBe(true);
  });

  it('refuses near misses, a missing token and empty secrets', () => {
    const misses: Record<string, string>[] = [
      { 'x-betterstack-token': 'tok-3f9' },
      { 'x-betterstack-token': 'tok-3f9ab' },
      { 'x-betterstack-token': 'TOK-3F9A' },
      { authorization: 'Bearer tok-3f9' },
      { authorization: 'Basic tok-3f9a' },
      { authorization: 'tok-3f9a' },
      { authorization: 'Bearer ' },
      { 'x-betterstack-token': '' },
      {},
    ];
    for (const entries of misses) expect(verify(entries), JSON.stringify(entries)).toBe(false);
    expect(verify({ 'x-betterstack-token': '' }, [''])).toBe(false);
    expect(verify({ 'x-betterstack-token': 'tok-3f9a' }, [])).toBe(false);
  });

  it('is not fooled by a wrong value in one place when the right one is in the other', () => {
    expect(verify({ 'x-betterstack-token': 'nope', authorization: 'Bearer tok-3f9a' })).toBe(true);
  });
});

describe('Better Stack identify', () => {
  it('identifies by the body hash, with no timestamp, whatever the body', () => {
    expect(betterstack.identify(bytes(incident('started')), headers())).toEqual({ deliveryId: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(betterstack.identify(bytes('not json'), headers()).deliveryId).toMatch(/^[0-9a-f]{64}$/);
    expect(betterstack.identify(bytes(incident('started')), headers()).deliveryId).not.toBe(betterstack.identify(bytes(incident('resolved')), headers()).deliveryId);
  });
});

describe('Better Stack parse', () => {
  it('turns a started incident into monitor.down', () => {
    expect(parse(incident('started'))).toEqual({
      ok: true,
      events: [
        {
          integration: 'uptime_monitor',
          type: 'monitor.down',
          sourceEventId: 'betterstack:incident:1:started:2020-10-21T10:51:28.151Z',
          title: 'Monitor down: Tesla.com homepage (Error 500)',
          url: 'https://tesla.com',
          project: 'Tesla.com homepage',
          refs: ['uptime_monitor:4'],
          subject: 'betterstack:monitor:4',
          transition: 'trigger',
          severity: 'error',
          occurredAt: '2020-10-21T10:51:28.151Z',
          payload: {
            event: 'started',
            data: {
              id: '1',
              attributes: { name: 'Tesla.com homepage', url: 'https://tesla.com', cause: 'Error 500' },
              relationships: { monitor: { data: { id: '4' } } },
            },
          },
        },
      ],
    });
  });

  it('turns acknowledged into a warning and resolved into monitor.up, at their own times', () => {
    expect(eventsOf(parse(incident('acknowledged')))[0]).toMatchObject({
      type: 'monitor.acknowledged',
      title: 'Incident acknowledged: Tesla.com homepage',
      severity: 'warning',
      occurredAt: '2020-10-21T10:55:45.768Z',
    });
    expect(eventsOf(parse(incident('resolved')))[0]).toMatchObject({
      type: 'monitor.up',
      sourceEventId: 'betterstack:incident:1:resolved:2020-10-21T11:02:10.000Z',
      title: 'Monitor up: Tesla.com homepage',
      severity: 'success',
      occurredAt: '2020-10-21T11:02:10.000Z',
      // The recovery names the same monitor as the outage, so the two read as one story.
      subject: 'betterstack:monitor:4',
      transition: 'resolve',
    });
    expect(eventsOf(parse(incident('acknowledged')))[0]).not.toHaveProperty('transition');
  });

  it('keeps two outages of one monitor, and the down and up of one incident, apart', () => {
    const ids = [incident('started'), incident('started', { id: '2' }), incident('resolved')].map((body) => eventsOf(parse(body))[0]?.sourceEventId);
    expect(new Set(ids).size).toBe(3);
  });

  it('turns a reopening into monitor.down again, distinct from the first start', () => {
    const [reopened] = eventsOf(parse(incident('reopened')));
    expect(reopened).toMatchObject({ type: 'monitor.down', title: 'Monitor down again: Tesla.com homepage', severity: 'error' });
    expect(reopened?.sourceEventId).not.toBe(eventsOf(parse(incident('started')))[0]?.sourceEventId);
  });

  it('reads the state of API-shaped incidents without an event from status, else from the times set', () => {
    expect(eventsOf(parse(incident('resolved', { omitEvent: true, status: 'Resolved' })))[0]?.type).toBe('monitor.up');
    expect(eventsOf(parse(incident('acknowledged', { omitEvent: true })))[0]?.type).toBe('monitor.acknowledged');
    expect(eventsOf(parse(incident('started', { omitEvent: true })))[0]?.type).toBe('monitor.down');
    expect(eventsOf(parse(incident('started', { omitEvent: true, status: 'Validating' })))).toEqual([]);
  });

  it("carries the incident's fields for rules, in Better Stack's nesting", () => {
    expect(eventsOf(parse(incident('resolved')))[0]?.payload).toMatchObject({ event: 'resolved', data: { attributes: { name: 'Tesla.com homepage', cause: 'Error 500' } } });
    // API-shaped bodies have no event, but a status.
    const [api] = eventsOf(parse(incident('resolved', { omitEvent: true, status: 'Resolved' })));
    expect(api?.payload).not.toHaveProperty('event');
    expect(api?.payload).toMatchObject({ data: { attributes: { status: 'Resolved' }, relationships: { monitor: { data: { id: '4' } } } } });
  });

  it('names the monitor by its host when the incident has no name', () => {
    const body = JSON.stringify({ event: 'started', data: { id: 7, type: 'incident', attributes: { url: 'https://api.example.com/health', started_at: '2026-01-01T00:00:00Z' } } });
    expect(eventsOf(parse(body))[0]).toMatchObject({ title: 'Monitor down: api.example.com', sourceEventId: 'betterstack:incident:7:started:2026-01-01T00:00:00.000Z' });
  });

  it('ignores monitor and on-call webhooks and unknown incident events', () => {
    expect(parse(monitorUpdated)).toEqual({ ok: true, events: [] });
    expect(parse('{"data":{"id":"1","type":"on_call_calendar","attributes":{}}}')).toEqual({ ok: true, events: [] });
    expect(parse(incident('started').replace('"event":"started"', '"event":"commented"'))).toEqual({ ok: true, events: [] });
  });

  it('refuses malformed JSON and an incident of the wrong shape', () => {
    expect(errorOf(parse('[1,2'))).toMatch(/JSON/);
    expect(errorOf(parse('{"event":"started","data":{"type":"incident","attributes":{}}}'))).toMatch(/data\.id/);
    expect(parse('{"event":"started","data":{"id":"1","type":"incident"}}').ok).toBe(false);
  });
});
