import { json } from '@sveltejs/kit';
import { openApiDocument } from '@dash/api/rest';
import type { RequestHandler } from './$types';
import { serverEnv } from '$lib/server/app';
import { sessionCookie } from '$lib/server/session';

/**
 * GET /api/openapi.json: the REST API's OpenAPI 3.1 document, written at the first request from the route table
 * and the procedures' schemas. Like every /api route it needs a read token or a session (hooks.server.ts): it
 * holds no secret, but it maps what this dashboard exposes. The session cookie is named as this origin names it.
 */
export const GET: RequestHandler = () => json(openApiDocument({ sessionCookie: sessionCookie(serverEnv().publicOrigin).name }));
