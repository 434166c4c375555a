import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { holdToDocument } from './described.ts';

/** An answer as it came over the socket. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The loopback address the request leaves from (127.0.0.2, …): another client as the server's socket sees it. */
  from?: string;
}

/**
 * One request exactly as curl sends it (its answer held to the OpenAPI document, see described.ts): these headers (and Host) and nothing a browser or fetch would add or refuse
 * (fetch may not set Host). Node's client would send a DELETE body with neither Content-Length nor chunked framing,
 * so a body always gets its length.
 */
export function raw(url: string, { method = 'GET', headers = {}, body, from }: RawRequest = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    // A connection of its own, as curl opens (agent: false): a kept-alive socket the server is closing at that moment
    // would hang the request up, and the more so on a loaded machine, where idle gaps pass its 5 s keep-alive.
    const req = httpRequest(url, { method, agent: false, headers: { ...length, ...headers }, ...(from ? { localAddress: from } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const { pathname, search } = new URL(url);
        try {
          holdToDocument(method, pathname + search, res.statusCode ?? 0, res.headers, text);
        } catch (error) {
          return reject(error instanceof Error ? error : new Error(String(error)));
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The `{ error }` of a JSON error answer. */
export const errorOf = (answer: Answer) => (JSON.parse(answer.body) as { error: { code: string; message: string } }).error;

/** `name=value` of the cookie an answer sets (the session's unless named), or ''. */
export const cookieOf = (answer: Answer, name = 'dash_session') =>
  ([answer.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith(`${name}=`)) ?? '').split(';')[0] ?? '';
