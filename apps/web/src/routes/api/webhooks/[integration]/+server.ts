import { json, type RequestHandler } from '@sveltejs/kit';
import { readBodyWithin, RECEIVE_LIMITS } from '@dash/webhooks';
import { callerFor } from '$lib/server/app';

/**
 * The providers' webhooks, straight to a dashboard they can reach (no relay): public, because each
 * delivery proves itself with its provider's signature or token (hooks.server.ts lets it through, the
 * cross-site guard leaves it alone); the steps and answers are the relay's.
 */
export const POST: RequestHandler = async ({ request, params, locals }) => {
  const body = await readBodyWithin(request, RECEIVE_LIMITS.bodyBytes);
  if (!body) {
    return json({ error: { code: 'PAYLOAD_TOO_LARGE', message: `The body is larger than ${RECEIVE_LIMITS.bodyBytes / 1024} KB` } }, { status: 413, headers: { connection: 'close' } });
  }
  const answer = await (await callerFor(locals.request)).webhooks.receive({
    integration: params.integration ?? '',
    body: Buffer.from(body).toString('base64'),
    headers: Object.fromEntries(request.headers),
  });
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (answer.retryAfterMs !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(answer.retryAfterMs / 1000)));
  return json(answer.body, { status: answer.status, headers });
};
