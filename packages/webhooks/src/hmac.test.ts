import { describe, expect, it } from 'vitest';
import { hmacHex, tokensMatch, verifyHmacHex } from './hmac.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const SECRET = "It's a Secret to Everybody";

describe('HMAC helper', () => {
  it("reproduces GitHub's published vector and the computed SHA-1 one", () => {
    expect(hmacHex('sha256', SECRET, bytes('Hello, World!'))).toBe('757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17');
    expect(hmacHex('sha1', SECRET, bytes('Hello, World!'))).toBe('01dc10d0c83e72ed246219cdd91669667fe2ca59');
  });

  it('accepts any secret of a rotation list and ignores empty entries', () => {
    const signature = hmacHex('sha256', 'old', bytes('x'));
    expect(verifyHmacHex({ algorithm: 'sha256', secrets: ['', 'new', 'old'], payload: bytes('x'), signature })).toBe(true);
    expect(verifyHmacHex({ algorithm: 'sha256', secrets: ['new'], payload: bytes('x'), signature })).toBe(false);
    expect(verifyHmacHex({ algorithm: 'sha256', secrets: [], payload: bytes('x'), signature })).toBe(false);
  });

  it('returns false, never throws, for malformed signatures', () => {
    const good = hmacHex('sha256', 's', bytes('x'));
    for (const signature of [null, '', 'foo', good.slice(0, 63), `${good}0`, `zz${good.slice(2)}`, hmacHex('sha1', 's', bytes('x'))]) {
      expect(verifyHmacHex({ algorithm: 'sha256', secrets: ['s'], payload: bytes('x'), signature })).toBe(false);
    }
    expect(verifyHmacHex({ algorithm: 'sha256', secrets: ['s'], payload: bytes('x'), signature: good.toUpperCase() })).toBe(true);
  });

  it('compares shared tokens exactly', () => {
    expect(tokensMatch('token-b', ['token-a', 'token-b'])).toBe(true);
    expect(tokensMatch('token-', ['token-a'])).toBe(false);
    expect(tokensMatch('', [''])).toBe(false);
  });
});
