import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FakeOAuth } from './oauth.ts';
import type { SandboxReply, SandboxRequest } from './request.ts';

export type { SandboxReply, SandboxRequest } from './request.ts';

export interface SandboxRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** Under the service's root, with `:name` parameters: `/v1/charges`, `/v2/projects/:id/metrics/overview`. */
  path: string;
  handle(request: SandboxRequest): SandboxReply;
}

/** How a fake upstream answers over its limit, and the rate headers it sends on every answer. */
export interface SandboxRateLimit {
  limit: number;
  windowMs: number;
  /** Headers on every answer (`X-RateLimit-Remaining`…); none when absent. */
  headers?(state: { limit: number; used: number; resetAt: number; now: number }): Record<string, string>;
  /** The upstream's own 429. */
  tooMany(retryAfterMs: number): SandboxReply;
}

/** One fake upstream, written in the upstream's own protocol. */
export interface SandboxService {
  name: string;
  /** Appended to the server's URL to make the base URL a connector is given (`/v1`, `/api/0`…). */
  basePath: string;
  /** True when the request carries the sandbox's token in the upstream's way. */
  authorize(request: SandboxRequest): boolean;
  /** The upstream's real answer to a wrong token: 401 unless it says otherwise (Vercel answers 403). */
  unauthorized(request: SandboxRequest): SandboxReply;
  rateLimit: SandboxRateLimit;
  routes: SandboxRoute[];
  /** The provider's authorization-code flow, when it has one (Google, GitHub). */
  oauth?: FakeOAuth;
  /** Forgets what a test left behind (mails received…); the sandbox's `reset` calls it. */
  reset?(): void;
}

/** A failure a test injects into one service: an error status, latency, or a body that is not JSON. */
export interface Fault {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Delay before answering, in ms (the answer itself is normal unless status/malformed say otherwise). */
  latencyMs?: number;
  /** Answers 200 with a body that is not JSON. */
  malformed?: boolean;
  /** How many requests it affects; every one until cleared when absent. */
  times?: number;
}

export interface LoggedRequest {
  service: string;
  method: string;
  /** Path and query, as requested. */
  path: string;
  status: number;
  at: number;
}

/** A request a fake answered and its answer, as they crossed the wire: what the contract tests hold to the provider's description. */
export interface Exchange extends LoggedRequest {
  headers: IncomingHttpHeaders;
  /** The request's body, parsed as the fake parsed it. */
  body: unknown;
  reply: { headers: Record<string, string>; body: unknown };
  /** Answered by a fault a test injected: its shape is that test's claim, not the fake's. */
  injected: boolean;
}

const json = (res: ServerResponse, reply: SandboxReply) => {
  const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, {
    ...(typeof reply.body === 'string' ? {} : { 'content-type': 'application/json; charset=utf-8' }),
    ...reply.headers,
  });
  res.end(body);
};

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseBody(req: IncomingMessage, raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (text === '') return undefined;
  if (/application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? '')) return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}

/** The state of one running fake: its rate window, its injected faults, its request log. */
export class ServiceHarness {
  private sent: number[] = [];
  private faults: Fault[] = [];
  limit: { limit: number; windowMs: number };

  constructor(
    readonly service: SandboxService,
    private readonly clock: () => number,
    private readonly log: LoggedRequest[],
    private readonly observe?: (exchange: Exchange) => void,
  ) {
    this.limit = { limit: service.rateLimit.limit, windowMs: service.rateLimit.windowMs };
  }

  inject(fault: Fault) {
    this.faults.push({ ...fault });
  }

  clearFaults() {
    this.faults = [];
  }

  resetRateLimit() {
    this.sent = [];
  }

  resetState() {
    this.service.reset?.();
  }

  private takeFault(): Fault | undefined {
    const fault = this.faults[0];
    if (!fault) return undefined;
    if (fault.times !== undefined && --fault.times <= 0) this.faults.shift();
    return fault;
  }

  readonly handle = async (req: IncomingMessage, res: ServerResponse, origin: string) => {
    const url = new URL(req.url ?? '/', origin);
    const now = this.clock();
    const rawBody = await readRaw(req);
    const request: SandboxRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      params: {},
      body: parseBody(req, rawBody),
      rawBody,
      origin,
      now,
    };
    const { reply, injected } = await this.answer(request);
    const logged: LoggedRequest = { service: this.service.name, method: request.method, path: url.pathname + url.search, status: reply.status ?? 200, at: now };
    // The log lives as long as the demo does: bodies go only to an observer, never into it.
    this.log.push(logged);
    this.observe?.({ ...logged, headers: req.headers, body: request.body, reply: { headers: reply.headers ?? {}, body: reply.body }, injected });
    json(res, reply);
  };

  private async answer(request: SandboxRequest): Promise<{ reply: SandboxReply; injected: boolean }> {
    const { service } = this;
    const { rateLimit } = service;
    const now = request.now;
    this.sent = this.sent.filter((at) => at > now - this.limit.windowMs);
    const resetAt = (this.sent[0] ?? now) + this.limit.windowMs;
    if (this.sent.length >= this.limit.limit) {
      const retry = this.service.rateLimit.tooMany(Math.max(0, resetAt - now));
      return { reply: { ...retry, headers: { ...rateLimit.headers?.({ ...this.limit, used: this.sent.length, resetAt, now }), ...retry.headers } }, injected: false };
    }
    this.sent.push(now);
    const rateHeaders = rateLimit.headers?.({ ...this.limit, used: this.sent.length, resetAt, now }) ?? {};

    const fault = this.takeFault();
    if (fault?.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
    if (fault?.malformed) return { reply: { status: 200, headers: { 'content-type': 'application/json', ...rateHeaders }, body: '<html>Bad gateway</html>' }, injected: true };
    if (fault?.status) return { reply: { status: fault.status, headers: { ...rateHeaders, ...fault.headers }, body: fault.body ?? { error: 'injected' } }, injected: true };
    return { reply: this.route(request, rateHeaders), injected: false };
  }

  private route(request: SandboxRequest, rateHeaders: Record<string, string>): SandboxReply {
    const { service } = this;
    if (!service.authorize(request)) return { status: 401, ...service.unauthorized(request) };
    const path = request.path.startsWith(service.basePath) ? request.path.slice(service.basePath.length) || '/' : undefined;
    for (const route of service.routes) {
      if (path === undefined || route.method !== request.method) continue;
      const params = match(route.path, path);
      if (!params) continue;
      const reply = route.handle({ ...request, params });
      return { ...reply, headers: { ...rateHeaders, ...reply.headers } };
    }
    return { status: 404, headers: rateHeaders, body: { message: 'Not Found' } };
  }
}
