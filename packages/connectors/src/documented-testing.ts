import { listen, type DocumentedExample, type RunningServer } from '@dash/sandbox';
import type { ConnectorContext } from './context.ts';
import { describedContext } from './testing.ts';

/** What a documented-example server answers for one path: a documented example, or another status and body. */
export type DocumentedAnswer = Pick<DocumentedExample, 'status' | 'body'>;

/**
 * Serves provider documentation examples as they are printed, by path (query ignored): a test sees what
 * a connector makes of the provider's own example, not of our fake. Unknown paths answer 404.
 */
export async function serveDocumented(answers: Record<string, DocumentedAnswer>): Promise<RunningServer & { paths: string[] }> {
  const paths: string[] = [];
  const server = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://documented').pathname;
    paths.push(path);
    const answer = answers[path];
    res.writeHead(answer?.status ?? 404, { 'content-type': 'application/json' });
    res.end(answer?.body === undefined ? '' : JSON.stringify(answer.body));
  });
  return { ...server, paths };
}

/** A context for a connector aimed at a documentation server, with any token (it checks none). */
export const documentedContext = (baseUrl: string): ConnectorContext => describedContext({ baseUrl }, { apiToken: 'documented-token', apiKey: 'documented-token' });
