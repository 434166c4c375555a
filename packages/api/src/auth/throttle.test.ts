import { describe, expect, it } from 'vitest';
import { addressKey, FailureThrottle, ThrottledError } from './throttle.ts';

describe('the key failures are counted under', () => {
  it('is an IPv4 address as it is, also IPv4-mapped or with a port', () => {
    for (const address of ['192.0.2.1', '::ffff:192.0.2.1', '::FFFF:192.0.2.1', '192.0.2.1:51234', ' 192.0.2.1 ']) expect([address, addressKey(address)]).toEqual([address, '192.0.2.1']);
  });

  it('is an IPv6 address by its /64, in any spelling', () => {
    for (const address of ['2001:db8:1:2::1', '2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '[2001:DB8:1:2::9]', '[2001:db8:1:2::9]:443', '2001:db8:1:2:0:0:0:1%eth0']) {
      expect([address, addressKey(address)]).toEqual([address, '2001:db8:1:2::/64']);
    }
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('is `unknown` without an address, and anything else as its own key', () => {
    expect(addressKey(undefined)).toBe('unknown');
    expect(addressKey('')).toBe('unknown');
    expect(addressKey('not-an-address')).toBe('other:not-an-address');
  });
});

describe('the failure throttle', () => {
  it('refuses an address after 5 failures, and no other address', async () => {
    const throttle = new FailureThrottle();
    for (let i = 0; i < 5; i++) await throttle.attempt('198.51.100.1');
    await expect(throttle.attempt('198.51.100.1')).rejects.toBeInstanceOf(ThrottledError);
    await expect(throttle.check('198.51.100.1')).rejects.toMatchObject({ retryAfterSeconds: expect.any(Number) });
    for (let i = 0; i < 200; i++) await throttle.failed(`10.0.${i >> 8}.${i & 255}`);
    await expect(throttle.attempt('198.51.100.2')).resolves.toBeUndefined();
    await expect(throttle.check('192.0.2.1')).resolves.toBeUndefined();
  });

  it('starts an address afresh after a success', async () => {
    const throttle = new FailureThrottle();
    for (let i = 0; i < 5; i++) await throttle.failed('198.51.100.1');
    await expect(throttle.check('198.51.100.1')).rejects.toBeInstanceOf(ThrottledError);
    await throttle.succeeded('198.51.100.1');
    await expect(throttle.check('198.51.100.1')).resolves.toBeUndefined();
  });
});
