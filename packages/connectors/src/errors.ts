/** Why an upstream call failed, in the terms the data routes act on. */
export type ConnectorErrorKind = 'auth' | 'rate_limited' | 'not_found' | 'upstream' | 'bad_response';

/** The one error a connector throws; `retryable` says whether trying again later can help. */
export class ConnectorError extends Error {
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly kind: ConnectorErrorKind,
    message: string,
    options: { retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ConnectorError';
    this.retryable = options.retryable ?? (kind === 'rate_limited' || kind === 'upstream');
    this.retryAfterMs = options.retryAfterMs;
  }
}
