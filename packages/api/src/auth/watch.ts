import type { Access, Identity } from './access.ts';

/** How often a live stream asks whether its sign-in still holds: what another process (or a shell reset) ended shows within it. */
export const SIGN_IN_RECHECK_MS = 2_000;

/** A watch over one sign-in: `signal` aborts once it no longer holds; `stop` ends the watch. */
export interface SignInWatch {
  signal: AbortSignal;
  stop: () => void;
}

/**
 * Watches the sign-in a live stream was opened with, so the stream ends with it: at once when this process
 * ends sign-ins (Access tells), and within `intervalMs` whatever ended it (another dashboard process on the
 * same database, `npm run reset-password`, a token expiring). A check the store cannot answer ends it too:
 * the client reconnects and is judged afresh. Without an identity (the server calling itself) nothing is watched.
 */
export function watchSignIn(access: Access, identity: Identity | undefined, intervalMs = SIGN_IN_RECHECK_MS): SignInWatch {
  const ended = new AbortController();
  if (!identity) return { signal: ended.signal, stop: () => {} };
  let checking = false;
  let again = false;
  const check = async () => {
    if (checking) {
      again = true;
      return;
    }
    checking = true;
    try {
      do {
        again = false;
        if (!(await access.stillValid(identity))) return end();
      } while (again && !ended.signal.aborted);
    } catch {
      end();
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  const unsubscribe = access.onSignInsEnded(() => void check());
  const stop = () => {
    clearInterval(timer);
    unsubscribe();
  };
  const end = () => {
    stop();
    ended.abort();
  };
  return { signal: ended.signal, stop };
}
