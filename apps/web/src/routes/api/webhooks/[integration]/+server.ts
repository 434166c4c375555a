import { json, type RequestHandler } from '@sveltejs/kit';
import { RECEIVE_LIMITS } from '@dash/webhooks';
import { callerFor } from '$lib/server/app';

/** Reads at most `limit` bytes as they arrive; undefined as soon as the body is longer, whatever Content-Length said. */
async function readBody(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) return undefined;
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.releaseLock();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The providers' webhooks, straight to a dashboard they can reach (no relay): public, because each
 * delivery proves itself with its provider's signature or token (hooks.server.ts lets it through, the
 * cross-site guard leaves it alone); the steps and answers are the relay's.
 */
export const POST: RequestHandler = async ({ request, params, locals }) => {
  const body = await readBody(request, RECEIVE_LIMITS.bodyBytes);
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
