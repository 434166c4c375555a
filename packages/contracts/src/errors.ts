import { z } from 'zod';

/**
 * Error codes of the REST JSON error body; they are tRPC's codes, so one table serves both, plus the
 * three that only the request guards answer: CROSS_SITE (403), PROXIED_WITHOUT_PASSWORD (403) and
 * SETUP_REQUIRED (503).
 */
export const errorCodes = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_SUPPORTED',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'TOO_MANY_REQUESTS',
  'INTERNAL_SERVER_ERROR',
  'BAD_GATEWAY',
  'SERVICE_UNAVAILABLE',
  'CROSS_SITE',
  'PROXIED_WITHOUT_PASSWORD',
  'SETUP_REQUIRED',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export const errorIssueSchema = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});
export type ErrorIssue = z.infer<typeof errorIssueSchema>;

/** `{ error: { code, message, issues? } }`: the body of every failed REST call. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.enum(errorCodes),
    message: z.string(),
    issues: z.array(errorIssueSchema).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
