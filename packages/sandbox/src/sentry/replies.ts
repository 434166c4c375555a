import type { SandboxReply } from '../service.ts';

/** Sentry's error replies: `{ detail }` with the status. */

export const notFound: SandboxReply = { status: 404, body: { detail: 'The requested resource does not exist' } };
export const noPermission: SandboxReply = { status: 403, body: { detail: 'You do not have permission to perform this action.' } };
export const badRequest = (detail: string): SandboxReply => ({ status: 400, body: { detail } });
