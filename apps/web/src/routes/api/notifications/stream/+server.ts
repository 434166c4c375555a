import { isTrackedEnvelope } from '@trpc/server';
import type { RequestHandler } from './$types';
import { callerFor } from '$lib/server/app';

/** A comment line at least this often keeps proxies and browsers from closing an idle stream. */
const PING_MS = 25_000;

/**
 * `GET /api/notifications/stream`: the live inbox for REST callers, as Server-Sent Events: each new or
 * changed row as `event: notification` with `id: <seq>` (a reconnect sends it back as Last-Event-ID and
 * gets what it missed), `event: reset` when it missed too much to replay, and a ping every 25 s. The
 * response ends when the caller's sign-in does (sign-out, ended sessions, a password change, a revoked
 * token; the subscription watches it), so a reconnect is judged afresh. The browser gets the same stream
 * through the tRPC subscription.
 */
export const GET: RequestHandler = async ({ request, locals }) => {
  const header = request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('lastEventId');
  const lastEventId = header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
  const abort = new AbortController();
  request.signal.addEventListener('abort', () => abort.abort(), { once: true });
  const caller = await callerFor(locals.request, abort.signal);
  const events = await caller.notifications.stream(lastEventId === undefined ? {} : { lastEventId });
  const encoder = new TextEncoder();
  let ping: ReturnType<typeof setInterval> | undefined;

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      send('retry: 5000\n\n');
      ping = setInterval(() => send(': ping\n\n'), PING_MS);
      try {
        for await (const event of events) {
          // Every event is tracked: its id is the seq to resume from. (A server-side caller hands out the
          // procedure's own envelopes, though the types promise the client's `{ id, data }`.)
          const raw: unknown = event;
          const { id, data } = isTrackedEnvelope(raw) ? { id: raw[0], data: raw[1] as typeof event.data } : event;
          send(`id: ${id}\nevent: ${data.kind}\ndata: ${JSON.stringify(data)}\n\n`);
        }
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      } finally {
        clearInterval(ping);
        if (!abort.signal.aborted) controller.close();
      }
    },
    cancel() {
      clearInterval(ping);
      abort.abort();
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  });
};
