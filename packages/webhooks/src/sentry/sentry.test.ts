import { describe, expect, it } from 'vitest';
import { bytes, errorOf, eventsOf, headers, itHoldsTheSignatureContract, receivedAt } from '../testing.ts';
import { error, installationCreated, issue, knownAnswerBody, knownAnswerSignature } from './fixtures.ts';
import { sentry } from './index.ts';

const SECRET = "It's a Secret to Everybody";
const parse = (resource: string, body: string) => sentry.parse(bytes(body), headers({ 'Sentry-Hook-Resource': resource }), receivedAt);

describe('Sentry verify', () => {
  const verify = (body: string, signature: string) => sentry.verify(bytes(body), headers({ 'sentry-hook-signature': signature }), [SECRET]);

  it('verifies the computed vector over the compact body Sentry sends', () => {
    expect(verify(knownAnswerBody, knownAnswerSignature)).toBe(true);
  });

  it('refuses the same JSON re-serialized with whitespace, as a relay that re-stringifies would send it', () => {
    const pretty = JSON.stringify(JSON.parse(knownAnswerBody), null, 2);
    expect(verify(pretty, knownAnswerSignature)).toBe(false);
    expect(verify(knownAnswerBody, `sha256=${knownAnswerSignature}`)).toBe(false);
  });

  itHoldsTheSignatureContract({ provider: sentry, header: 'Sentry-Hook-Signature', algorithm: 'sha256', body: issue('created') });
});

describe('Sentry identify', () => {
  it('identifies by the body hash (Request-ID changes on every send) and reads the timestamp in seconds', () => {
    const identity = sentry.identify(bytes(knownAnswerBody), headers({ 'sentry-hook-timestamp': '1700000000', 'request-id': 'f0e1d2c3b4a5968778695a4b3c2d1e0f' }));
    expect(identity).toEqual({ deliveryId: expect.stringMatching(/^[0-9a-f]{64}$/), timestamp: 1_700_000_000_000 });
    const resent = sentry.identify(bytes(knownAnswerBody), headers({ 'request-id': '0123456789abcdef0123456789abcdef' }));
    expect(resent.deliveryId).toBe(identity.deliveryId);
  });

  it('sends no timestamp when the header is missing, empty or not whole seconds', () => {
    for (const value of [undefined, '', 'soon', '1700000000.5', '-1']) {
      const bag = headers(value === undefined ? {} : { 'sentry-hook-timestamp': value });
      expect(sentry.identify(bytes('{}'), bag), String(value)).not.toHaveProperty('timestamp');
    }
  });
});

describe('Sentry parse', () => {
  it('maps a created issue', () => {
    expect(parse('issue', issue('created'))).toEqual({
      ok: true,
      events: [
        {
          integration: 'error_tracker',
          type: 'error.issue_created',
          sourceEventId: 'sentry:issue:1170820242:created',
          title: 'New issue FRONT-END-9: ReferenceError: blooopy is not defined',
          url: 'https://sentry.io/organizations/test-org/issues/1170820242/',
          project: 'front-end',
          refs: ['error_tracker:front-end'],
          subject: 'sentry:issue:1170820242',
          transition: 'trigger',
          severity: 'error',
          occurredAt: '2019-08-19T20:58:37.391Z',
          payload: {
            action: 'created',
            data: {
              issue: {
                id: '1170820242',
                shortId: 'FRONT-END-9',
                level: 'error',
                status: 'unresolved',
                substatus: 'new',
                culprit: '?(runner)',
                userCount: 1,
                project: { slug: 'front-end' },
              },
            },
          },
        },
      ],
    });
  });

  it('maps a resolved issue, telling a second resolution after a regression from the first', () => {
    const [first] = eventsOf(parse('issue', issue('resolved')));
    expect(first).toMatchObject({
      type: 'error.issue_resolved',
      title: 'Resolved FRONT-END-9: ReferenceError: blooopy is not defined',
      severity: 'success',
      occurredAt: receivedAt.toISOString(),
      subject: 'sentry:issue:1170820242',
      transition: 'resolve',
    });
    expect(first?.payload).toMatchObject({ action: 'resolved', data: { issue: { status: 'resolved', level: 'error', project: { slug: 'front-end' } } } });
    const [second] = eventsOf(parse('issue', issue('resolved', '2019-09-01T10:00:00.000000Z')));
    expect(second?.sourceEventId).not.toBe(first?.sourceEventId);
  });

  it('ignores the other issue actions', () => {
    for (const action of ['assigned', 'archived', 'unresolved', 'ignored']) expect(eventsOf(parse('issue', issue(action)))).toEqual([]);
  });

  it('maps a created error, its severity from its level and its project from its API address', () => {
    expect(eventsOf(parse('error', error('error')))).toEqual([
      {
        integration: 'error_tracker',
        type: 'error.created',
        sourceEventId: 'sentry:error:e4874d664c3540c1a32eab185f12c5ab',
        title: "Error in front-end: TypeError: Cannot read property 'length' of undefined",
        url: 'https://sentry.io/organizations/test-org/issues/1117540176/events/e4874d664c3540c1a32eab185f12c5ab/',
        project: 'front-end',
        refs: ['error_tracker:front-end'],
        severity: 'error',
        occurredAt: '2019-08-19T20:58:37.391Z',
        payload: {
          action: 'created',
          data: {
            error: {
              event_id: 'e4874d664c3540c1a32eab185f12c5ab',
              issue_id: '1117540176',
              level: 'error',
              culprit: 'app/components/list',
              platform: 'javascript',
              release: null,
            },
          },
        },
      },
    ]);
    expect(eventsOf(parse('error', error('fatal')))[0]?.severity).toBe('error');
    expect(eventsOf(parse('error', error('warning')))[0]).toMatchObject({ severity: 'warning', title: expect.stringMatching(/^Warning in front-end/) });
    expect(eventsOf(parse('error', error('info')))[0]?.severity).toBe('info');
  });

  it('never refuses an issue for a field only the payload reads', () => {
    const body = JSON.stringify({ action: 'created', data: { issue: { id: 7, title: 'Boom', culprit: { frame: 1 }, userCount: '12', status: 'unresolved' } } });
    expect(eventsOf(parse('issue', body))[0]?.payload).toEqual({ action: 'created', data: { issue: { id: '7', status: 'unresolved' } } });
  });

  it('ignores other resources and a missing resource header', () => {
    expect(parse('installation', installationCreated)).toEqual({ ok: true, events: [] });
    expect(parse('metric_alert', '{"action":"critical","data":{}}')).toEqual({ ok: true, events: [] });
    expect(sentry.parse(bytes(issue('created')), headers(), receivedAt)).toEqual({ ok: true, events: [] });
  });

  it('refuses malformed JSON and the wrong shape for issue and error', () => {
    expect(errorOf(parse('issue', '{"action":'))).toMatch(/JSON/);
    expect(errorOf(parse('comment', '{"action":'))).toMatch(/JSON/);
    expect(errorOf(parse('issue', knownAnswerBody))).toMatch(/data\.issue\.title/);
    expect(parse('error', issue('created')).ok).toBe(false);
  });
});
