import { openApiJudge } from '@dash/api/testing';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Holds an answer from the built server to the OpenAPI document (status listed, content type, body, headers), when it
 * is for an operation the document describes: the tests' HTTP helpers (`raw`, `dashboard.fetch`) call it, so a
 * route whose answers drift from its description fails the test that saw it. tRPC, pages and unknown paths pass.
 */
export function holdToDocument(method: string, path: string, status: number, headers: Headers | IncomingHttpHeaders, body: string): void {
  if (!path.startsWith('/api/') || path.startsWith('/api/trpc/')) return;
  openApiJudge().assert({ method, path, status, headers: headers, body });
}

/** `holdToDocument` for a fetch Response, read from a clone (an event stream is judged by its status and type only). */
export async function holdResponseToDocument(method: string, url: string, response: Response): Promise<void> {
  const { pathname, search } = new URL(url);
  const streaming = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const body = streaming || method === 'HEAD' ? '' : await response.clone().text();
  holdToDocument(method, pathname + search, response.status, response.headers, body);
}
