import { json, type RequestHandler } from '@sveltejs/kit';
import { commaList, readBodyWithin, RECEIVE_LIMITS, resolveIntegration } from '@dash/webhooks';
import { callerFor, getContext } from '$lib/server/app';

type Refusal = { status: 401 | 404 | 503; body: { error: { code: string; message: string } } };

const refusal = (status: Refusal['status'], code: string, message: string): Refusal => ({ status, body: { error: { code, message } } });

/**
 * What can be refused before a byte of the body is read, with the answers `webhooks.receive` gives them after reading
 * it: an unknown integration (404), one switched off (503), and one without a signing secret, which no signature can
 * match (401). A body is read only for a delivery that could be taken: a sender that declares 100 KB and sends none
 * gets its answer at once instead of holding the connection until its body's time runs out.
 */
async function refusedUnread(name: string): Promise<Refusal | undefined> {
  const integration = resolveIntegration(name);
  if (!integration) return refusal(404, 'NOT_FOUND', `Unknown integration "${name}"`);
  const { notifications } = await getContext();
  const { receive } = notifications.env;
  if (!receive.enabled || receive.disabled.has(integration)) return refusal(503, 'SERVICE_UNAVAILABLE', `Ingestion is disabled for ${integration}`);
  const saved = await notifications.secrets.webhookSecrets();
  if (commaList(saved[integration]).length === 0 && receive.secrets[integration].length === 0) {
    return refusal(401, 'UNAUTHORIZED', 'The signature or token does not match a configured secret');
  }
  return undefined;
}

/**
 * The providers' webhooks, straight to a dashboard they can reach (no relay): public, because each
 * delivery proves itself with its provider's signature or token (hooks.server.ts lets it through, the
 * cross-site guard leaves it alone); the steps and answers are the relay's.
 */
export const POST: RequestHandler = async ({ request, params, locals }) => {
  const refused = await refusedUnread(params.integration ?? '');
  if (refused) return json(refused.body, { status: refused.status, headers: { 'cache-control': 'no-store' } });
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
