/**
 * How long a client may take over a request, and how many connections it may hold (server.ts): the edge's answer to
 * slow clients, which would otherwise hold a connection for minutes by Node's defaults. Times are whole seconds, as
 * adapter-node takes KEEP_ALIVE_TIMEOUT and HEADERS_TIMEOUT.
 */
export interface ConnectionLimits {
  /** HEADERS_TIMEOUT: a request's headers, from its first byte (a new connection's, from its opening). */
  headersTimeoutMs: number;
  /** REQUEST_TIMEOUT: a whole request, headers and body; the answer may take longer. */
  requestTimeoutMs: number;
  /** BODY_IDLE_TIMEOUT: a body that stops coming for this long is cut. */
  bodyIdleTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT: a connection left idle between requests. */
  keepAliveTimeoutMs: number;
  /** How often Node looks for requests past their headers or request timeout (its own default is 30 s). */
  checkIntervalMs: number;
  /** MAX_CONNECTIONS: open connections in all; more are closed as they come. */
  maxConnections: number;
  /**
   * MAX_CONNECTIONS_PER_ADDRESS: open connections from one client address (an IPv6 one by its /64); undefined with
   * TRUST_PROXY, where every connection comes from the proxy and the client is not known before its headers.
   */
  maxConnectionsPerAddress: number | undefined;
}

/** The defaults, in seconds and connections: a 30 s request (Apache's 20 s body, nginx's 60 s idle, between), 15 s headers. */
export const CONNECTION_DEFAULTS = {
  HEADERS_TIMEOUT: 15,
  REQUEST_TIMEOUT: 30,
  BODY_IDLE_TIMEOUT: 10,
  KEEP_ALIVE_TIMEOUT: 5,
  // Under the 1024 files a process may open by default on most systems, with room for the store and outgoing calls.
  MAX_CONNECTIONS: 512,
  // A browser opens at most 6 to a host; several browsers and devices behind one address (an office) stay under it.
  MAX_CONNECTIONS_PER_ADDRESS: 32,
} as const;

/** A day: longer is a mistake, and past what Node's timers hold. */
const MAX_SECONDS = 86_400;

/** The limits from the environment (blank variables already dropped); a bad value throws, naming the variable. */
export function connectionLimits(raw: Readonly<Record<string, string | undefined>>, trustProxy: boolean): ConnectionLimits {
  const whole = (name: keyof typeof CONNECTION_DEFAULTS, unit: string, max: number) => {
    const value = raw[name]?.trim();
    if (value === undefined || value === '') return CONNECTION_DEFAULTS[name];
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
      throw new Error(`${name} is a whole number of ${unit} from 1 to ${max}, not "${raw[name]}"`);
    }
    return Number(value);
  };
  const seconds = (name: keyof typeof CONNECTION_DEFAULTS) => whole(name, 'seconds', MAX_SECONDS) * 1000;
  const headersTimeoutMs = seconds('HEADERS_TIMEOUT');
  const requestTimeoutMs = seconds('REQUEST_TIMEOUT');
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new Error(`HEADERS_TIMEOUT (${headersTimeoutMs / 1000} s) is longer than REQUEST_TIMEOUT (${requestTimeoutMs / 1000} s), which the headers are part of`);
  }
  const perAddress = whole('MAX_CONNECTIONS_PER_ADDRESS', 'connections', 1_000_000);
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    bodyIdleTimeoutMs: seconds('BODY_IDLE_TIMEOUT'),
    keepAliveTimeoutMs: seconds('KEEP_ALIVE_TIMEOUT'),
    checkIntervalMs: 1000,
    maxConnections: whole('MAX_CONNECTIONS', 'connections', 1_000_000),
    maxConnectionsPerAddress: trustProxy ? undefined : perAddress,
  };
}
