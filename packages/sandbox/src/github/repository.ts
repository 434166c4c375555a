import { DAY_MS, hexId } from '../demo.ts';

/**
 * An account and a repository as GitHub's description shapes them (`simple-user`, `repository`), with every URL
 * and counter it requires; the demo's user and Dependabot as accounts.
 */

export const API = 'https://api.github.com';

/** An account as GitHub embeds it (`simple-user`): every URL its description requires. */
function account(login: string, id: number, nodeId: string, type: 'User' | 'Organization' | 'Bot', html = `https://github.com/${login}`, avatar = `https://avatars.githubusercontent.com/u/${id}?v=4`) {
  const url = `${API}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: nodeId,
    avatar_url: avatar,
    gravatar_id: '',
    url,
    html_url: html,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    user_view_type: 'public',
    site_admin: false,
  };
}

export const demoUser = account('demo-founder', 98213745, 'U_kgDOBdqMcQ', 'User');
export const dependabot = account('dependabot[bot]', 49699333, 'MDM6Qm90NDk2OTkzMzM=', 'Bot', 'https://github.com/apps/dependabot', 'https://avatars.githubusercontent.com/in/29110?v=4');

export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A repository as GitHub describes it (`repository`): the owner, the URL templates and the counters its description requires. */
export function repository(fullName: string, id: number, isPrivate: boolean, now: number) {
  const [owner = '', name = ''] = fullName.split('/');
  const url = `${API}/repos/${fullName}`;
  const html = `https://github.com/${fullName}`;
  return {
    id,
    node_id: `R_kgDOKp${hexId(fullName, 8)}`,
    name,
    full_name: fullName,
    private: isPrivate,
    owner: owner === demoUser.login ? demoUser : account(owner, 150_000_000 + id % 100_000, `O_kgDOC${hexId(owner, 6)}`, 'Organization'),
    html_url: html,
    description: null,
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git://github.com/${fullName}.git`,
    hooks_url: `${url}/hooks`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@github.com:${fullName}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    clone_url: `${html}.git`,
    mirror_url: null,
    svn_url: html,
    homepage: null,
    language: null,
    size: 2048 + (id % 4096),
    forks: 0,
    forks_count: 0,
    stargazers_count: isPrivate ? 0 : 37,
    watchers: isPrivate ? 0 : 37,
    watchers_count: isPrivate ? 0 : 37,
    open_issues: 3,
    open_issues_count: 3,
    has_issues: true,
    has_projects: false,
    has_downloads: true,
    has_wiki: false,
    has_pages: false,
    archived: false,
    disabled: false,
    license: null,
    default_branch: 'main',
    visibility: isPrivate ? 'private' : 'public',
    created_at: iso(now - 400 * DAY_MS),
    updated_at: iso(now - 2 * DAY_MS),
    pushed_at: iso(now - DAY_MS / 3),
  };
}
