import { describe, expect, it } from 'vitest';
import { clientAddressOf, connectionGroup } from './client-address.ts';

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

describe('the address a connection is counted under', () => {
  it('is an IPv4 address as it is, mapped or not, and an IPv6 one by its /64', () => {
    expect(connectionGroup('198.51.100.7')).toBe('198.51.100.7');
    expect(connectionGroup('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(connectionGroup('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(connectionGroup('2001:DB8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(connectionGroup('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(connectionGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(connectionGroup('::1')).toBe('0:0:0:0::/64');
    expect(connectionGroup(undefined)).toBe('unknown');
  });
});
