// The dashboard's server, bundled to build/server.js; build/index.js (what `node build` runs, adapter-node's
// entry until svelte.config.js replaces it) only loads this, so `npm start`, `node build`, `node build/index.js`,
// the Docker image and the browser tests all serve the same way. It serves adapter-node's handler (static files,
// then SvelteKit) behind the guards, so the Host and cross-site guards, the body limits and the security headers
// cover static files too, which SvelteKit's hooks never see.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isLoopbackHost, MAX_DUMP_BYTES } from '@dash/contracts';
import { clientAddressOf, connectionGroup } from './lib/server/client-address.ts';
import { bindUrl, readEnv, unsupportedListener, type Env } from './lib/server/env.ts';
import { bodyLimit, closingVerdict, guard, securityHeaders, staticFilePolicy, timeoutVerdict, tooLargeVerdict, type GuardConfig, type Verdict } from './lib/server/guard.ts';
import { connectionLimits, type ConnectionLimits } from './lib/server/server-config.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

// A variable set to the empty string counts as unset here as everywhere in the app. adapter-node
// reads its own variables (ORIGIN, ADDRESS_HEADER, …) as they are set, so blanks go before it loads.
for (const [name, value] of Object.entries(process.env)) {
  if (value?.trim() === '') delete process.env[name];
}

let env: Env;
let limits: ConnectionLimits;
try {
  const unsupported = unsupportedListener(process.env);
  if (unsupported) throw new Error(unsupported);
  env = readEnv(process.env, process.cwd());
  limits = connectionLimits(process.env, env.TRUST_PROXY);
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

function answer(res: ServerResponse, verdict: NonNullable<Verdict>) {
  res.writeHead(verdict.status, verdict.headers).end(verdict.body);
}

/** A line for whoever looks into a slow or refused client; not an error: the edge did its job. */
const debug = (message: string) => console.debug(`[dashboard] ${message}`);

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
  /** The parser has handed over the body's end: nothing more of this request is coming. */
  let complete = false;
  /** Why the edge cut the request short, for its line in the log; undefined if it was the client that went. */
  let reason: string | undefined;
  let lingerCap: NodeJS.Timeout | undefined;
  const from = clientAddressOf(socket.remoteAddress, req.headers['x-forwarded-for'] as string | undefined, env.TRUST_PROXY) ?? 'unknown';
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
    reason ??= `its body passed the route's ${limit / 1024} KB (413)`;
    if (!res.headersSent) {
      // Node ends a `connection: close` answer with destroySoon(), which would reset a socket with bytes still coming.
      socket.destroySoon = () => socket.end();
      answer(res, tooLargeVerdict(limit));
      seal(res);
    }
    linger();
  };
  /**
   * Cuts the request short while its body is still coming: `verdict` unless an answer has started, then the connection
   * goes, and a handler still reading the body sees it end in an error, as when a client goes (hooks.server.ts's
   * handleError knows it by the request's aborted signal). Node's own timeouts end here too (clientError, below).
   */
  const cut = (why: string, verdict?: NonNullable<Verdict>) => {
    if (complete) return;
    reason ??= why;
    const close = () => {
      socket.destroy();
      if (!req.destroyed) req.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    };
    if (!verdict || res.headersSent) return close();
    answer(res, verdict);
    seal(res);
    if (res.writableFinished) close();
    else {
      res.once('finish', close);
      setTimeout(close, LINGER_MS).unref();
    }
  };
  const onClose = () => {
    if (!complete) debug(`request cut short: ${req.method} ${(req.url ?? '').slice(0, 200)} from ${from}: ${reason ?? CLIENT_WENT}`);
  };
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  const bodyDone = () => {
    if (complete) return;
    complete = true;
    clearTimeout(lingerCap);
    socket.off('close', onClose);
    if (reading.get(socket) === cut) reading.delete(socket);
    // The body's idle timer stops with it (a slow answer or a live stream is not the body's business), unless Node has
    // already put its keep-alive timer in its place after an answer.
    if (hasBody && !res.writableFinished) socket.setTimeout(0);
  };
  reading.set(socket, cut);
  socket.once('close', onClose);
  if (hasBody) {
    // Node restarts the socket's timer on every read, and tells the request whose body has not all come when it runs out.
    req.once('timeout', () => cut(`no byte of its body for ${limits.bodyIdleTimeoutMs / 1000} s (BODY_IDLE_TIMEOUT)`, timeoutVerdict(`No byte of the body came for ${limits.bodyIdleTimeoutMs / 1000} s`)));
    socket.setTimeout(limits.bodyIdleTimeoutMs);
  }
  // Whatever the answer left unread (a 401 at once, any of the guard's) is read after it, thrown away and counted to
  // the limit: within it, the connection serves its next request; over it, it lingers and closes as above. Node's own
  // clean-up (dumping a body nobody read) would read all of it, uncounted; a handler's stream that stopped reading
  // would leave it to stall until the keep-alive timeout reset it. `read(0)` marks the body taken, so Node leaves it.
  // The rest has LINGER_MS to come, as after a 413: a client that keeps it trickling would otherwise hold the
  // connection until REQUEST_TIMEOUT.
  req.read(0);
  res.once('finish', () => {
    if (lingering || complete) return;
    req.removeAllListeners('data');
    req.resume();
    lingerCap = setTimeout(() => cut(`the rest of its body did not come within ${LINGER_MS / 1000} s of the answer`), LINGER_MS).unref();
  });
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === null) bodyDone();
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

/** Each connection's request whose body is still coming, and how to cut it short (limitBody): Node's timeouts end there. */
const reading = new WeakMap<Duplex, (why: string, verdict?: NonNullable<Verdict>) => void>();
/** Each connection's answers not yet finished: Node's own answer to a request it gave up on must not cut into one. */
const answering = new WeakMap<Duplex, number>();

const server = createServer(
  {
    // Node's own clocks: headers from a request's first byte (a connection's opening), the whole request from there.
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
  },
  (req, res) => {
    const socket = req.socket;
    answering.set(socket, (answering.get(socket) ?? 0) + 1);
    res.once('close', () => answering.set(socket, (answering.get(socket) ?? 1) - 1));
    for (const [name, value] of headers) res.setHeader(name, value);
    // The service worker and the offline page run under policies of their own (guard.ts).
    const policy = staticFilePolicy(req.url ?? '/');
    if (policy) res.setHeader('content-security-policy', policy);
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
  },
);

/** Node's answers when it gives up on a request, as its own default 'clientError' handling writes them. */
const GAVE_UP: Record<string, string> = {
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
};

const CLIENT_WENT = 'the client closed the connection before the end of its body';

// A request Node gives up on: past HEADERS_TIMEOUT or REQUEST_TIMEOUT (its check every second), or malformed. One with
// its body coming is cut as limitBody cuts (and gets its line when its connection closes); headers that never end get
// Node's own answer and a line here. A client that closed or reset its connection mid-request is only gone.
server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
  const code = error.code ?? '';
  const timedOut = code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const cut = reading.get(socket);
  if (code === 'HPE_INVALID_EOF_STATE' || (!timedOut && !code.startsWith('HPE_'))) {
    cut?.(CLIENT_WENT);
    socket.destroy();
    return;
  }
  if (cut) {
    if (timedOut) cut(`not all of it within REQUEST_TIMEOUT (${limits.requestTimeoutMs / 1000} s)`, timeoutVerdict(`The request did not all come within ${limits.requestTimeoutMs / 1000} s`));
    else cut(`a malformed body (${code})`, closingVerdict(400, 'BAD_REQUEST', 'The request body is malformed'));
    return;
  }
  const from = (socket as Socket).remoteAddress ?? 'unknown';
  debug(`connection from ${from} closed: ${timedOut ? `its headers did not all come within HEADERS_TIMEOUT (${limits.headersTimeoutMs / 1000} s)` : `a malformed request (${code})`}`);
  if (socket.writable && !answering.get(socket)) socket.write(`HTTP/1.1 ${GAVE_UP[code] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
  socket.destroy();
});

// MAX_CONNECTIONS is Node's own: past it, a new connection is closed as it comes ('drop'). MAX_CONNECTIONS_PER_ADDRESS
// counts the socket's address (an IPv6 one by its /64); behind a trusted proxy every connection is the proxy's, so
// there it is not applied (connectionLimits), and the proxy's own limits stand in. Each is one line when it is reached,
// not one per connection closed.
server.maxConnections = limits.maxConnections;
let atMaxConnections = false;
server.on('drop', () => {
  if (atMaxConnections) return;
  atMaxConnections = true;
  debug(`MAX_CONNECTIONS (${limits.maxConnections}) reached: new connections are closed as they come until some go`);
});
const perAddress = new Map<string, number>();
const atCap = new Set<string>();
server.on('connection', (socket: Socket) => {
  atMaxConnections = false;
  const cap = limits.maxConnectionsPerAddress;
  if (cap === undefined) return;
  const group = connectionGroup(socket.remoteAddress);
  const count = (perAddress.get(group) ?? 0) + 1;
  if (count > cap) {
    if (!atCap.has(group)) debug(`MAX_CONNECTIONS_PER_ADDRESS (${cap}) reached by ${group}: its new connections are closed as they come until some go`);
    atCap.add(group);
    socket.destroy();
    return;
  }
  perAddress.set(group, count);
  socket.once('close', () => {
    atCap.delete(group);
    const left = (perAddress.get(group) ?? 1) - 1;
    if (left > 0) perAddress.set(group, left);
    else perAddress.delete(group);
  });
});

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
