import { handleRest } from '@dash/api/rest';
import type { RequestHandler } from './$types';
import { callerFor } from '$lib/server/app';

/** Every `/api/*` REST path goes to the route table, which also answers 404 and 405 as JSON. */
const serve: RequestHandler = async ({ request, locals }) => handleRest(request, await callerFor(locals.request));

export const GET = serve;
export const POST = serve;
export const PATCH = serve;
export const PUT = serve;
export const DELETE = serve;
export const fallback = serve;
