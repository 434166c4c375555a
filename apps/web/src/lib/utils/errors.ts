import { TRPCClientError } from '@trpc/client';
import type { ErrorIssue } from '@dash/contracts';

export interface DescribedError {
  /** The server's message, to show in the form's alert. */
  message: string;
  /** Field path (`values.token`, `slug`) -> the server's message for that field. */
  fields: Record<string, string>;
}

function issuesOf(error: TRPCClientError<never>): ErrorIssue[] {
  const data: unknown = error.data;
  if (data && typeof data === 'object' && 'issues' in data && Array.isArray(data.issues)) return data.issues as ErrorIssue[];
  return [];
}

/** The one way the UI turns a failed call into words: the server's message and its per-field issues. */
export function describeError(error: unknown): DescribedError {
  if (error instanceof TRPCClientError) {
    const fields: Record<string, string> = {};
    for (const issue of issuesOf(error as TRPCClientError<never>)) fields[issue.path.join('.')] ??= issue.message;
    return { message: error.message, fields };
  }
  if (error instanceof TypeError) return { message: 'The dashboard server cannot be reached. Is it still running?', fields: {} };
  return { message: error instanceof Error ? error.message : String(error), fields: {} };
}
