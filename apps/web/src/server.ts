// The dashboard's server (`npm start`, the Docker image, the browser tests), bundled to build/server.js.
// It serves adapter-node's handler (static files, then SvelteKit) behind the guards, so the Host and
// cross-site guards and the security headers cover static files too, which SvelteKit's hooks never see.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { MAX_DUMP_BYTES } from '@dash/contracts';
import { bindUrl, readEnv, type Env } from './lib/server/env.ts';
import { guard, securityHeaders, type GuardConfig } from './lib/server/guard.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

// A variable set to the empty string counts as unset here as everywhere in the app. adapter-node
// reads its own variables (ORIGIN, ADDRESS_HEADER, …) as they are set, so blanks go before it loads.
for (const [name, value] of Object.entries(process.env)) {
  if (value?.trim() === '') delete process.env[name];
}

let env: Env;
try {
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

const config: GuardConfig = { mode: env.mode, origin, allowedHosts: env.DASHBOARD_ALLOWED_HOSTS };
const headers = Object.entries(securityHeaders(origin));

// adapter-node reads a body up to BODY_SIZE_LIMIT: the import route takes a dump of up to 50 MB. Every other
// request keeps the limit it had (its declared size is checked below; the REST adapter counts what it reads).
const IMPORT_PATH = '/api/database/import';
const BODY_LIMIT = 512 * 1024;
process.env.BODY_SIZE_LIMIT = String(MAX_DUMP_BYTES + 1024 * 1024);

const { handler } = (await import(new URL('./handler.js', import.meta.url).href)) as { handler: Handler };

/** A request that says its body is larger than its route takes (only the import route takes more than 512 KB). */
function tooLarge(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length'] ?? 0);
  return declared > BODY_LIMIT && (req.url ?? '/').split('?')[0] !== IMPORT_PATH;
}

const server = createServer((req, res) => {
  for (const [name, value] of headers) res.setHeader(name, value);
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
    res.writeHead(verdict.status, verdict.headers).end(verdict.body);
    return;
  }
  if (tooLarge(req)) {
    const body = JSON.stringify({ error: { code: 'PAYLOAD_TOO_LARGE', message: `The request body is larger than ${BODY_LIMIT / 1024} KB` } });
    res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', connection: 'close' }).end(body);
    return;
  }
  handler(req, res, () => res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found'));
});

server.listen({ host: env.HOST, port: env.PORT }, () => {
  console.log(`Listening on ${bindUrl(env.HOST, env.PORT)}`);
  if (env.mode === 'remote') console.log(`[dashboard] remote mode: served as ${origin}; a password is required`);
});

// As adapter-node's own server: finish open requests, let the app close its store and sandbox, then
// exit (the sign-in throttle's windows are timers that would otherwise hold the process for minutes).
let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  // The app ends its live streams (an open tab's bell, a REST SSE client) instead of holding the close for 30 s;
  // each connection is closed as soon as it is idle.
  (process.emit.bind(process) as (event: string) => boolean)('dashboard:stopping');
  server.closeIdleConnections();
  setInterval(() => server.closeIdleConnections(), 50).unref();
  server.close(() => {
    // adapter-node's event for the app's own cleanup; Node's types know only built-in events.
    (process.emit.bind(process) as (event: string, reason: string) => boolean)('sveltekit:shutdown', 'SIGTERM');
    setTimeout(() => process.exit(0), 1000).unref();
  });
  setTimeout(() => server.closeAllConnections(), Number(process.env.SHUTDOWN_TIMEOUT ?? 30) * 1000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
