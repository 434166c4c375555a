import type { IncomingHttpHeaders } from 'node:http';

/** A request as a fake upstream sees it: JSON (or form) body already parsed. */
export interface SandboxRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Path parameters of the matched route, decoded. */
  params: Record<string, string>;
  /** Parsed JSON, or the form fields of an urlencoded body; undefined when there was none. */
  body: unknown;
  /** The body's bytes as they came (a binary body, such as an encrypted push message); set by the harness. */
  rawBody?: Buffer;
  /** The sandbox's own origin, for `next` links: `http://127.0.0.1:<port>`. */
  origin: string;
  /** The moment the sandbox answers at, in ms (controllable in tests). */
  now: number;
}

export interface SandboxReply {
  status?: number;
  headers?: Record<string, string>;
  /** Serialised as JSON unless it is a string. */
  body?: unknown;
}
