import { listen, type DocumentedExample, type RunningServer } from '@dash/sandbox';
import type { ConnectorContext } from './context.ts';
import { unlimited } from './limiter.ts';
import { testClock } from './testing.ts';

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

/** A context for a connector aimed at `baseUrl`, with any token (the documentation server checks none). */
export function documentedContext(baseUrl: string): ConnectorContext {
  const clock = testClock();
  return {
    credentials: { apiToken: 'documented-token', apiKey: 'documented-token' },
    baseUrl,
    fetch: globalThis.fetch,
    clock,
    limiter: unlimited(clock),
  };
}

/**
 * Values in a connector's output a user would see as broken, with where they are: a number that is not
 * finite, or text that reads "undefined", "null" or "NaN".
 */
export function brokenValues(value: unknown, at = '$'): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${at}: ${value}`];
  if (typeof value === 'string') return /\b(undefined|null|NaN)\b/.test(value) ? [`${at}: "${value}"`] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => brokenValues(item, `${at}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => brokenValues(item, `${at}.${key}`));
  return [];
}
