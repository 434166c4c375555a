import { TRPCClientError } from '@trpc/client';
import { errorIssueSchema, type ErrorIssue } from '@dash/contracts';

export interface DescribedError {
  /** The server's message, to show in the form's alert. */
  message: string;
  /** Field path (`values.token`, `slug`) -> the server's message for that field. */
  fields: Record<string, string>;
}

const unreachable = 'The dashboard server cannot be reached. Is it still running?';

/** The `issues` of a validation error's data, as the server sent them. */
function issuesOf(data: unknown): ErrorIssue[] {
  if (!data || typeof data !== 'object' || !('issues' in data) || !Array.isArray(data.issues)) return [];
  return data.issues.flatMap((issue: unknown) => {
    const parsed = errorIssueSchema.safeParse(issue);
    return parsed.success ? [parsed.data] : [];
  });
}

/** The one way the UI turns a failed call into words: the server's message and its per-field issues. */
export function describeError(error: unknown): DescribedError {
  if (error instanceof TRPCClientError) {
    // No answer at all: fetch itself failed (server down, network gone).
    if (error.cause instanceof TypeError && error.data === undefined) return { message: unreachable, fields: {} };
    const fields: Record<string, string> = {};
    for (const issue of issuesOf(error.data)) fields[issue.path.join('.')] ??= issue.message;
    return { message: error.message, fields };
  }
  if (error instanceof TypeError) return { message: unreachable, fields: {} };
  return { message: error instanceof Error ? error.message : String(error), fields: {} };
}
