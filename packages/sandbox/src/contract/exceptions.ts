import type { SandboxServiceName } from '../services.ts';
import type { Repair } from './openapi.ts';

/**
 * Where a fake or a connector may differ from its provider's description, and why: the one list of
 * them. Each excuses the problems that match it, for one service; `evidence` is the provider's own
 * documentation showing the real API does what the description leaves out.
 */
export interface ContractException {
  service: SandboxServiceName;
  /** Matches the problem it excuses, as the checks word it (`request: GET /path: …`). */
  problem: RegExp;
  reason: string;
  evidence: string;
}

export const contractExceptions: ContractException[] = [
  {
    service: 'sendgrid',
    problem: /^request: SendGrid describes no operation at \/v3\/scopes$/,
    reason:
      "The key check (GET /v3/scopes) is in SendGrid's API Key Permissions description (tsg_scopes_v3.json), not Mail Send's; the fake is held to the example its reference prints (sendgrid/documented.ts).",
    evidence: 'https://www.twilio.com/docs/sendgrid/api-reference/api-key-permissions/retrieve-a-list-of-scopes-for-which-this-user-has-access',
  },
  {
    service: 'google',
    problem: /^request: (GET|POST) \/(token|o\/oauth2\/v2\/auth)\b.* is outside Search Console's API/,
    reason: "Google's OAuth 2.0 endpoints (authorization and token) are not part of the Search Console API; they follow RFC 6749.",
    evidence: 'https://developers.google.com/identity/protocols/oauth2/web-server',
  },
  {
    service: 'github',
    problem: /^request: GitHub describes no operation at \/login\/oauth\/(authorize|access_token)$/,
    reason: "GitHub's OAuth web flow is served by github.com, not the REST API the description covers.",
    evidence: 'https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps',
  },
  {
    service: 'plausible',
    problem: /^request: GET \/api\/v1\/stats\/realtime\/visitors is not described/,
    reason: "Plausible's v1 realtime endpoint has no published schema (only the v2 query does).",
    evidence: 'https://plausible.io/docs/stats-api-v1#get-apiv1statsrealtimevisitors',
  },
  {
    service: 'stripe',
    problem: /^response: GET \/v1\/subscriptions → 200\/data\/\d+ must have required property 'current_period_(start|end)'$/,
    reason:
      'The description predates API version 2025-03-31.basil, which the connector pins (Stripe-Version): basil removed current_period_start and current_period_end from the subscription (they are on its items now).',
    evidence: 'https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-subscription-current-period-start-and-end',
  },
  {
    service: 'appstoreconnect',
    problem: /^request: GET \/v1\/[\w/{}]+: the query parameter cursor is not described$/,
    reason:
      "Apple's list answers hand out the next page as a full URL in links.next, which carries an opaque `cursor` (the description's own PagingInformation.paging.nextCursor) that no operation lists as a parameter.",
    evidence: 'https://developer.apple.com/documentation/appstoreconnectapi/pageddocumentlinks',
  },
  {
    service: 'github',
    problem: /^request: GitHub describes no operation at \/repositories\/\d+\/pulls$/,
    reason:
      "GitHub's Link header names later pages by the repository's id (`/repositories/{id}/pulls?page=2`), a path its description does not list; the pages are the same list as GET /repos/{owner}/{repo}/pulls.",
    evidence: 'https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api',
  },
  {
    service: 'opencollective',
    problem: /^response: Open Collective GraphQL → (401|429): the answer has neither `data` nor `errors`$/,
    reason:
      "An unknown personal token (401) and the rate limiter (429) are answered by Open Collective's Express layer before GraphQL runs, as `{\"error\": {...}}`; the GraphQL schema cannot describe them.",
    evidence: 'https://github.com/opencollective/opencollective-api/blob/main/server/middleware/authentication.js',
  },
];

export function isExcused(service: SandboxServiceName, problem: string): boolean {
  return contractExceptions.some((exception) => exception.service === service && exception.problem.test(problem));
}

/**
 * Where a description contradicts itself so that no real answer could pass it, the schema is mended
 * before anything is checked against it: each repair with its reason and the provider's own evidence.
 */
export interface DescriptionRepair {
  service: SandboxServiceName;
  reason: string;
  evidence: string;
  repair: Repair;
}

export const descriptionRepairs: DescriptionRepair[] = [
  {
    service: 'vercel',
    reason:
      "Vercel's description turns a nullable `oneOf` into `type: null` beside the `oneOf` (deployments' aliasAssigned, the user's importFlowGitNamespace and gitNamespaceId), which no value satisfies, not even null; read as the `oneOf` or null, as Vercel's reference gives aliasAssigned: a timestamp, a boolean or null.",
    evidence: 'https://vercel.com/docs/rest-api/deployments/list-deployments',
    repair: (schema) => {
      if (schema.type !== 'null' || !Array.isArray(schema.oneOf)) return schema;
      const { type: _null, oneOf, ...rest } = schema;
      return { ...rest, anyOf: [{ oneOf }, { type: 'null' }] };
    },
  },
  {
    service: 'vercel',
    reason:
      "Vercel's description types some enums as string or null but leaves null out of the enum (a deployment's target: production, staging; projectSettings.framework), which refuses the null the type allows; a preview deployment's target is null.",
    evidence: 'https://vercel.com/docs/rest-api/deployments/list-deployments',
    repair: (schema) =>
      Array.isArray(schema.type) && schema.type.includes('null') && Array.isArray(schema.enum) && !schema.enum.includes(null) ? { ...schema, enum: [...(schema.enum as unknown[]), null] } : schema,
  },
];

/** The repairs of one service's description, as one. */
export function repairsOf(service: SandboxServiceName): Repair | undefined {
  const repairs = descriptionRepairs.filter((entry) => entry.service === service).map((entry) => entry.repair);
  return repairs.length === 0 ? undefined : (schema) => repairs.reduce((mended, repair) => repair(mended), schema);
}
