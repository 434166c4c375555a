import type { Exchange } from '../service.ts';
import type { SandboxServiceName } from '../services.ts';
import { descriptionOf } from './descriptions.ts';
import { isExcused } from './exceptions.ts';

/**
 * What is wrong with one request and its answer, held to the provider's own description: the
 * request as the connector sent it, and the answer the fake gave. An answer a test injected (a 503, a
 * body that is not JSON) is that test's claim and is not held to the description; its request is.
 * Problems listed in `exceptions.ts` are excused.
 */
export function contractProblems(exchange: Exchange): string[] {
  const service = exchange.service as SandboxServiceName;
  const described = descriptionOf(service);
  if (!described) return [];
  const pathname = exchange.path.split('?')[0] ?? '';
  const request: string[] = [];
  const response: string[] = [];
  switch (described.kind) {
    case 'openapi':
      request.push(...described.description.checkRequest(exchange));
      // An answer can only be judged against an operation the description has.
      if (!exchange.injected && typeof described.description.find(exchange.method, exchange.path) !== 'string') {
        response.push(...described.description.checkResponse(exchange));
      }
      break;
    case 'graphql':
      if (exchange.method !== 'POST' || !described.paths.includes(pathname)) {
        request.push(`${exchange.method} ${pathname} is not ${described.description.name}'s GraphQL endpoint`);
        break;
      }
      request.push(...described.description.checkRequest(exchange.body).map((p) => `${described.description.name} GraphQL: ${p}`));
      if (!exchange.injected) {
        response.push(...described.description.checkResponse(exchange.body, exchange.reply.body).map((p) => `${described.description.name} GraphQL → ${exchange.status}: ${p}`));
      }
      break;
    case 'body-schema': {
      const { operation, validate } = described.description;
      if (`${exchange.method} ${pathname}` !== operation) {
        request.push(`${exchange.method} ${pathname} is not described`);
        break;
      }
      if (!validate(exchange.body)) {
        request.push(...(validate.errors ?? []).map((e) => `${operation}: the body${e.instancePath} ${e.message ?? e.keyword}`));
      }
      break;
    }
  }
  // Excused problems go first, so that a listed exception never crowds out one that is not.
  const problems = [...new Set([...request.map((p) => `request: ${p}`), ...response.map((p) => `response: ${p}`)])].filter((problem) => !isExcused(service, problem));
  return problems.length > MAX_PROBLEMS ? [...problems.slice(0, MAX_PROBLEMS), `… and ${problems.length - MAX_PROBLEMS} more`] : problems;
}

/** Enough to find each field; a wholly wrong answer would otherwise list hundreds. */
const MAX_PROBLEMS = 8;
