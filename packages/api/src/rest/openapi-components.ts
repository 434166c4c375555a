import { errorBodySchema } from '@dash/contracts';
import { MAX_BODY_BYTES } from './dispatch.ts';
import type { Json, SchemaWriter } from './openapi-schemas.ts';

/**
 * The parts of the REST API's OpenAPI document every operation refers to: the error answers (one per status, with
 * the one error body), what each kind of access needs, and the security schemes.
 */

/** Every error answer, under components.responses: the status, what it means here, and the one error body. */
const errorResponses = {
  400: ['BadRequest', 'Bad input: the body is not JSON, or a field, query or path parameter is invalid (`issues` lists each, with its path).'],
  401: ['Unauthorized', 'Not signed in, or the API token is revoked, expired or mistyped.'],
  403: ['Forbidden', 'Refused (as plain text when SvelteKit refuses a form-like body from elsewhere): a read token on a change, a token where only the owner may act, a cross-site request (CROSS_SITE), a Host not allowed, or a proxied request to a local dashboard without a password (PROXIED_WITHOUT_PASSWORD).'],
  404: ['NotFound', 'No such resource (a project, a stored credential, an OAuth provider, a webhook integration).'],
  409: ['Conflict', 'Conflicts with the current state (a taken slug, a backup already running, a webhook delivered twice).'],
  413: ['PayloadTooLarge', `The body is larger than the route takes (${MAX_BODY_BYTES / 1024} KB for most; the import takes a whole export).`],
  415: ['UnsupportedMediaType', 'A body that is not `application/json`.'],
  429: ['TooManyRequests', 'Too many failed sign-ins or token checks from this address (or webhook deliveries, test sends: one a minute, or emails through POST /api/alerts/send: 10 an hour per token, 30 in all); wait Retry-After seconds.'],
  500: ['InternalError', 'An unexpected failure; the server log has the details, the answer never does.'],
  502: ['BadGateway', 'The upstream service failed and nothing was cached (or it refused, e.g. the email provider).'],
  503: ['ServiceUnavailable', 'Not available: first-run setup not done yet (SETUP_REQUIRED), a feature switched off, or a dependency down.'],
} as const satisfies Record<number, readonly [string, string]>;
export type DescribedErrorStatus = keyof typeof errorResponses;

/** What the guards in front of every /api route may answer, whoever the route is (hooks.server.ts). */
export const GUARD_STATUSES: readonly DescribedErrorStatus[] = [401, 403, 429, 500, 503];

/** What each kind of access needs, as the last paragraph of an operation's description. */
export const accessNote: Record<string, string> = {
  read: 'Needs a read or write API token, or a session.',
  write: 'Needs a write API token, or a session.',
  owner: 'Only the owner in a signed-in browser (or the open local dashboard); an API token is refused with 403.',
  backup: 'Takes `Authorization: Bearer <BACKUP_SECRET>` and nothing else.',
};

/** A status's error answer, as a reference into components.responses. */
export function errorResponseRef(status: number): Json {
  const entry = errorResponses[status as DescribedErrorStatus] as readonly [string, string] | undefined;
  if (!entry) throw new Error(`No description of the error status ${status}`);
  return { $ref: `#/components/responses/${entry[0]}` };
}

/** components: the schemas written so far, the error responses and the security schemes. */
export function components(writer: SchemaWriter, sessionCookie: string): Json {
  const errorSchema = writer.ref(errorBodySchema);
  const responses = Object.fromEntries(
    Object.entries(errorResponses).map(([status, [name, description]]) => {
      // The guards' throttle says how long to wait; a procedure's own 429 (a wrong password on a token's creation) may not.
      const retryAfter = status === '429' ? { headers: { 'retry-after': { required: false, description: 'Seconds to wait.', schema: { type: 'string', pattern: '^\\d+$' } } } } : {};
      // SvelteKit's own form check refuses a form-like body (text/plain, form-encoded, multipart) sent without the
      // dashboard's Origin before any route runs, even with a token, and says so in plain text.
      const formCheck = status === '403' ? { 'text/plain': { schema: { type: 'string' } } } : {};
      return [name, { description, ...retryAfter, content: { 'application/json': { schema: errorSchema }, ...formCheck } }];
    }),
  );
  const signature = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });
  return {
    schemas: writer.components,
    responses,
    securitySchemes: {
      apiToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API token from Settings → Security: `read` opens GET routes, `write` every route but the owner-only ones.',
      },
      session: { type: 'apiKey', in: 'cookie', name: sessionCookie, description: "The signed-in browser's session cookie (the dashboard's own pages)." },
      backupSecret: { type: 'http', scheme: 'bearer', description: 'BACKUP_SECRET, for POST /api/backup only.' },
      codeHostSignature: signature('X-Hub-Signature-256', 'code_host: `sha256=<hex HMAC-SHA256 of the body>`.'),
      deployHostSignature: signature('x-vercel-signature', 'deploy_host: hex HMAC-SHA1 of the body.'),
      errorTrackerSignature: signature('sentry-hook-signature', 'error_tracker: hex HMAC-SHA256 of the body.'),
      issueTrackerSignature: signature('linear-signature', 'issue_tracker: hex HMAC-SHA256 of the body.'),
      uptimeMonitorToken: signature('x-betterstack-token', 'uptime_monitor: the shared token.'),
      uptimeMonitorBearer: { type: 'http', scheme: 'bearer', description: 'uptime_monitor: the shared token as a bearer.' },
    },
  };
}
