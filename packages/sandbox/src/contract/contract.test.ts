import { describe, expect, it } from 'vitest';
import type { Exchange } from '../service.ts';
import { sandboxServices, type SandboxServiceName } from '../services.ts';
import { contractProblems } from './check.ts';
import { describedServices, descriptionOf } from './descriptions.ts';
import { isExcused } from './exceptions.ts';
import { specsMissing } from './specs.ts';

const inCI = process.env.CI === 'true';
if (specsMissing && !inCI) console.warn(`\n*** ${specsMissing}. ***\n`);

const exchange = (service: SandboxServiceName, fields: Partial<Exchange> & Pick<Exchange, 'method' | 'path'>): Exchange => ({
  service,
  status: 200,
  at: 0,
  headers: {},
  body: undefined,
  reply: { headers: {}, body: undefined },
  injected: false,
  ...fields,
});

describe('the providers’ descriptions', () => {
  it.runIf(inCI)('are all here under CI, where a missing one would silently drop its contract tests', () => {
    expect(specsMissing).toBeUndefined();
    expect(describedServices.filter((service) => !descriptionOf(service))).toEqual([]);
  });
});

describe.skipIf(!descriptionOf('revenuecat'))('holding an OpenAPI exchange to its description', () => {
  const overview = '/v2/projects/proj1/metrics/overview';
  const metric = { object: 'overview_metric', id: 'mrr', name: 'MRR', description: 'MRR', unit: '$', period: 'P28D', value: 10, last_updated_at: null, last_updated_at_iso8601: null };

  it('passes a request and an answer the description allows', () => {
    const body = { object: 'overview_metrics', metrics: [metric] };
    expect(contractProblems(exchange('revenuecat', { method: 'GET', path: `${overview}?currency=EUR`, reply: { headers: {}, body } }))).toEqual([]);
  });

  it('names the field an answer has that the schema forbids, and the one it lacks', () => {
    const { value: _dropped, ...withoutValue } = metric;
    const body = { object: 'overview_metrics', currency: 'USD', metrics: [withoutValue] };
    const problems = contractProblems(exchange('revenuecat', { method: 'GET', path: overview, reply: { headers: {}, body } }));
    expect(problems).toContain('response: GET /projects/{project_id}/metrics/overview → 200 must NOT have additional properties (currency)');
    expect(problems).toContain("response: GET /projects/{project_id}/metrics/overview → 200/metrics/0 must have required property 'value'");
  });

  it('names a query parameter the operation does not take, a value of the wrong format, and a path it does not have', () => {
    const chart = contractProblems(exchange('revenuecat', { method: 'GET', path: '/v2/projects/p/charts/revenue?start_date=yesterday&colour=red', injected: true }));
    expect(chart).toEqual([
      'request: GET /projects/{project_id}/charts/{chart_name}: query parameter start_date must match format "date"',
      'request: GET /projects/{project_id}/charts/{chart_name}: the query parameter colour is not described',
    ]);
    expect(contractProblems(exchange('revenuecat', { method: 'GET', path: '/v2/nowhere' }))).toEqual(['request: RevenueCat describes no operation at /nowhere']);
    expect(contractProblems(exchange('revenuecat', { method: 'DELETE', path: overview }))).toEqual([
      'request: RevenueCat describes no DELETE at /projects/{project_id}/metrics/overview',
    ]);
  });

  it('holds an answer a test injected to nothing, but its request still to the description', () => {
    const injected = exchange('revenuecat', { method: 'GET', path: `${overview}?colour=red`, status: 200, injected: true, reply: { headers: {}, body: '<html>' } });
    expect(contractProblems(injected)).toEqual(['request: GET /projects/{project_id}/metrics/overview: the query parameter colour is not described']);
  });

  it('refuses a success status the operation does not describe', () => {
    expect(contractProblems(exchange('revenuecat', { method: 'GET', path: overview, status: 202, reply: { headers: {}, body: {} } }))).toEqual([
      'response: GET /projects/{project_id}/metrics/overview: 202 is not an answer it describes',
    ]);
  });
});

describe.skipIf(!descriptionOf('linear'))('holding a GraphQL exchange to its SDL', () => {
  const query = 'query Teams($first: Int) { teams(first: $first) { nodes { id name } pageInfo { hasNextPage endCursor } } }';

  it('passes a valid document with its variables and an answer of the selected shape', () => {
    const reply = { data: { teams: { nodes: [{ id: 't1', name: 'Ledger' }], pageInfo: { hasNextPage: false, endCursor: null } } } };
    expect(contractProblems(exchange('linear', { method: 'POST', path: '/graphql', body: { query, variables: { first: 5 } }, reply: { headers: {}, body: reply } }))).toEqual([]);
  });

  it('names a field the schema does not have and a variable of the wrong type', () => {
    const problems = contractProblems(exchange('linear', { method: 'POST', path: '/graphql', body: { query: '{ teams { nodes { colour } } }' }, injected: true }));
    expect(problems).toEqual(['request: Linear GraphQL: Cannot query field "colour" on type "Team". Did you mean "color"?']);
    const variables = contractProblems(exchange('linear', { method: 'POST', path: '/graphql', body: { query, variables: { first: 'five' } }, injected: true }));
    expect(variables[0]).toMatch(/^request: Linear GraphQL: Variable "\$first" got invalid value "five"; Int cannot represent non-integer value/);
  });

  it('names a non-null field the answer leaves null, and a field the document did not ask for', () => {
    const missing = { data: { teams: { nodes: [{ id: null, name: 'Ledger' }], pageInfo: { hasNextPage: false, endCursor: null } } } };
    expect(contractProblems(exchange('linear', { method: 'POST', path: '/graphql', body: { query }, reply: { headers: {}, body: missing } }))).toEqual([
      'response: Linear GraphQL → 200: teams.nodes.0.id: Cannot return null for non-nullable field Team.id.',
    ]);
    const extra = { data: { teams: { nodes: [{ id: 't1', name: 'Ledger', colour: 'red' }], pageInfo: { hasNextPage: false, endCursor: null } } } };
    expect(contractProblems(exchange('linear', { method: 'POST', path: '/graphql', body: { query }, reply: { headers: {}, body: extra } }))[0]).toMatch(
      /data\.teams\.nodes\.0\.colour was not asked for/,
    );
  });
});

describe.skipIf(!descriptionOf('plausible'))('holding a Plausible query to its JSON schema', () => {
  it('names a query body the schema refuses', () => {
    const ok = { site_id: 'example.com', metrics: ['visitors'], date_range: '7d' };
    expect(contractProblems(exchange('plausible', { method: 'POST', path: '/api/v2/query', body: ok }))).toEqual([]);
    expect(contractProblems(exchange('plausible', { method: 'POST', path: '/api/v2/query', body: { ...ok, metrics: ['heartbeats'] } }))).not.toEqual([]);
  });
});

const openApiServices = describedServices.filter((service) => descriptionOf(service)?.kind === 'openapi');

/** Each route of a service's fake as a request path, with what its provider's description says of it. */
function fakeRoutes(service: SandboxServiceName) {
  const described = descriptionOf(service);
  if (described?.kind !== 'openapi') throw new Error(`${service} has no OpenAPI description`);
  const fake = sandboxServices[service](Date.parse('2026-03-01T00:00:00Z'));
  const routes = fake.routes.map((route) => {
    const path = fake.basePath + route.path.replace(/:[A-Za-z]+/g, '1');
    return { method: route.method, path, found: described.description.find(route.method, path) };
  });
  return { description: described.description, routes };
}

/** The services whose description startDescribedUpstream serves answers from. */
const sampled: ReadonlySet<SandboxServiceName> = new Set(openApiServices.filter((service) => service !== 'discord'));

describe.each(openApiServices)('the %s fake', (service) => {
  // Read once for both checks: making a fake makes its demo data (Stripe's takes a fifth of a second).
  const { description, routes } = fakeRoutes(service);

  it('serves only operations of the provider’s description (or one listed, with its reason, in exceptions.ts)', () => {
    const strays = routes
      .filter(({ found }) => typeof found === 'string' && !isExcused(service, `request: ${found}`))
      .map(({ method, path }) => `${method} ${path}`);
    expect(strays).toEqual([]);
  });

  // Discord's description is not served by startDescribedUpstream (its fake's own traffic is held to it instead, in
  // discord/discord.test.ts): its messages' nullable unions and pattern-bound snowflakes are beyond the sampler.
  if (!sampled.has(service)) return;
  it('has answers generated for its operations that pass the check they stand in for, in every mode', () => {
    const problems = routes
      .filter(({ found }) => typeof found !== 'string')
      .flatMap(({ method, path }) =>
        (['minimal', 'maximal', 'full'] as const).flatMap((mode) =>
          description
            .sampleAnswer(method, path, mode)
            .problems.map((problem) => `response: ${problem}`)
            .filter((problem) => !isExcused(service, problem))
            .map((problem) => `${mode}: ${problem}`),
        ),
      );
    expect(problems).toEqual([]);
  });
});
