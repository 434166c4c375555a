/**
 * Trimmed from octokit/webhooks `payload-examples/api.github.com/**`, sent the way GitHub sends them
 * (2-space indentation and a final newline). The merged pull request is the edited `closed` example.
 */

const repository = {
  id: 186853002,
  name: 'Hello-World',
  full_name: 'Codertocat/Hello-World',
  private: false,
  owner: { login: 'Codertocat', id: 21031067, type: 'User' },
  html_url: 'https://github.com/Codertocat/Hello-World',
  stargazers_count: 1,
  default_branch: 'master',
};

const sender = { login: 'Codertocat', id: 21031067, type: 'User' };

const asSent = (payload: object): string => `${JSON.stringify(payload, null, 2)}\n`;

export function pullRequest(action: string, merged = false): string {
  const closed = action === 'closed';
  return asSent({
    action,
    number: 2,
    pull_request: {
      id: 279147437,
      number: 2,
      state: closed ? 'closed' : 'open',
      title: 'Update the README with new information.',
      html_url: 'https://github.com/Codertocat/Hello-World/pull/2',
      user: { login: 'Codertocat', id: 21031067, type: 'User' },
      draft: false,
      labels: [{ id: 1362934389, name: 'documentation', color: '0075ca', default: true }],
      created_at: '2019-05-15T15:20:33Z',
      updated_at: '2019-05-15T15:21:18Z',
      closed_at: closed ? '2019-05-15T15:21:18Z' : null,
      merged_at: merged ? '2019-05-15T15:21:18Z' : null,
      merged,
      merged_by: merged ? { login: 'Codertocat' } : null,
      merge_commit_sha: 'c4295bd74fb0f4fda03689c3df3f2803b658fd85',
      head: { ref: 'changes', sha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821' },
      base: { ref: 'master', sha: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e' },
    },
    repository,
    sender,
  });
}

export function issue(action: string): string {
  const closed = action === 'closed';
  return asSent({
    action,
    issue: {
      id: 444500041,
      number: 1,
      title: 'Spelling error in the README file',
      html_url: 'https://github.com/Codertocat/Hello-World/issues/1',
      user: { login: 'Codertocat' },
      labels: [{ name: 'bug', color: 'd73a4a' }],
      state: closed ? 'closed' : 'open',
      state_reason: closed ? 'completed' : null,
      created_at: '2019-05-15T15:20:18Z',
      updated_at: action === 'reopened' ? '2019-05-16T09:00:00Z' : '2019-05-15T15:20:18Z',
      closed_at: closed ? '2019-05-15T18:00:00Z' : null,
    },
    repository,
    sender,
  });
}

export function release(action: string): string {
  return asSent({
    action,
    release: {
      id: 17372790,
      tag_name: '0.0.1',
      target_commitish: 'master',
      name: null,
      draft: false,
      prerelease: false,
      html_url: 'https://github.com/Codertocat/Hello-World/releases/tag/0.0.1',
      created_at: '2019-05-15T15:19:25Z',
      published_at: '2019-05-15T15:20:53Z',
    },
    repository,
    sender,
  });
}

export function deploymentStatus(state: string): string {
  return asSent({
    action: 'created',
    deployment_status: {
      id: 209916254,
      state,
      environment: 'production',
      target_url: 'https://example.com/deploys/145988746',
      environment_url: state === 'success' ? 'https://hello-world.example.com' : '',
      log_url: '',
      description: '',
      created_at: '2019-05-15T15:20:55Z',
    },
    deployment: { id: 145988746, sha: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e', ref: 'master', task: 'deploy', environment: 'production' },
    repository,
    sender,
  });
}

export function star(action: 'created' | 'deleted'): string {
  return asSent({ action, starred_at: action === 'created' ? '2019-05-15T15:20:40Z' : null, repository, sender });
}

export const ping = asSent({
  zen: 'Design for failure.',
  hook_id: 109948940,
  hook: { type: 'Repository', id: 109948940, active: true, events: ['*'], config: { content_type: 'json', insecure_ssl: '0' } },
  repository,
  sender,
});
