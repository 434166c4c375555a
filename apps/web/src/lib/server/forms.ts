import { fail as failForm, type ActionFailure } from '@sveltejs/kit';
import { TRPCError } from '@trpc/server';
import { describeError, ThrottledError } from '@dash/api';

/** Control characters (C0, DEL, C1) and backslashes, raw or percent-encoded: a browser drops them or reads `\` as `/`. */
const unsafeInNext = (text: string) =>
  /%(?:[01][0-9a-f]|7f|5c)/i.test(text) ||
  [...text].some((char) => {
    const code = char.charCodeAt(0);
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) || char === '\\';
  });
const SIGN_IN_PAGES = new Set(['/login', '/logout', '/setup']);

/**
 * Where to go after signing in: `next` resolved with the URL parser against the dashboard's `origin`, and
 * used only when it stays on it (else `/`), so the login page is no open redirect. A `next` with a control
 * character or a backslash is refused outright (`/\t/evil.example` would otherwise reach a browser, which
 * drops the tab and follows `//evil.example`), as is one that resolves to a path starting `//` (`/.//evil`)
 * and the sign-in pages themselves. The answer is the parser's own path, query and fragment.
 */
export function safeNext(next: string | null | undefined, origin: string): string {
  if (!next || next.length > 2048 || unsafeInNext(next)) return '/';
  let base: URL;
  let target: URL;
  try {
    base = new URL(origin);
    target = new URL(next, base);
  } catch {
    return '/';
  }
  if (target.origin !== base.origin || target.username || target.password) return '/';
  if (!target.pathname.startsWith('/') || target.pathname.startsWith('//') || SIGN_IN_PAGES.has(target.pathname)) return '/';
  return target.pathname + target.search + target.hash;
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
