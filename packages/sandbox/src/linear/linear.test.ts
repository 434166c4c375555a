import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxTokens } from '../demo.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { holdToDescriptions } from '../contract/index.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());

async function post(body: unknown, authorization: string = sandboxTokens.linear) {
  const response = await fetch(`${sandbox.services.linear.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

const PAGE = `query Page($filter: IssueFilter, $first: Int, $after: String) {
  issues(filter: $filter, first: $first, after: $after) { nodes { identifier state { type } team { key } } pageInfo { hasNextPage endCursor } }
}`;
type Page = { data: { issues: { nodes: { identifier: string; state: { type: string }; team: { key: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } };

describe('Linear fake', () => {
  it('answers only the fields asked for, under their aliases, with Linear’s rate-limit headers', async () => {
    const { status, headers, json } = await post({ query: '{ me: viewer { name } organization { urlKey __typename } }' });
    expect(status).toBe(200);
    expect(json).toEqual({ data: { me: { name: 'Demo Founder' }, organization: { urlKey: 'demo-founder', __typename: 'Organization' } } });
    expect(headers.get('x-ratelimit-requests-limit')).toBe('2500');
    expect(Number(headers.get('x-ratelimit-requests-reset'))).toBeGreaterThan(1e12);
  });

  it('filters by team and state type from the variables and pages with first/after', async () => {
    const filter = { team: { key: { eq: 'FOX' } }, state: { type: { in: ['started'] } } };
    const first = (await post({ query: PAGE, variables: { filter, first: 2 } })).json as Page;
    expect(first.data.issues.nodes).toHaveLength(2);
    expect(first.data.issues.pageInfo.hasNextPage).toBe(true);
    const rest = (await post({ query: PAGE, variables: { filter, first: 50, after: first.data.issues.pageInfo.endCursor } })).json as Page;
    const all = [...first.data.issues.nodes, ...rest.data.issues.nodes];
    expect(new Set(all.map((n) => n.identifier)).size).toBe(all.length);
    for (const node of all) expect(node).toMatchObject({ team: { key: 'FOX' }, state: { type: 'started' } });
    expect(rest.data.issues.pageInfo.hasNextPage).toBe(false);
  });

  it('refuses a field the schema lacks, and any mutation from the read-only demo key, with GraphQL errors like Linear’s', async () => {
    const unknownField = await observe.offDescription(() => post({ query: '{ issues { nodes { colour } } }' }));
    expect(unknownField.status).toBe(400);
    expect(unknownField.json).toMatchObject({ errors: [{ message: 'Cannot query field "colour" on type "Issue".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    const mutation = await post({ query: 'mutation Archive { issueArchive(id: "PKT-101") { success } }' });
    expect(mutation.status).toBe(400);
    expect(mutation.json).toMatchObject({ errors: [{ message: 'Invalid scope: `write` required', extensions: { code: 'FORBIDDEN', type: 'forbidden', statusCode: 403 } }] });
    const broken = await observe.offDescription(() => post({ query: '{ viewer { name }' }));
    expect(broken.json).toMatchObject({ errors: [{ extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
  });

  it('refuses a personal key sent as Bearer with Linear’s 401 body', async () => {
    const { status, json } = await post({ query: '{ viewer { id } }' }, `Bearer ${sandboxTokens.linear}`);
    expect(status).toBe(401);
    expect(json).toMatchObject({ errors: [{ message: 'Authentication required, not authenticated', extensions: { code: 'AUTHENTICATION_ERROR', type: 'authentication error' } }] });
  });
});
