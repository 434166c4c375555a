import { integrationNames, oauthProviderSchema } from '@dash/contracts';
import { accessNote, errorResponseRef } from './openapi-components.ts';
import type { Json } from './openapi-schemas.ts';
import type { Method } from './route.ts';

/**
 * The few /api paths that are SvelteKit routes rather than table entries (they redirect, stream, or check a
 * provider's signature), described by hand for the OpenAPI document; a test checks them against the routes.
 */

/** An /api path that is a SvelteKit route of its own, not a table entry: described here, checked against the routes by a test. */
export interface OutsideOperation {
  method: Method;
  path: string;
  operation: Json;
}

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, errorResponseRef(status)]));
const readAccess = [{ apiToken: ['read'] }, { session: [] }];
const redirect = (description: string) => ({ description, headers: { location: { required: true, schema: { type: 'string' } } } });
const providerParam = { name: 'provider', in: 'path', required: true, schema: { type: 'string', enum: oauthProviderSchema.options } };

export const outsideTheTable: readonly OutsideOperation[] = [
  {
    method: 'GET',
    path: '/api/openapi.json',
    operation: {
      operationId: 'openApiDocument',
      summary: 'This OpenAPI 3.1 document',
      tags: ['reference'],
      'x-scope': 'read',
      security: readAccess,
      responses: { 200: { description: 'The document.', content: { 'application/json': { schema: { type: 'object' } } } }, ...errors(401, 403, 429, 500, 503) },
    },
  },
  {
    method: 'GET',
    path: '/api/docs',
    operation: {
      operationId: 'apiReference',
      summary: 'This document as a readable reference (HTML), with "try it" for each route',
      tags: ['reference'],
      'x-scope': 'read',
      security: readAccess,
      responses: { 200: { description: 'The reference page.', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(401, 403, 429, 500, 503) },
    },
  },
  {
    method: 'GET',
    path: '/api/notifications/stream',
    operation: {
      operationId: 'notificationsStream',
      summary: 'The live inbox as Server-Sent Events',
      description:
        'Each new or changed notification as `event: notification` with `id: <seq>`; reconnecting with that id as Last-Event-ID ' +
        '(or `lastEventId=`) replays what was missed, or sends `event: reset` when too much was. A `: ping` comment every 25 s. ' +
        "The stream ends when the caller's sign-in does (sign-out, a revoked token).\n\n" +
        accessNote.read,
      tags: ['notifications'],
      'x-scope': 'read',
      security: readAccess,
      parameters: [
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^\\d+$' } },
        { name: 'lastEventId', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d+$' } },
      ],
      responses: {
        200: { description: 'An event stream that stays open.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...errors(400, 401, 403, 429, 500, 503),
      },
    },
  },
  {
    method: 'GET',
    path: '/api/auth/{provider}/redirect',
    operation: {
      operationId: 'oauthRedirect',
      summary: "Start connecting an account: redirects the browser to the provider's authorization page",
      description: `A browser's link (it sets the flow's cookie), not a script's call. It changes the stored credentials.\n\n${accessNote.write}`,
      tags: ['oauth'],
      'x-scope': 'write',
      security: [{ apiToken: ['write'] }, { session: [] }],
      parameters: [
        providerParam,
        { name: 'credKey', in: 'query', required: true, description: 'The credential store key the tokens go under (google, google:work…).', schema: { type: 'string' } },
        { name: 'scopes', in: 'query', required: false, description: 'Space-separated OAuth scopes.', schema: { type: 'string' } },
      ],
      responses: { 302: redirect("To the provider's authorization page (or to the dashboard's public address first)."), ...errors(400, 401, 403, 404, 429, 500, 503) },
    },
  },
  {
    method: 'GET',
    path: '/api/auth/{provider}/callback',
    operation: {
      operationId: 'oauthCallback',
      summary: 'Where the provider sends the browser back: stores the tokens, then redirects to Settings',
      description: `To /settings/connections?oauth=success, or /settings/connections?oauth=error&reason=<code>. Its query is the provider's.\n\n${accessNote.read}`,
      tags: ['oauth'],
      'x-scope': 'read',
      security: readAccess,
      parameters: [providerParam],
      responses: { 302: redirect('To /settings/connections?oauth=success or /settings/connections?oauth=error&reason=<code>.'), ...errors(401, 403, 404, 429, 500, 503) },
    },
  },
  {
    method: 'POST',
    path: '/api/webhooks/{integration}',
    operation: {
      operationId: 'webhooksReceive',
      summary: "Receive a provider's webhook on this dashboard (no relay)",
      description:
        "Public: each delivery proves itself with its provider's signature or token (WEBHOOK_SECRET_<INTEGRATION>), checked like the relay does: " +
        'kill switch (503), body limit (413), content type (415), rate limit (429 with Retry-After), replay (409), signature (401), parse (400).',
      tags: ['relay'],
      'x-scope': 'webhook',
      security: [{ codeHostSignature: [] }, { deployHostSignature: [] }, { errorTrackerSignature: [] }, { issueTrackerSignature: [] }, { uptimeMonitorToken: [] }, { uptimeMonitorBearer: [] }],
      parameters: [{ name: 'integration', in: 'path', required: true, schema: { type: 'string', enum: integrationNames.filter((name) => name !== 'funding') } }],
      requestBody: { required: true, content: { 'application/json': { schema: { description: "The provider's own payload." } } } },
      responses: {
        200: {
          description: 'Accepted: the events it held are stored.',
          content: {
            'application/json': {
              schema: { type: 'object', required: ['received', 'eventCount'], properties: { received: { const: true }, eventCount: { type: 'integer', minimum: 0 } } },
            },
          },
        },
        ...errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503),
      },
    },
  },
];
