import { fail as failForm, type ActionFailure } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { describeError, ThrottledError } from '@dash/api';

/**
 * Where to go after signing in: a path on this dashboard only (never `//other.host` or a full URL,
 * which would make the login page an open redirect), and never back to the sign-in pages.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  const path = next.split(/[?#]/)[0];
  return path === '/login' || path === '/logout' || path === '/setup' ? '/' : next;
}

/**
 * A procedure's failure as a form action's answer: its status and message for the page, and
 * Retry-After when the sign-in throttle said no.
 */
export function formFailure(
  error: unknown,
  setHeaders: (headers: Record<string, string>) => void,
  extra: Record<string, unknown> = {},
): ActionFailure<{ message: string } & Record<string, unknown>> {
  if (!(error instanceof TRPCError)) throw error;
  if (error instanceof ThrottledError) setHeaders({ 'retry-after': String(error.retryAfterSeconds) });
  const { status, body } = describeError(error);
  if (status >= 500) throw error;
  return failForm(status, { message: body.error.message, ...extra });
}

/** A form field as text (a missing field or a file reads as empty). */
export const field = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
};
