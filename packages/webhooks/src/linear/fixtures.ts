/** Shaped after `EntityWebhookPayload` in @linear/sdk's schema.graphql; serialized compactly as Linear sends them. */

/** The @linear/sdk test body with `webhookTimestamp`, signed with "SECRET" (the research's computed vector). */
export const knownAnswerBody =
  '{"action":"create","data":{"id":"2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9","createdAt":"2020-01-23T12:53:18.084Z","updatedAt":"2020-01-23T12:53:18.084Z","archivedAt":null,"body":"Indeed, I think this is definitely an improvement over the previous version.","edited":false,"issueId":"539068e2-ae88-4d09-bd75-22eb4a59612f","userId":"aacdca22-6266-4c0a-ab3c-8fa70a26765c"},"type":"Comment","url":"https://linear.app/issue/LIN-1778/foo-bar#comment-77217de3-fb52-4dad-bb9a-b356beb93de8","createdAt":"2020-01-23T12:53:18.084Z","webhookTimestamp":1700000000000}';
export const knownAnswerSignature = '9c34e3128d6cd5e6599e7f719eb87d4f6003c713d153ba2bb2e35ae13a654459';

const envelope = {
  actor: { id: 'aacdca22-6266-4c0a-ab3c-8fa70a26765c', name: 'Jane Doe', type: 'user' },
  organizationId: 'd7a9b6e1-2c3f-4a5b-8c9d-0e1f2a3b4c5d',
  webhookId: '6f2a7c3e-9d41-4b8e-a5f0-1c2d3e4f5a6b',
};

const issueData = (updatedAt: string, state: { name: string; type: string }) => ({
  id: '0b8e3c1a-5f2d-4e6b-9a7c-8d1e2f3a4b5c',
  identifier: 'ENG-123',
  number: 123,
  title: 'Billing page',
  priority: 2,
  priorityLabel: 'High',
  stateId: `state-${state.type}`,
  state: { id: `state-${state.type}`, name: state.name, type: state.type, color: '#5e6ad2' },
  teamId: 'team-eng',
  team: { id: 'team-eng', key: 'ENG', name: 'Engineering' },
  labelIds: ['label-bug'],
  labels: [{ id: 'label-bug', name: 'Bug', color: '#eb5757' }],
  assignee: { id: 'aacdca22-6266-4c0a-ab3c-8fa70a26765c', name: 'Jane Doe' },
  createdAt: '2026-04-29T09:00:00.000Z',
  updatedAt,
  url: 'https://linear.app/acme/issue/ENG-123/billing-page',
});

export function issueCreated(): string {
  return JSON.stringify({
    ...envelope,
    action: 'create',
    type: 'Issue',
    createdAt: '2026-04-29T09:00:00.000Z',
    data: issueData('2026-04-29T09:00:00.000Z', { name: 'Todo', type: 'unstarted' }),
    url: 'https://linear.app/acme/issue/ENG-123/billing-page',
    webhookTimestamp: 1777453200000,
  });
}

/** An update; `movedFrom` makes it a state change, as Linear sends it in `updatedFrom.stateId`. */
export function issueUpdated(updatedAt: string, options: { movedFrom?: string; state?: { name: string; type: string } } = {}): string {
  return JSON.stringify({
    ...envelope,
    action: 'update',
    type: 'Issue',
    createdAt: updatedAt,
    data: issueData(updatedAt, options.state ?? { name: 'Done', type: 'completed' }),
    updatedFrom: options.movedFrom ? { stateId: options.movedFrom, updatedAt: '2026-04-29T09:00:00.000Z' } : { priority: 3, updatedAt: '2026-04-29T09:00:00.000Z' },
    url: 'https://linear.app/acme/issue/ENG-123/billing-page',
    webhookTimestamp: Date.parse(updatedAt),
  });
}

export function issueRemoved(): string {
  return JSON.stringify({
    ...envelope,
    action: 'remove',
    type: 'Issue',
    createdAt: '2026-05-01T08:00:00.000Z',
    data: { ...issueData('2026-04-30T12:00:00.000Z', { name: 'Canceled', type: 'canceled' }), archivedAt: '2026-05-01T08:00:00.000Z' },
    url: 'https://linear.app/acme/issue/ENG-123/billing-page',
    webhookTimestamp: 1777622400000,
  });
}

export function commentCreated(): string {
  return JSON.stringify({
    ...envelope,
    action: 'create',
    type: 'Comment',
    createdAt: '2026-04-30T10:00:00.000Z',
    data: {
      id: '77217de3-fb52-4dad-bb9a-b356beb93de8',
      body: 'Shipped behind the flag.\nWill enable tomorrow.',
      issueId: '0b8e3c1a-5f2d-4e6b-9a7c-8d1e2f3a4b5c',
      issue: { id: '0b8e3c1a-5f2d-4e6b-9a7c-8d1e2f3a4b5c', identifier: 'ENG-123', title: 'Billing page', url: 'https://linear.app/acme/issue/ENG-123/billing-page' },
      userId: 'aacdca22-6266-4c0a-ab3c-8fa70a26765c',
      createdAt: '2026-04-30T10:00:00.000Z',
      updatedAt: '2026-04-30T10:00:00.000Z',
    },
    url: 'https://linear.app/acme/issue/ENG-123/billing-page#comment-77217de3',
    webhookTimestamp: 1777543200000,
  });
}

export function project(action: 'create' | 'update' | 'remove'): string {
  return JSON.stringify({
    ...envelope,
    action,
    type: 'Project',
    createdAt: '2026-04-30T11:00:00.000Z',
    data: {
      id: 'a3c1e5f7-2b4d-4f6a-8c0e-1d3f5a7b9c2e',
      name: 'Q4 launch',
      slugId: 'q4-launch-1a2b3c',
      url: 'https://linear.app/acme/project/q4-launch-1a2b3c',
      status: { name: 'In Progress', type: 'started' },
      teamIds: ['team-eng'],
      createdAt: '2026-04-01T09:00:00.000Z',
      updatedAt: '2026-04-30T11:00:00.000Z',
    },
    url: 'https://linear.app/acme/project/q4-launch-1a2b3c',
    webhookTimestamp: 1777546800000,
  });
}

export const cycleCreated = JSON.stringify({
  ...envelope,
  action: 'create',
  type: 'Cycle',
  createdAt: '2026-04-30T11:00:00.000Z',
  data: { id: 'c1', number: 12, startsAt: '2026-05-04T00:00:00.000Z', endsAt: '2026-05-18T00:00:00.000Z' },
  webhookTimestamp: 1777546800000,
});
