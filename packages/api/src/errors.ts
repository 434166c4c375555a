import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { ErrorBody, ErrorCode, ErrorIssue } from '@dash/contracts';
import { errorCodes } from '@dash/contracts';

interface SchemaIssue {
  path?: readonly (PropertyKey | { key: PropertyKey })[] | undefined;
  message: string;
}

function schemaIssuesOf(cause: unknown): readonly SchemaIssue[] | undefined {
  if (cause && typeof cause === 'object' && 'issues' in cause && Array.isArray(cause.issues)) {
    return cause.issues as readonly SchemaIssue[];
  }
  return undefined;
}

/** Zod and Standard Schema issues as `{ path, message }` with JSON-safe paths. */
export function issuesOf(error: TRPCError): ErrorIssue[] | undefined {
  const issues = schemaIssuesOf(error.cause);
  return issues?.map((issue) => ({
    path: (issue.path ?? []).map((part) => {
      const key = typeof part === 'object' ? part.key : part;
      return typeof key === 'number' ? key : String(key);
    }),
    message: issue.message,
  }));
}

/** "slug: Use lowercase…" — a readable summary of the first issues instead of a JSON dump. */
function summarise(issues: ErrorIssue[]): string {
  const lines = issues.slice(0, 3).map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return `Invalid input: ${lines.join('; ')}${more}`;
}

/** An error the api throws on purpose, whose message is written for the user and safe to show. */
export class ExposedError extends TRPCError {}

/** A 429 that says when to come back: REST and tRPC answers carry `Retry-After` with its seconds. */
export class RetryLaterError extends ExposedError {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super({ code: 'TOO_MANY_REQUESTS', message });
    this.name = 'RetryLaterError';
  }
}

/** The `Retry-After` header an error asks for, if it asks for one. */
export const retryAfterOf = (error: unknown): Record<string, string> =>
  error instanceof RetryLaterError ? { 'retry-after': String(error.retryAfterSeconds) } : {};

/**
 * The one place that decides what a failure looks like from outside, for REST and tRPC alike:
 * validation issues are listed, deliberate errors keep their message, anything unexpected is
 * reported as an internal error without its message (which could carry anything).
 */
export function describeError(error: TRPCError): { status: number; body: ErrorBody } {
  const status = getHTTPStatusCodeFromError(error);
  const code: ErrorCode = (errorCodes as readonly string[]).includes(error.code) ? (error.code as ErrorCode) : 'INTERNAL_SERVER_ERROR';
  const issues = issuesOf(error);
  if (issues?.length && code === 'BAD_REQUEST') {
    return { status, body: { error: { code, message: summarise(issues), issues } } };
  }
  const exposed = error instanceof ExposedError || status < 500;
  return { status, body: { error: { code, message: exposed ? error.message : 'Internal error; the server log has the details' } } };
}

export function fail(code: TRPCError['code'], message: string, cause?: unknown): ExposedError {
  return new ExposedError({ code, message, cause });
}

/**
 * A 400 for one field of the input that only the procedure can judge (an address the guard refuses), answered as a
 * validation issue is: `issues` names the field by its path, the message leads with it (`destination.url: …`).
 */
export function fieldFail(path: readonly string[], message: string): ExposedError {
  const cause = Object.assign(new Error(message), { issues: [{ path, message }] });
  return new ExposedError({ code: 'BAD_REQUEST', message: `${path.join('.')}: ${message}`, cause });
}
