import { describe, expect, it } from 'vitest';
import { bytes, errorOf, eventsOf, headers, itHoldsTheSignatureContract, receivedAt } from '../testing.ts';
import { commentCreated, cycleCreated, issueCreated, issueRemoved, issueUpdated, knownAnswerBody, knownAnswerSignature, project } from './fixtures.ts';
import { linear } from './index.ts';

const parse = (body: string, delivery = 'd7c5a7e2-4c84-4c07-9d0f-6f1f0f7b8a11') =>
  linear.parse(bytes(body), headers({ 'linear-delivery': delivery, 'linear-event': 'ignored-in-favour-of-the-body' }), receivedAt);

describe('Linear verify', () => {
  const verify = (body: string, signature: string, secret: string) => linear.verify(bytes(body), headers({ 'Linear-Signature': signature }), [secret]);

  it('verifies the SDK test body under the computed vector', () => {
    expect(verify(knownAnswerBody, knownAnswerSignature, 'SECRET')).toBe(true);
  });

  it('refuses near misses of the vector', () => {
    expect(verify(knownAnswerBody, knownAnswerSignature, 'secret')).toBe(false);
    expect(verify(knownAnswerBody.replace('1700000000000', '1700000000001'), knownAnswerSignature, 'SECRET')).toBe(false);
    expect(verify(knownAnswerBody, `sha256=${knownAnswerSignature}`, 'SECRET')).toBe(false);
  });

  itHoldsTheSignatureContract({ provider: linear, header: 'linear-signature', algorithm: 'sha256', body: issueCreated() });
});

describe('Linear identify', () => {
  it('takes Linear-Delivery and the signed webhookTimestamp from the body', () => {
    expect(linear.identify(bytes(knownAnswerBody), headers({ 'Linear-Delivery': 'd-9' }))).toEqual({ deliveryId: 'd-9', timestamp: 1_700_000_000_000 });
  });

  it('prefers the body timestamp to the linear-timestamp header, and uses the header when the body has none', () => {
    expect(linear.identify(bytes(knownAnswerBody), headers({ 'linear-timestamp': '1600000000000' })).timestamp).toBe(1_700_000_000_000);
    expect(linear.identify(bytes('{"action":"create"}'), headers({ 'linear-timestamp': '1600000000000' })).timestamp).toBe(1_600_000_000_000);
    expect(linear.identify(bytes('{"webhookTimestamp":"soon"}'), headers({ 'linear-timestamp': 'later' }))).not.toHaveProperty('timestamp');
  });

  it('never fails: bad JSON gives the body hash and no timestamp', () => {
    expect(linear.identify(bytes('{"webhookTimestamp":'), headers())).toEqual({ deliveryId: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});

describe('Linear parse', () => {
  it('maps a created issue', () => {
    expect(parse(issueCreated())).toEqual({
      ok: true,
      events: [
        {
          integration: 'issue_tracker',
          type: 'issue.created',
          sourceEventId: 'linear:issue:0b8e3c1a-5f2d-4e6b-9a7c-8d1e2f3a4b5c:created:2026-04-29T09:00:00.000Z',
          title: 'ENG-123 created: Billing page',
          url: 'https://linear.app/acme/issue/ENG-123/billing-page',
          project: 'ENG',
          refs: ['issue_tracker:team-eng', 'issue_tracker:ENG'],
          severity: 'info',
          occurredAt: '2026-04-29T09:00:00.000Z',
          payload: {
            action: 'create',
            type: 'Issue',
            actor: { name: 'Jane Doe', type: 'user' },
            data: {
              identifier: 'ENG-123',
              priority: 2,
              priorityLabel: 'High',
              team: { key: 'ENG' },
              state: { name: 'Todo', type: 'unstarted' },
              labels: ['Bug'],
              assignee: { name: 'Jane Doe' },
            },
          },
        },
      ],
    });
  });

  it('maps updates, a move to a completed state being a success; two updates of one issue are two events', () => {
    const [first] = eventsOf(parse(issueUpdated('2026-04-30T12:00:00.000Z', { movedFrom: 'state-started' })));
    expect(first).toMatchObject({ type: 'issue.updated', title: 'ENG-123 moved to Done: Billing page', severity: 'success', occurredAt: '2026-04-30T12:00:00.000Z' });
    const [second] = eventsOf(parse(issueUpdated('2026-04-30T13:00:00.000Z')));
    expect(second).toMatchObject({ type: 'issue.updated', title: 'ENG-123 updated: Billing page', severity: 'info' });
    expect(second?.sourceEventId).not.toBe(first?.sourceEventId);
    const [started] = eventsOf(parse(issueUpdated('2026-04-30T14:00:00.000Z', { movedFrom: 'state-unstarted', state: { name: 'In Progress', type: 'started' } })));
    expect(started).toMatchObject({ title: 'ENG-123 moved to In Progress: Billing page', severity: 'info' });
  });

  it("carries the issue's fields for rules, and which ones an update changed", () => {
    const [moved] = eventsOf(parse(issueUpdated('2026-04-30T12:00:00.000Z', { movedFrom: 'state-started' })));
    expect(moved?.payload).toMatchObject({
      action: 'update',
      type: 'Issue',
      data: { priority: 2, team: { key: 'ENG' }, state: { name: 'Done', type: 'completed' }, labels: ['Bug'] },
      updatedFrom: { stateId: 'state-started' },
    });
    // Only the previous values rules may ask about; `updatedAt` and the rest stay out.
    const [reprioritised] = eventsOf(parse(issueUpdated('2026-04-30T13:00:00.000Z')));
    expect(reprioritised?.payload?.updatedFrom).toEqual({ priority: 3 });
    expect(eventsOf(parse(issueCreated()))[0]?.payload).not.toHaveProperty('updatedFrom');
  });

  it('never refuses an issue for a field only the payload reads', () => {
    const body = JSON.stringify({ action: 'create', type: 'Issue', data: { id: 'i1', title: 'T', priority: 'high', labels: [1, 2], assignee: 'me' }, actor: [] });
    expect(eventsOf(parse(body))[0]?.payload).toEqual({ action: 'create', type: 'Issue' });
  });

  it('maps a removed issue', () => {
    expect(eventsOf(parse(issueRemoved()))[0]).toMatchObject({ type: 'issue.removed', title: 'ENG-123 removed: Billing page', occurredAt: '2026-05-01T08:00:00.000Z' });
  });

  it('maps comments, including the SDK test body', () => {
    expect(eventsOf(parse(commentCreated()))[0]).toMatchObject({
      type: 'comment.created',
      sourceEventId: 'linear:comment:77217de3-fb52-4dad-bb9a-b356beb93de8:created:2026-04-30T10:00:00.000Z',
      title: 'Comment created on ENG-123: Shipped behind the flag.',
      url: 'https://linear.app/acme/issue/ENG-123/billing-page#comment-77217de3',
      project: 'ENG',
      severity: 'info',
    });
    expect(eventsOf(parse(commentCreated()))[0]?.payload).toEqual({ action: 'create', type: 'Comment', actor: { name: 'Jane Doe', type: 'user' }, data: { issue: { identifier: 'ENG-123' } } });
    expect(eventsOf(parse(knownAnswerBody))[0]).toMatchObject({ type: 'comment.created', title: 'Comment created: Indeed, I think this is definitely an improvement over the previous version.' });
  });

  it('maps projects', () => {
    expect(eventsOf(parse(project('create')))[0]).toMatchObject({ type: 'project.created', title: 'Project created: Q4 launch', project: 'Q4 launch', url: 'https://linear.app/acme/project/q4-launch-1a2b3c' });
    expect(eventsOf(parse(project('create')))[0]?.payload).toMatchObject({ action: 'create', type: 'Project', data: { name: 'Q4 launch', status: { name: 'In Progress', type: 'started' } } });
    expect(eventsOf(parse(project('update')))[0]?.type).toBe('project.updated');
    expect(eventsOf(parse(project('remove')))[0]?.type).toBe('project.removed');
  });

  it('tells the same entity apart by delivery when it has no update time', () => {
    const body = JSON.stringify({ action: 'update', type: 'Project', data: { id: 'p1', name: 'Q4 launch' } });
    const ids = ['delivery-1', 'delivery-2'].map((delivery) => eventsOf(parse(body, delivery))[0]?.sourceEventId);
    expect(ids).toEqual(['linear:project:p1:updated:delivery-1', 'linear:project:p1:updated:delivery-2']);
  });

  it('ignores other entity types and unknown actions', () => {
    expect(parse(cycleCreated)).toEqual({ ok: true, events: [] });
    expect(parse(issueCreated().replace('"action":"create"', '"action":"restore"'))).toEqual({ ok: true, events: [] });
    expect(parse('{"event":"something"}')).toEqual({ ok: true, events: [] });
  });

  it('refuses malformed JSON and the wrong shape for a type it shows', () => {
    expect(errorOf(parse('{"action":"create","type":"Issue",'))).toMatch(/JSON/);
    expect(errorOf(parse('{"action":"create","type":"Issue","data":{"id":"c"}}'))).toMatch(/data\.title/);
    expect(parse('{"type":"Project","data":{"id":"p1","name":"Q4"}}').ok).toBe(false);
  });
});
