// The dashboard's server, bundled to build/server.js; build/index.js (what `node build` runs, adapter-node's
// entry until svelte.config.js replaces it) only loads this, so `npm start`, `node build`, `node build/index.js`,
// the Docker image and the browser tests all serve the same way. It serves adapter-node's handler (static files,
// then SvelteKit) behind the guards, so the Host and cross-site guards, the body limits and the security headers
// cover static files too, which SvelteKit's hooks never see.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isLoopbackHost, MAX_DUMP_BYTES } from '@dash/contracts';
import { bindUrl, readEnv, unsupportedListener, type Env } from './lib/server/env.ts';
import { bodyLimit, guard, securityHeaders, tooLargeVerdict, type GuardConfig } from './lib/server/guard.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

// A variable set to the empty string counts as unset here as everywhere in the app. adapter-node
// reads its own variables (ORIGIN, ADDRESS_HEADER, …) as they are set, so blanks go before it loads.
for (const [name, value] of Object.entries(process.env)) {
  if (value?.trim() === '') delete process.env[name];
}

let env: Env;
try {
  const unsupported = unsupportedListener(process.env);
  if (unsupported) throw new Error(unsupported);
  env = readEnv(process.env, process.cwd());
} catch (error) {
  console.error(`[dashboard] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

// In local mode the canonical origin is the loopback address it listens on (env.ts); adapter-node then builds
// request URLs (and SvelteKit its form check) from it instead of trusting the Host header.
const origin = env.publicOrigin;
process.env.ORIGIN = origin;
process.env.HOST = env.HOST;
process.env.PORT = String(env.PORT);
// The client address is the socket's, or with TRUST_PROXY the right-most X-Forwarded-For hop (hooks.server.ts).
// adapter-node's own ADDRESS_HEADER would have the client choose it, or throw where the header is missing.
delete process.env.ADDRESS_HEADER;
delete process.env.XFF_DEPTH;

const config: GuardConfig = { mode: env.mode, origin, allowedHosts: env.DASHBOARD_ALLOWED_HOSTS };
const headers = Object.entries(securityHeaders(origin));

// Each route's body limit is enforced below on the bytes read; adapter-node's own BODY_SIZE_LIMIT stays above the
// largest of them (the import's) so it never answers first, in its own words.
process.env.BODY_SIZE_LIMIT = String(MAX_DUMP_BYTES + 1024 * 1024);

const { handler } = (await import(new URL('./handler.js', import.meta.url).href)) as { handler: Handler };

function answer(res: ServerResponse, verdict: { status: number; headers: Record<string, string>; body: string }) {
  res.writeHead(verdict.status, verdict.headers).end(verdict.body);
}

/**
 * After the edge answered, whatever the handler still does with `res` goes nowhere: the handler reading the body
 * sees it cut and answers too, and adapter-node's setResponse would throw (uncaught) on a response already sent.
 */
function seal(res: ServerResponse) {
  const ignore = () => res;
  Object.assign(res, { setHeader: ignore, appendHeader: ignore, removeHeader: () => undefined, getHeaderNames: () => [], writeHead: ignore, flushHeaders: () => undefined, write: () => true, end: ignore });
}

/**
 * After a 413, or an answer given before the body was read, how much more of the body is read and thrown away, and how
 * long the connection is kept before it goes (see limitBody). The time is nginx's `lingering_timeout` default.
 */
const LINGER_BYTES = 4 * 1024 * 1024;
const LINGER_MS = 5000;

/**
 * Holds a request's body to `limit` bytes, counted as the HTTP parser hands them to the request stream (chunked or
 * not, whatever Content-Length says), before adapter-node's handler or anyone else reads them; every chunk within
 * the limit goes on unchanged, in order. Over it: 413 with `Connection: close` (unless an answer has started), and
 * nothing more reaches the handler.
 *
 * The connection then closes the way HTTP servers close one with a body still coming (a "lingering close"). Closing
 * a socket with unread bytes resets it, and a client still sending meets the reset on its next write, before it has
 * read the answer, which is lost with the connection. So the answer goes out with a FIN; what still arrives is read and
 * thrown away, up to LINGER_BYTES; past that the socket is no longer read, so TCP holds the client's writes back
 * without a reset while it reads the answer; and after LINGER_MS the connection goes. Counting bytes alone is not
 * enough: the kernel's buffers may already hold megabytes the client wrote before the answer was sent.
 */
function limitBody(req: IncomingMessage, res: ServerResponse, limit: number): { refuseDeclared(): boolean } {
  const socket = req.socket;
  let received = 0;
  let discarded = 0;
  let lingering = false;
  /** The FIN once the answer is out: at once, or when an answer still being written finishes. */
  const endAfterAnswer = () => (res.writableFinished ? socket.end() : res.once('finish', () => socket.end()));
  const linger = () => {
    if (lingering) return;
    lingering = true;
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    endAfterAnswer();
    // Reading again if a handler that stopped reading had paused it: what still comes is thrown away, up to the bytes.
    req.resume();
  };
  const refuse = () => {
    if (!res.headersSent) {
      // Node ends a `connection: close` answer with destroySoon(), which would reset a socket with bytes still coming.
      socket.destroySoon = () => socket.end();
      answer(res, tooLargeVerdict(limit));
      seal(res);
    }
    linger();
  };
  // Whatever the answer left unread (a 401 at once, any of the guard's) is read after it, thrown away and counted to
  // the limit: within it, the connection serves its next request; over it, it lingers and closes as above. Node's own
  // clean-up (dumping a body nobody read) would read all of it, uncounted; a handler's stream that stopped reading
  // would leave it to stall until the keep-alive timeout reset it. `read(0)` marks the body taken, so Node leaves it.
  req.read(0);
  res.once('finish', () => {
    if (lingering) return;
    req.removeAllListeners('data');
    req.resume();
  });
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (lingering) {
      // The client stopped: nothing is left unread, so the connection can close cleanly.
      if (chunk === null) endAfterAnswer();
      else if ((discarded += (chunk as Uint8Array).length) > LINGER_BYTES) {
        // Enough thrown away: the socket is not read any more (Node's parser reads it only while the socket flows).
        socket.pause();
        return false;
      }
      return true;
    }
    if (chunk !== null) {
      received += (chunk as Uint8Array).length;
      if (received > limit) {
        refuse();
        return true;
      }
    }
    return push(chunk, encoding);
  };
  return {
    /** Answers 413 when the declared Content-Length already passes the limit (before a byte of the body is read). */
    refuseDeclared: () => {
      if (Number(req.headers['content-length'] ?? 0) <= limit) return false;
      refuse();
      return true;
    },
  };
}

const server = createServer((req, res) => {
  for (const [name, value] of headers) res.setHeader(name, value);
  // Held before any answer, the guard's too (a 403, or a webhook's 415): an answer given with the body unread ends
  // its connection as limitBody says, never left to stall until the keep-alive timeout resets it.
  const body = limitBody(req, res, bodyLimit(req.method ?? 'GET', req.url ?? '/'));
  const verdict = guard(
    {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      header: (name) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    config,
  );
  if (verdict) {
    answer(res, verdict);
    return;
  }
  if (body.refuseDeclared()) return;
  handler(req, res, () => res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found'));
});

// adapter-node's timeouts, in seconds, as its own entry takes them.
for (const [name, set] of [
  ['KEEP_ALIVE_TIMEOUT', (ms: number) => (server.keepAliveTimeout = ms)],
  ['HEADERS_TIMEOUT', (ms: number) => (server.headersTimeout = ms)],
] as const) {
  const value = process.env[name];
  if (value === undefined) continue;
  if (!/^\d+$/.test(value.trim())) {
    console.error(`[dashboard] ${name} is a whole number of seconds, not "${value}"`);
    process.exit(1);
  }
  set(Number(value) * 1000);
}

server.listen({ host: env.HOST, port: env.PORT }, () => {
  // The mode came from HOST; it must describe the address actually bound (a `localhost` that resolves elsewhere).
  const bound = server.address();
  const address = typeof bound === 'object' && bound ? bound.address : String(bound);
  if (env.mode === 'local' && !isLoopbackHost(address)) {
    console.error(`[dashboard] HOST=${env.HOST} resolved to ${address}, which is not this machine's loopback: set HOST=127.0.0.1, or ORIGIN for a remote dashboard`);
    process.exit(1);
  }
  console.log(`Listening on ${bindUrl(env.HOST, env.PORT)}`);
  if (env.mode === 'remote') console.log(`[dashboard] remote mode: served as ${origin}; a password is required`);
});

// As adapter-node's own server: finish open requests, let the app close its store and sandbox, then
// exit (the sign-in throttle's windows are timers that would otherwise hold the process for minutes).
/** The longest the app's own cleanup may take once the requests are done: under Docker's 10 s before its SIGKILL. */
const CLEANUP_MS = 8_000;
let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  // Node's types know only built-in events.
  const emit = process.emit.bind(process) as (event: string, ...args: unknown[]) => boolean;
  // The app ends its live streams (an open tab's bell, a REST SSE client) instead of holding the close for 30 s;
  // each connection is closed as soon as it is idle.
  emit('dashboard:stopping');
  server.closeIdleConnections();
  setInterval(() => server.closeIdleConnections(), 50).unref();
  server.close(() => {
    // adapter-node's event for the app's own cleanup (the relay poller lets go of its lease, the store closes). The
    // exit waits for the app to say it is done ('dashboard:stopped'), however busy the machine: an exit on a timer
    // cut the cleanup short under load and left the lease held for its 30 s. CLEANUP_MS is the backstop.
    if (process.listenerCount('sveltekit:shutdown') === 0) process.exit(0);
    process.once('dashboard:stopped', () => process.exit(0));
    emit('sveltekit:shutdown', 'SIGTERM');
    setTimeout(() => {
      console.error(`[dashboard] the cleanup did not finish within ${CLEANUP_MS / 1000} s of the stop; exiting without it`);
      process.exit(0);
    }, CLEANUP_MS).unref();
  });
  setTimeout(() => server.closeAllConnections(), Number(process.env.SHUTDOWN_TIMEOUT ?? 30) * 1000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
