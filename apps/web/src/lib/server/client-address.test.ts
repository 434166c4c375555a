import { describe, expect, it } from 'vitest';
import { clientAddressOf } from './client-address.ts';

describe('the client address', () => {
  it('is the socket without TRUST_PROXY, whatever X-Forwarded-For says', () => {
    expect(clientAddressOf('198.51.100.7', '203.0.113.1', false)).toBe('198.51.100.7');
    expect(clientAddressOf('198.51.100.7', null, false)).toBe('198.51.100.7');
  });

  it('is the right-most X-Forwarded-For hop with TRUST_PROXY (the one the proxy added), never one the client sent', () => {
    expect(clientAddressOf('127.0.0.1', '203.0.113.1', true)).toBe('203.0.113.1');
    expect(clientAddressOf('127.0.0.1', '10.9.9.9, 192.0.2.55 ,203.0.113.1', true)).toBe('203.0.113.1');
    // Two headers arrive joined with ", "; an empty trailing hop is skipped.
    expect(clientAddressOf('127.0.0.1', 'spoofed, 203.0.113.1, ', true)).toBe('203.0.113.1');
  });

  it('falls back to the socket with TRUST_PROXY when the proxy sent no X-Forwarded-For', () => {
    expect(clientAddressOf('127.0.0.1', undefined, true)).toBe('127.0.0.1');
    expect(clientAddressOf('127.0.0.1', ' , ', true)).toBe('127.0.0.1');
  });
});
