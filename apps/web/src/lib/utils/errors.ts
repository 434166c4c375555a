import { TRPCClientError } from '@trpc/client';
import type { ErrorIssue } from '@dash/contracts';

export interface DescribedError {
  /** The server's message, to show in the form's alert. */
  message: string;
  /** Field path (`values.token`, `slug`) -> the server's message for that field. */
  fields: Record<string, string>;
}

const unreachable = 'The dashboard server cannot be reached. Is it still running?';

/**
 * Whether a value is an `ErrorIssue` (contracts' errorIssueSchema), checked by hand: every page loads this file before
 * its first paint, and zod would be most of the script it waits for.
 */
const isIssue = (issue: unknown): issue is ErrorIssue =>
  typeof issue === 'object' &&
  issue !== null &&
  'message' in issue &&
  typeof issue.message === 'string' &&
  'path' in issue &&
  Array.isArray(issue.path) &&
  issue.path.every((part: unknown) => typeof part === 'string' || typeof part === 'number');

/** The `issues` of a validation error's data, as the server sent them. */
function issuesOf(data: unknown): ErrorIssue[] {
  if (!data || typeof data !== 'object' || !('issues' in data) || !Array.isArray(data.issues)) return [];
  return data.issues.filter(isIssue);
}

/**
 * The message of an answer in the REST shape (`{ error: { code, message } }`) rather than tRPC's: what the server's hooks
 * answer before any procedure runs (a read-only API token's change is a 403, too many attempts a 429). The tRPC client
 * cannot read it as a result ("Unable to transform response from server") but keeps it in its meta.
 */
function restMessage(meta: unknown): string | undefined {
  const json = meta && typeof meta === 'object' && 'responseJSON' in meta ? meta.responseJSON : undefined;
  if (!json || typeof json !== 'object' || Array.isArray(json) || !('error' in json)) return undefined;
  const { error } = json;
  return error && typeof error === 'object' && 'message' in error && typeof error.message === 'string' ? error.message : undefined;
}

/** The one way the UI turns a failed call into words: the server's message and its per-field issues. */
export function describeError(error: unknown): DescribedError {
  if (error instanceof TRPCClientError) {
    // No answer at all: fetch itself failed (server down, network gone).
    if (error.cause instanceof TypeError && error.data === undefined) return { message: unreachable, fields: {} };
    const fields: Record<string, string> = {};
    for (const issue of issuesOf(error.data)) fields[issue.path.join('.')] ??= issue.message;
    return { message: (error.data === undefined ? restMessage(error.meta) : undefined) ?? error.message, fields };
  }
  if (error instanceof TypeError) return { message: unreachable, fields: {} };
  return { message: error instanceof Error ? error.message : String(error), fields: {} };
}
