/**
 * From sentry-docs `integration-platform/webhooks/{issues,errors}.mdx`, trimmed, serialized compactly
 * the way Sentry sends them (its json.dumps has no whitespace).
 */

/** The research's computed known-answer body (HMAC-SHA256 under "It's a Secret to Everybody"). */
export const knownAnswerBody =
  '{"action":"created","installation":{"uuid":"a8e5d37a-696c-4c54-adb5-b3f28d64c7de"},"data":{"issue":{"id":"1170820242","shortId":"FRONT-END-9","status":"unresolved"}},"actor":{"type":"application","id":"sentry","name":"Sentry"}}';
export const knownAnswerSignature = '9f992e4e9d9eec9be0b7a1c302bb31acc22db458704f13eb46d4a65359359af8';

const installation = { uuid: 'a8e5d37a-696c-4c54-adb5-b3f28d64c7de' };

export function issue(action: string, lastSeen = '2019-08-19T20:58:37.391000Z'): string {
  const resolved = action === 'resolved';
  return JSON.stringify({
    action,
    actor: resolved ? { type: 'user', id: 1, name: 'Jane' } : { id: 'sentry', name: 'Sentry', type: 'application' },
    data: {
      issue: {
        id: '1170820242',
        shortId: 'FRONT-END-9',
        title: 'ReferenceError: blooopy is not defined',
        culprit: '?(runner)',
        level: 'error',
        status: resolved ? 'resolved' : 'unresolved',
        substatus: resolved ? null : 'new',
        statusDetails: resolved ? { inNextRelease: true } : {},
        project: { id: '1', name: 'front-end', slug: 'front-end', platform: '' },
        firstSeen: '2019-08-19T20:58:37.391000Z',
        lastSeen,
        count: '1',
        userCount: 1,
        metadata: { type: 'ReferenceError', value: 'blooopy is not defined', filename: '/runner' },
        url: 'https://sentry.io/api/0/organizations/test-org/issues/1170820242/',
        web_url: 'https://sentry.io/organizations/test-org/issues/1170820242/',
        project_url: 'https://sentry.io/organizations/test-org/issues/?project=1',
      },
    },
    installation,
  });
}

export function error(level: string, action = 'created'): string {
  return JSON.stringify({
    action,
    actor: { id: 'sentry', name: 'Sentry', type: 'application' },
    data: {
      error: {
        event_id: 'e4874d664c3540c1a32eab185f12c5ab',
        issue_id: '1117540176',
        issue_url: 'https://sentry.io/api/0/issues/1117540176/',
        url: 'https://sentry.io/api/0/projects/test-org/front-end/events/e4874d664c3540c1a32eab185f12c5ab/',
        web_url: 'https://sentry.io/organizations/test-org/issues/1117540176/events/e4874d664c3540c1a32eab185f12c5ab/',
        title: "TypeError: Cannot read property 'length' of undefined",
        level,
        culprit: 'app/components/list',
        datetime: '2019-08-19T20:58:37.391000Z',
        platform: 'javascript',
        project: 1,
        release: null,
        tags: [['level', level]],
        exception: { values: [{ type: 'TypeError', value: "Cannot read property 'length' of undefined" }] },
      },
    },
    installation,
  });
}

export const installationCreated = JSON.stringify({
  action: 'created',
  actor: { type: 'user', id: 1, name: 'Jane' },
  data: { installation: { uuid: installation.uuid, status: 'installed', organization: { slug: 'test-org' } } },
  installation,
});
