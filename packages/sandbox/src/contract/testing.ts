import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Exchange } from '../service.ts';
import type { SandboxServiceName } from '../services.ts';
import { contractProblems } from './check.ts';
import { startDescribedUpstream, type DescribedUpstream } from './described.ts';
import type { SampleMode } from './openapi.ts';

/** The observer `holdToDescriptions` hands to `startSandbox({ observe })`. */
export interface DescriptionGuard {
  (exchange: Exchange): void;
  /**
   * Sends requests that break the description on purpose (a fake's test of the provider's 400): their
   * requests are not held to it while `send` runs; the answers still are.
   */
  offDescription<T>(send: () => Promise<T>): Promise<T>;
}

/**
 * For a test file whose sandbox is started with `startSandbox({ observe })`: every request the file's
 * tests send and every answer the fakes give is held to the provider's own description, and a test
 * whose traffic breaks it fails, naming the operation and the field.
 */
export function holdToDescriptions(): DescriptionGuard {
  const problems: string[] = [];
  let wrongOnPurpose = 0;
  afterEach(() => {
    const found = [...new Set(problems.splice(0))];
    if (found.length > 0) expect.fail(`Traffic that breaks the provider's API description:\n- ${found.join('\n- ')}`);
  });
  const observe = (exchange: Exchange) => {
    try {
      const found = contractProblems(exchange).filter((problem) => wrongOnPurpose === 0 || !problem.startsWith('request: '));
      problems.push(...found.map((problem) => `${exchange.service} ${problem}`));
    } catch (error) {
      problems.push(`${exchange.service}: could not check ${exchange.method} ${exchange.path}: ${(error as Error).message}`);
    }
  };
  return Object.assign(observe, {
    async offDescription<T>(send: () => Promise<T>): Promise<T> {
      wrongOnPurpose++;
      try {
        return await send();
      } finally {
        wrongOnPurpose--;
      }
    },
  });
}

const suspicious = /\b(undefined|null|NaN)\b|\[object Object\]|Invalid Date/;

/**
 * What a user would see wrong in a connector's output: a number that is not finite, or a string
 * that carries `undefined`, `null`, `NaN`, `Invalid Date` or `[object Object]`. Returns where.
 */
export function insaneValues(value: unknown, path = 'output'): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path} is ${value}`];
  if (typeof value === 'string') return suspicious.test(value) ? [`${path} reads "${value}"`] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => insaneValues(item, `${path}.${i}`));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => insaneValues(item, `${path}.${key}`));
  return [];
}

/**
 * A described upstream for the tests of the enclosing block: started before them, its request log
 * emptied before each, closed after. The handle is filled in when it starts.
 */
export function useDescribedUpstream(service: SandboxServiceName, mode: SampleMode): DescribedUpstream {
  const upstream: DescribedUpstream = { baseUrl: '', requests: [], close: () => Promise.resolve() };
  beforeAll(async () => {
    Object.assign(upstream, await startDescribedUpstream(service, mode));
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });
  afterAll(() => upstream.close());
  return upstream;
}
