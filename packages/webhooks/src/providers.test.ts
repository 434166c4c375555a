import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { betterstack, github, linear, sentry, vercel } from './index.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const headers = (entries: Record<string, string>) => new Headers(entries);
const at = new Date('2026-11-22T12:00:00.000Z');
const SECRET = "It's a Secret to Everybody";
const sign = (algorithm: 'sha1' | 'sha256', secret: string, body: string) => createHmac(algorithm, secret).update(body).digest('hex');

describe('GitHub', () => {
  const merged = JSON.stringify({
    action: 'closed',
    number: 2,
    pull_request: {
      number: 2,
      state: 'closed',
      title: 'Update the README with new information.',
      html_url: 'https://github.com/Codertocat/Hello-World/pull/2',
      merged: true,
      merged_at: '2019-05-15T15:21:18Z',
      closed_at: '2019-05-15T15:21:18Z',
    },
    repository: { full_name: 'Codertocat/Hello-World' },
    sender: { login: 'Codertocat' },
  });
  const delivery = (event: string, body: string) =>
    headers({ 'x-github-event': event, 'x-github-delivery': 'abc-1', 'x-hub-signature-256': `sha256=${sign('sha256', SECRET, body)}` });

  it("verifies GitHub's published vector and refuses near misses", () => {
    const body = bytes('Hello, World!');
    const good = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(github.verify(body, headers({ 'x-hub-signature-256': good }), [SECRET])).toBe(true);
    expect(github.verify(bytes('Hello, World?'), headers({ 'x-hub-signature-256': good }), [SECRET])).toBe(false);
    expect(github.verify(body, headers({ 'x-hub-signature-256': good }), ['wrong'])).toBe(false);
    expect(github.verify(body, headers({ 'x-hub-signature-256': good.slice(0, -2) }), [SECRET])).toBe(false);
    expect(github.verify(body, headers({ 'x-hub-signature-256': 'sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59' }), [SECRET])).toBe(false);
    expect(github.verify(body, headers({}), [SECRET])).toBe(false);
  });

  it('verifies the octokit vectors byte for byte', () => {
    const compact = bytes('{"foo":"bar"}');
    const pretty = bytes(`${JSON.stringify({ foo: 'bar' }, null, 2)}\n`);
    expect(github.verify(compact, headers({ 'x-hub-signature-256': 'sha256=4864d2759938a15468b5df9ade20bf161da9b4f737ea61794142f3484236bda3' }), ['mysecret'])).toBe(true);
    expect(github.verify(pretty, headers({ 'x-hub-signature-256': 'sha256=e3eccac34c43c7dc1cbb905488b1b81347fcc700a7b025697a9d07862256023f' }), ['mysecret'])).toBe(true);
  });

  it('maps a merged pull request, with the delivery id from X-GitHub-Delivery', () => {
    expect(github.identify(bytes(merged), delivery('pull_request', merged))).toEqual({ deliveryId: 'abc-1' });
    expect(github.parse(bytes(merged), delivery('pull_request', merged), at)).toEqual({
      ok: true,
      events: [
        {
          integration: 'code_host',
          type: 'pr.merged',
          sourceEventId: 'github:Codertocat/Hello-World:pr:2:merged',
          title: 'PR #2 merged: Update the README with new information.',
          url: 'https://github.com/Codertocat/Hello-World/pull/2',
          project: 'Codertocat/Hello-World',
          repo: 'Codertocat/Hello-World',
          severity: 'success',
          occurredAt: '2019-05-15T15:21:18Z',
        },
      ],
    });
  });

  it('tells opened, merged and closed-unmerged apart, and ignores other actions', () => {
    const pr = (action: string, isMerged: boolean) =>
      JSON.stringify({ action, repository: { full_name: 'a/b' }, pull_request: { number: 1, title: 't', html_url: 'u', merged: isMerged } });
    const typeOf = (body: string) => {
      const result = github.parse(bytes(body), delivery('pull_request', body), at);
      return result.ok ? result.events.map((e) => e.type) : result.error;
    };
    expect(typeOf(pr('opened', false))).toEqual(['pr.opened']);
    expect(typeOf(pr('closed', false))).toEqual(['pr.closed']);
    expect(typeOf(pr('closed', true))).toEqual(['pr.merged']);
    expect(typeOf(pr('labeled', false))).toEqual([]);
  });

  it('maps issues, releases, deployment statuses and stars', () => {
    const repository = { full_name: 'acme/app', html_url: 'https://github.com/acme/app', stargazers_count: 7 };
    const cases: [string, unknown, string][] = [
      ['issues', { action: 'opened', repository, issue: { number: 1, title: 'Spelling error', html_url: 'u', updated_at: '2026-01-01T00:00:00Z' } }, 'issue.opened'],
      ['release', { action: 'published', repository, release: { id: 17372790, tag_name: '0.0.1', name: null, html_url: 'u' } }, 'release.published'],
      ['deployment_status', { repository, deployment_status: { id: 9, state: 'failure', environment: 'production' }, deployment: { id: 3 } }, 'deploy.failure'],
      ['star', { action: 'created', repository, starred_at: '2019-05-15T15:20:40Z', sender: { login: 'octocat' } }, 'star.created'],
    ];
    for (const [event, payload, type] of cases) {
      const body = JSON.stringify(payload);
      const result = github.parse(bytes(body), delivery(event, body), at);
      expect(result.ok && result.events[0]?.type, event).toBe(type);
    }
    const failed = JSON.stringify(cases[2]![1]);
    const result = github.parse(bytes(failed), delivery('deployment_status', failed), at);
    expect(result.ok && result.events[0]?.severity).toBe('error');
  });

  it('answers ping with no events, and malformed JSON or a wrong shape with an error', () => {
    expect(github.parse(bytes('{"zen":"Design for failure."}'), delivery('ping', ''), at)).toEqual({ ok: true, events: [] });
    expect(github.parse(bytes('{"zen":'), delivery('ping', ''), at).ok).toBe(false);
    expect(github.parse(bytes('{not json'), delivery('pull_request', ''), at).ok).toBe(false);
    expect(github.parse(bytes('{"action":"opened"}'), delivery('pull_request', ''), at).ok).toBe(false);
  });
});

describe('Vercel', () => {
  const kat = '{"id":"evt_test","type":"deployment.succeeded","createdAt":1700000000000,"payload":{"deployment":{"id":"dpl_test"}}}';

  it('verifies the computed HMAC-SHA1 vectors', () => {
    expect(vercel.verify(bytes(kat), headers({ 'x-vercel-signature': 'fd98bf073fab4c6c49a0688486282c81420e6eb5' }), [SECRET])).toBe(true);
    expect(vercel.verify(bytes('Hello, World!'), headers({ 'x-vercel-signature': '01dc10d0c83e72ed246219cdd91669667fe2ca59' }), [SECRET])).toBe(true);
    expect(vercel.verify(bytes(`${kat} `), headers({ 'x-vercel-signature': 'fd98bf073fab4c6c49a0688486282c81420e6eb5' }), [SECRET])).toBe(false);
  });

  it('takes the delivery id from the body, falling back to its hash when the body is not JSON', () => {
    expect(vercel.identify(bytes(kat), headers({}))).toEqual({ deliveryId: 'evt_test' });
    expect(vercel.identify(bytes('garbage'), headers({})).deliveryId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('maps created, succeeded and error deployments', () => {
    const body = (type: string) =>
      JSON.stringify({ id: 'evt_1', type, createdAt: 1716220800000, payload: { deployment: { id: 'dpl_9', name: 'my-app', url: 'my-app-abc.vercel.app' }, target: 'production', project: { id: 'prj_1' } } });
    const error = vercel.parse(bytes(body('deployment.error')), headers({}), at);
    expect(error).toEqual({
      ok: true,
      events: [
        {
          integration: 'deploy_host',
          type: 'deploy.error',
          sourceEventId: 'vercel:dpl_9:error',
          title: 'Deploy failed: my-app (production)',
          url: 'https://my-app-abc.vercel.app',
          project: 'my-app',
          severity: 'error',
          occurredAt: '2024-05-20T16:00:00.000Z',
        },
      ],
    });
    const succeeded = vercel.parse(bytes(body('deployment.succeeded')), headers({}), at);
    expect(succeeded.ok && succeeded.events[0]?.type).toBe('deploy.succeeded');
    expect(vercel.parse(bytes(body('project.created')), headers({}), at)).toEqual({ ok: true, events: [] });
  });
});

describe('Sentry', () => {
  const kat =
    '{"action":"created","installation":{"uuid":"a8e5d37a-696c-4c54-adb5-b3f28d64c7de"},"data":{"issue":{"id":"1170820242","shortId":"FRONT-END-9","status":"unresolved"}},"actor":{"type":"application","id":"sentry","name":"Sentry"}}';

  it('verifies the computed vector', () => {
    const good = '9f992e4e9d9eec9be0b7a1c302bb31acc22db458704f13eb46d4a65359359af8';
    expect(sentry.verify(bytes(kat), headers({ 'sentry-hook-signature': good }), [SECRET])).toBe(true);
    expect(sentry.verify(bytes(JSON.stringify(JSON.parse(kat), null, 1)), headers({ 'sentry-hook-signature': good }), [SECRET])).toBe(false);
  });

  it('identifies a delivery by its body hash and reads the timestamp in seconds', () => {
    const identity = sentry.identify(bytes(kat), headers({ 'sentry-hook-timestamp': '1700000000', 'request-id': 'random' }));
    expect(identity.timestamp).toBe(1_700_000_000_000);
    expect(identity.deliveryId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('maps issue created and resolved, and error created', () => {
    const issue = (action: string) =>
      JSON.stringify({ action, data: { issue: { id: '1170820242', shortId: 'FRONT-END-9', title: 'ReferenceError: blooopy is not defined', level: 'error', web_url: 'https://sentry.io/i/1', project: { slug: 'front-end' } } } });
    const created = sentry.parse(bytes(issue('created')), headers({ 'sentry-hook-resource': 'issue' }), at);
    expect(created.ok && created.events[0]).toMatchObject({ type: 'error.issue_created', severity: 'error', project: 'front-end', title: 'New issue FRONT-END-9: ReferenceError: blooopy is not defined' });
    const resolved = sentry.parse(bytes(issue('resolved')), headers({ 'sentry-hook-resource': 'issue' }), at);
    expect(resolved.ok && resolved.events[0]).toMatchObject({ type: 'error.issue_resolved', severity: 'success' });
    expect(sentry.parse(bytes(issue('assigned')), headers({ 'sentry-hook-resource': 'issue' }), at)).toEqual({ ok: true, events: [] });

    const error = JSON.stringify({ action: 'created', data: { error: { event_id: 'e1', title: 'TypeError', level: 'warning', project: 1 } } });
    const errored = sentry.parse(bytes(error), headers({ 'sentry-hook-resource': 'error' }), at);
    expect(errored.ok && errored.events[0]).toMatchObject({ type: 'error.created', sourceEventId: 'sentry:error:e1', severity: 'warning' });
    expect(sentry.parse(bytes('{"action":'), headers({ 'sentry-hook-resource': 'issue' }), at).ok).toBe(false);
  });
});

describe('Linear', () => {
  const kat =
    '{"action":"create","data":{"id":"2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9","createdAt":"2020-01-23T12:53:18.084Z","updatedAt":"2020-01-23T12:53:18.084Z","archivedAt":null,"body":"Indeed, I think this is definitely an improvement over the previous version.","edited":false,"issueId":"539068e2-ae88-4d09-bd75-22eb4a59612f","userId":"aacdca22-6266-4c0a-ab3c-8fa70a26765c"},"type":"Comment","url":"https://linear.app/issue/LIN-1778/foo-bar#comment-77217de3-fb52-4dad-bb9a-b356beb93de8","createdAt":"2020-01-23T12:53:18.084Z","webhookTimestamp":1700000000000}';

  it('verifies the SDK test body and reads the signed timestamp', () => {
    const good = '9c34e3128d6cd5e6599e7f719eb87d4f6003c713d153ba2bb2e35ae13a654459';
    expect(linear.verify(bytes(kat), headers({ 'linear-signature': good }), ['SECRET'])).toBe(true);
    expect(linear.verify(bytes(kat), headers({ 'linear-signature': good }), ['secret'])).toBe(false);
    expect(linear.identify(bytes(kat), headers({ 'linear-delivery': 'd-9' }))).toEqual({ deliveryId: 'd-9', timestamp: 1_700_000_000_000 });
  });

  it('maps issues, comments and projects; two updates of one issue are two events', () => {
    const issue = (updatedAt: string) =>
      JSON.stringify({
        action: 'update',
        type: 'Issue',
        url: 'https://linear.app/acme/issue/ENG-123',
        updatedFrom: { stateId: 'old' },
        data: { id: 'i1', identifier: 'ENG-123', title: 'Billing page', updatedAt, state: { name: 'Done', type: 'completed' }, team: { key: 'ENG' } },
        webhookTimestamp: 1714478400000,
      });
    const first = linear.parse(bytes(issue('2026-04-30T12:00:00.000Z')), headers({ 'linear-event': 'Issue' }), at);
    const second = linear.parse(bytes(issue('2026-04-30T13:00:00.000Z')), headers({ 'linear-event': 'Issue' }), at);
    expect(first.ok && first.events[0]).toMatchObject({ type: 'issue.updated', title: 'ENG-123 moved to Done: Billing page', severity: 'success', project: 'ENG' });
    expect(first.ok && second.ok && first.events[0]?.sourceEventId !== second.events[0]?.sourceEventId).toBe(true);
    const comment = linear.parse(bytes(kat), headers({}), at);
    expect(comment.ok && comment.events[0]?.type).toBe('comment.created');
    const project = JSON.stringify({ action: 'remove', type: 'Project', data: { id: 'p1', name: 'Q4 launch' } });
    expect(linear.parse(bytes(project), headers({ 'linear-event': 'Project' }), at)).toMatchObject({ ok: true, events: [{ type: 'project.removed', title: 'Project removed: Q4 launch' }] });
    expect(linear.parse(bytes('{"action":"create","type":"Cycle","data":{"id":"c"}}'), headers({ 'linear-event': 'Cycle' }), at)).toEqual({ ok: true, events: [] });
    expect(linear.parse(bytes('{"action":"explode","type":"Issue","data":{"id":"c"}}'), headers({ 'linear-event': 'Issue' }), at).ok).toBe(false);
  });
});

describe('Better Stack', () => {
  const incident = (event: string, id = '1') =>
    JSON.stringify({
      event,
      data: {
        id,
        type: 'incident',
        attributes: { name: 'Tesla.com homepage', url: 'https://tesla.com', cause: 'Error 500', started_at: '2020-10-21T10:51:28.151Z', acknowledged_at: null, resolved_at: event === 'resolved' ? '2020-10-21T11:00:00.000Z' : null },
        relationships: { monitor: { data: { id: '4', type: 'monitor' } } },
      },
    });

  it('accepts the token in x-betterstack-token or as a bearer, compared exactly', () => {
    const body = bytes(incident('started'));
    expect(betterstack.verify(body, headers({ 'x-betterstack-token': 'tok' }), ['tok'])).toBe(true);
    expect(betterstack.verify(body, headers({ authorization: 'Bearer tok' }), ['other', 'tok'])).toBe(true);
    expect(betterstack.verify(body, headers({ authorization: 'Bearer to' }), ['tok'])).toBe(false);
    expect(betterstack.verify(body, headers({}), ['tok'])).toBe(false);
  });

  it('turns incidents into monitor down and up, two outages being two events', () => {
    const down = betterstack.parse(bytes(incident('started')), headers({}), at);
    expect(down).toEqual({
      ok: true,
      events: [
        {
          integration: 'uptime_monitor',
          type: 'monitor.down',
          sourceEventId: 'betterstack:incident:1:started:2020-10-21T10:51:28.151Z',
          title: 'Monitor down: Tesla.com homepage (Error 500)',
          url: 'https://tesla.com',
          project: 'Tesla.com homepage',
          severity: 'error',
          occurredAt: '2020-10-21T10:51:28.151Z',
        },
      ],
    });
    const up = betterstack.parse(bytes(incident('resolved')), headers({}), at);
    expect(up.ok && up.events[0]).toMatchObject({ type: 'monitor.up', severity: 'success' });
    const again = betterstack.parse(bytes(incident('started', '2')), headers({}), at);
    expect(down.ok && again.ok && down.events[0]?.sourceEventId !== again.events[0]?.sourceEventId).toBe(true);
    expect(betterstack.parse(bytes('{"event":"updated","data":{"id":"4","type":"monitor","attributes":{}}}'), headers({}), at)).toEqual({ ok: true, events: [] });
    expect(betterstack.parse(bytes('[1,2'), headers({}), at).ok).toBe(false);
  });
});
