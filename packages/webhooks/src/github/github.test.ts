import { describe, expect, it } from 'vitest';
import { bytes, errorOf, eventsOf, headers, itHoldsTheSignatureContract, receivedAt, sign } from '../testing.ts';
import { deploymentStatus, issue, ping, pullRequest, release, star } from './fixtures.ts';
import { github } from './index.ts';

const DOCS_SECRET = "It's a Secret to Everybody";

const delivery = (event: string, body: string, secret = 'hook-secret') =>
  headers({
    'x-github-event': event,
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    'x-hub-signature-256': `sha256=${sign('sha256', secret, body)}`,
  });

const parse = (event: string, body: string) => github.parse(bytes(body), delivery(event, body), receivedAt);
const typesOf = (event: string, body: string) => eventsOf(parse(event, body)).map((e) => e.type);

describe('GitHub verify', () => {
  const verify = (body: string | Uint8Array, signature: string, secret = DOCS_SECRET) =>
    github.verify(typeof body === 'string' ? bytes(body) : body, headers({ 'x-hub-signature-256': signature }), [secret]);

  it("verifies GitHub's published vector", () => {
    expect(verify('Hello, World!', 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17')).toBe(true);
  });

  it('verifies the octokit vectors byte for byte', () => {
    expect(verify('{"foo":"bar"}', 'sha256=4864d2759938a15468b5df9ade20bf161da9b4f737ea61794142f3484236bda3', 'mysecret')).toBe(true);
    const pretty = `${JSON.stringify({ foo: 'bar' }, null, 2)}\n`;
    expect(verify(pretty, 'sha256=e3eccac34c43c7dc1cbb905488b1b81347fcc700a7b025697a9d07862256023f', 'mysecret')).toBe(true);
    const escaped = `${JSON.stringify({ foo: '\\u001b' }, null, 2)}\n`;
    expect(verify(escaped, 'sha256=87316067e2011fae39998b18c46a14d83b3e7c3ffdd88fb2ee5afb7d11288e60', 'development')).toBe(true);
    // octokit's body has upper-case \uXXXX escapes, which JSON.stringify would write in lower case.
    const reserialized = `${JSON.stringify({ foo: 'Foo\n\u001b[34mbar: ♥♥♥♥♥♥♥♥\nthis-is-lost\u001b[0m\u001b[2K' }, null, 2)}\n`;
    const ansi = reserialized.replace(/\\u([0-9a-f]{4})/g, (_match, code: string) => `\\u${code.toUpperCase()}`);
    expect(verify(ansi, 'sha256=9dacf9003316b09be07df56d86a2d0d6872e42a1e6c72c3bad9ff915a7c5603e', 'development')).toBe(true);
    // The same JSON value, re-serialized, is other bytes: verification is over the bytes as received.
    expect(verify(reserialized, 'sha256=9dacf9003316b09be07df56d86a2d0d6872e42a1e6c72c3bad9ff915a7c5603e', 'development')).toBe(false);
  });

  it('refuses the near misses of the published vector', () => {
    const good = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(verify('Hello, World?', good)).toBe(false);
    expect(verify('Hello, World!', good, 'It’s a Secret to Everybody')).toBe(false);
    expect(verify('Hello, World!', good.slice(0, -1))).toBe(false);
    expect(verify('Hello, World!', 'sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59')).toBe(false);
    expect(verify('Hello, World!', 'sha256=01dc10d0c83e72ed246219cdd91669667fe2ca59')).toBe(false);
    expect(verify('Hello, World!', 'sha256=foo')).toBe(false);
  });

  it('never falls back to the legacy SHA-1 X-Hub-Signature header', () => {
    const legacy = headers({ 'x-hub-signature': 'sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59' });
    expect(github.verify(bytes('Hello, World!'), legacy, [DOCS_SECRET])).toBe(false);
  });

  itHoldsTheSignatureContract({ provider: github, header: 'X-Hub-Signature-256', algorithm: 'sha256', prefix: 'sha256=', body: pullRequest('opened') });
});

describe('GitHub identify', () => {
  it('takes X-GitHub-Delivery, whatever its capitalisation, and sends no timestamp', () => {
    const body = pullRequest('opened');
    expect(github.identify(bytes(body), delivery('pull_request', body))).toEqual({ deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958' });
    expect(github.identify(bytes(body), headers({ 'X-Github-Delivery': 'abc' }))).toEqual({ deliveryId: 'abc' });
  });

  it('falls back to the body hash without the header, even for a body that is not JSON', () => {
    expect(github.identify(bytes('not json'), headers()).deliveryId).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('GitHub parse', () => {
  it('maps a merged pull request', () => {
    expect(parse('pull_request', pullRequest('closed', true))).toEqual({
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
          refs: ['code_host:Codertocat/Hello-World'],
          severity: 'success',
          occurredAt: '2019-05-15T15:21:18.000Z',
          payload: {
            action: 'closed',
            repository: { full_name: 'Codertocat/Hello-World', private: false },
            pull_request: {
              number: 2,
              base: { ref: 'master' },
              head: { ref: 'changes' },
              draft: false,
              merged: true,
              user: { login: 'Codertocat', type: 'User' },
              labels: ['documentation'],
            },
            sender: { login: 'Codertocat', type: 'User' },
          },
        },
      ],
    });
  });

  it('maps opened and unmerged closed pull requests, and ignores other actions', () => {
    const [opened] = eventsOf(parse('pull_request', pullRequest('opened')));
    expect(opened).toMatchObject({ type: 'pr.opened', severity: 'info', sourceEventId: 'github:Codertocat/Hello-World:pr:2:opened', occurredAt: '2019-05-15T15:20:33.000Z' });
    const [closed] = eventsOf(parse('pull_request', pullRequest('closed', false)));
    expect(closed).toMatchObject({ type: 'pr.closed', title: 'PR #2 closed: Update the README with new information.', severity: 'info' });
    expect(closed?.sourceEventId).toMatch(/^github:Codertocat\/Hello-World:pr:2:closed/);
    for (const action of ['labeled', 'synchronize', 'reopened', 'edited']) expect(typesOf('pull_request', pullRequest(action))).toEqual([]);
  });

  it("carries the pull request's fields for rules, under GitHub's names", () => {
    const [opened] = eventsOf(parse('pull_request', pullRequest('opened')));
    expect(opened?.payload).toMatchObject({
      action: 'opened',
      repository: { full_name: 'Codertocat/Hello-World', private: false },
      pull_request: { number: 2, base: { ref: 'master' }, head: { ref: 'changes' }, draft: false, merged: false, labels: ['documentation'] },
      sender: { login: 'Codertocat' },
    });
    const [closed] = eventsOf(parse('pull_request', pullRequest('closed', false)));
    expect(closed?.payload).toMatchObject({ action: 'closed', pull_request: { merged: false } });
  });

  it('never refuses a pull request for a field only the payload reads', () => {
    const body = JSON.stringify({
      action: 'opened',
      repository: { full_name: 'a/b', private: 'yes' },
      pull_request: { number: 1, title: 't', html_url: 'https://github.com/a/b/pull/1', labels: 'bug', base: null, draft: 1 },
      sender: 'someone',
    });
    const [event] = eventsOf(parse('pull_request', body));
    expect(event?.payload).toEqual({ action: 'opened', repository: { full_name: 'a/b' }, pull_request: { number: 1, base: null } });
  });

  it('maps issues opened, closed and reopened, and ignores other actions', () => {
    expect(eventsOf(parse('issues', issue('opened')))).toEqual([
      {
        integration: 'code_host',
        type: 'issue.opened',
        sourceEventId: 'github:Codertocat/Hello-World:issue:1:opened',
        title: 'Issue #1 opened: Spelling error in the README file',
        url: 'https://github.com/Codertocat/Hello-World/issues/1',
        project: 'Codertocat/Hello-World',
        repo: 'Codertocat/Hello-World',
        refs: ['code_host:Codertocat/Hello-World'],
        severity: 'info',
        occurredAt: '2019-05-15T15:20:18.000Z',
        payload: {
          action: 'opened',
          repository: { full_name: 'Codertocat/Hello-World', private: false },
          issue: { number: 1, state: 'open', state_reason: null, user: { login: 'Codertocat' }, labels: ['bug'] },
          sender: { login: 'Codertocat', type: 'User' },
        },
      },
    ]);
    expect(typesOf('issues', issue('closed'))).toEqual(['issue.closed']);
    expect(typesOf('issues', issue('reopened'))).toEqual(['issue.reopened']);
    expect(typesOf('issues', issue('labeled'))).toEqual([]);
  });

  it('tells a second closing of the same issue from the first', () => {
    const first = issue('closed');
    const second = first.replace('2019-05-15T18:00:00Z', '2019-05-20T18:00:00Z');
    const ids = [first, second].map((body) => eventsOf(parse('issues', body))[0]?.sourceEventId);
    expect(ids[0]).toBe('github:Codertocat/Hello-World:issue:1:closed:2019-05-15T18:00:00.000Z');
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('maps a published release, and ignores the other release actions', () => {
    expect(eventsOf(parse('release', release('published')))[0]).toMatchObject({
      type: 'release.published',
      sourceEventId: 'github:Codertocat/Hello-World:release:17372790:published',
      title: 'Release 0.0.1 published',
      url: 'https://github.com/Codertocat/Hello-World/releases/tag/0.0.1',
      severity: 'success',
      occurredAt: '2019-05-15T15:20:53.000Z',
      payload: { action: 'published', release: { tag_name: '0.0.1', name: null, target_commitish: 'master', draft: false, prerelease: false } },
    });
    for (const action of ['created', 'released', 'prereleased', 'edited', 'deleted']) expect(typesOf('release', release(action))).toEqual([]);
  });

  it('maps deployment statuses to deploy.<state>', () => {
    const [success] = eventsOf(parse('deployment_status', deploymentStatus('success')));
    expect(success).toMatchObject({
      type: 'deploy.success',
      sourceEventId: 'github:Codertocat/Hello-World:deployment:145988746:success',
      title: 'Deploy succeeded: Codertocat/Hello-World (production)',
      url: 'https://hello-world.example.com',
      severity: 'success',
      occurredAt: '2019-05-15T15:20:55.000Z',
      payload: {
        action: 'created',
        deployment_status: { state: 'success', environment: 'production' },
        deployment: { environment: 'production', ref: 'master', task: 'deploy' },
      },
    });
    const [failure] = eventsOf(parse('deployment_status', deploymentStatus('failure')));
    expect(failure).toMatchObject({ type: 'deploy.failure', title: 'Deploy failed: Codertocat/Hello-World (production)', url: 'https://example.com/deploys/145988746', severity: 'error' });
    expect(eventsOf(parse('deployment_status', deploymentStatus('error')))[0]).toMatchObject({ type: 'deploy.error', severity: 'error' });
    expect(eventsOf(parse('deployment_status', deploymentStatus('in_progress')))[0]).toMatchObject({ type: 'deploy.in_progress', title: 'Deploy in progress: Codertocat/Hello-World (production)', severity: 'info' });
  });

  it('maps a new star, once per person, and ignores an unstar', () => {
    expect(eventsOf(parse('star', star('created')))[0]).toMatchObject({
      type: 'star.created',
      sourceEventId: 'github:Codertocat/Hello-World:star:Codertocat:created',
      title: 'Codertocat starred Codertocat/Hello-World (1 stars)',
      url: 'https://github.com/Codertocat/Hello-World',
      severity: 'info',
      occurredAt: '2019-05-15T15:20:40.000Z',
      payload: { action: 'created', repository: { full_name: 'Codertocat/Hello-World', private: false, stargazers_count: 1 }, sender: { login: 'Codertocat', type: 'User' } },
    });
    expect(typesOf('star', star('deleted'))).toEqual([]);
  });

  it('answers ping and unknown kinds with no events', () => {
    expect(parse('ping', ping)).toEqual({ ok: true, events: [] });
    expect(parse('push', '{"ref":"refs/heads/main"}')).toEqual({ ok: true, events: [] });
    expect(github.parse(bytes(ping), headers(), receivedAt)).toEqual({ ok: true, events: [] });
  });

  it('falls back to the time received when the payload has none', () => {
    const body = JSON.stringify({ action: 'opened', repository: { full_name: 'a/b' }, pull_request: { number: 1, title: 't', html_url: 'https://github.com/a/b/pull/1' } });
    expect(eventsOf(parse('pull_request', body))[0]?.occurredAt).toBe(receivedAt.toISOString());
  });

  it('refuses malformed JSON, whatever the kind', () => {
    for (const kind of ['pull_request', 'ping', 'push']) expect(errorOf(parse(kind, '{"zen":'))).toMatch(/JSON/);
    expect(errorOf(parse('ping', '[1,2]'))).toMatch(/Unexpected payload/);
    expect(github.parse(new Uint8Array([0x7b, 0xff, 0x7d]), delivery('ping', ''), receivedAt).ok).toBe(false);
  });

  it('refuses JSON of the wrong shape for a kind it shows', () => {
    expect(errorOf(parse('pull_request', '{"action":"opened"}'))).toMatch(/repository|pull_request/);
    expect(parse('issues', JSON.stringify({ action: 'opened', repository: { full_name: 'a/b' }, issue: { number: '1' } })).ok).toBe(false);
    expect(parse('deployment_status', deploymentStatus('Success; DROP')).ok).toBe(false);
  });
});
