import { describe, expect, it } from 'vitest';
import { ConnectorError } from './errors.ts';

describe('ConnectorError', () => {
  it('marks rate limits and upstream failures retryable, auth and bad responses not', () => {
    expect(new ConnectorError('rate_limited', 'slow down').retryable).toBe(true);
    expect(new ConnectorError('upstream', '502').retryable).toBe(true);
    expect(new ConnectorError('auth', 'bad token').retryable).toBe(false);
    expect(new ConnectorError('bad_response', 'shape').retryable).toBe(false);
  });

  it('lets a caller override retryability and carry Retry-After', () => {
    const error = new ConnectorError('upstream', '501', { retryable: false, retryAfterMs: 1000 });
    expect([error.retryable, error.retryAfterMs]).toEqual([false, 1000]);
  });
});
