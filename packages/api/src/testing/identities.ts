import type { Identity } from '../auth/access.ts';

// Who a request comes as, for the files that test who may do what (channels' connections, push devices): API tokens
// of each scope, a signed-in session, and the dashboard password a session is asked for.

export const PASSWORD = 'correct horse battery staple';
export const writeToken: Identity = { via: 'token', scope: 'write', tokenId: 'tok1' };
export const readToken: Identity = { via: 'token', scope: 'read', tokenId: 'tok2' };
export const session: Identity = { via: 'session', scope: 'write', sessionId: 'sess1' };
