import { describe, expect, it } from 'vitest';
import { hmacHex, sha256Hex, tokensMatch, verifyHmacHex } from './hmac.ts';
import { bytes } from './testing.ts';

const SECRET = "It's a Secret to Everybody";
const payload = bytes('Hello, World!');

describe('hmacHex', () => {
  it("reproduces GitHub's published vector and the computed SHA-1 one", () => {
    expect(hmacHex('sha256', SECRET, payload)).toBe('757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17');
    expect(hmacHex('sha1', SECRET, payload)).toBe('01dc10d0c83e72ed246219cdd91669667fe2ca59');
  });
});

describe('sha256Hex', () => {
  it('hashes bytes and strings alike', () => {
    expect(sha256Hex(new Uint8Array())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('Hello, World!')).toBe(sha256Hex(payload));
  });
});

describe('verifyHmacHex', () => {
  const good = '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
  const verify = (signature: string | null | undefined, secrets: readonly string[] = [SECRET], algorithm: 'sha1' | 'sha256' = 'sha256') =>
    verifyHmacHex({ algorithm, secrets, payload, signature });

  it('accepts the right signature in either hex case', () => {
    expect(verify(good)).toBe(true);
    expect(verify(good.toUpperCase())).toBe(true);
    expect(verify('01dc10d0c83e72ed246219cdd91669667fe2ca59', [SECRET], 'sha1')).toBe(true);
  });

  it('accepts any secret of a rotation list and skips empty entries', () => {
    expect(verify(good, ['', 'the-next-secret', SECRET])).toBe(true);
    expect(verify(good, ['the-next-secret'])).toBe(false);
    expect(verify(good, [])).toBe(false);
    expect(verify(good, ['', ''])).toBe(false);
  });

  it('returns false, never throws, for malformed signatures', () => {
    const malformed = [null, undefined, '', 'foo', good.slice(0, 63), good.slice(0, 62), `${good}0`, `${good}00`, `zz${good.slice(2)}`, 'é'.repeat(64), ` ${good.slice(1)}`, `sha256=${good}`];
    for (const signature of malformed) expect(verify(signature), String(signature)).toBe(false);
  });

  it('keeps the algorithms apart: a SHA-1 signature is never a SHA-256 one, nor the reverse', () => {
    expect(verify('01dc10d0c83e72ed246219cdd91669667fe2ca59')).toBe(false);
    expect(verify(good, [SECRET], 'sha1')).toBe(false);
  });
});

describe('tokensMatch', () => {
  it('matches exactly, against any non-empty token of a list', () => {
    expect(tokensMatch('token-b', ['token-a', 'token-b'])).toBe(true);
    expect(tokensMatch('token-', ['token-a'])).toBe(false);
    expect(tokensMatch('token-aa', ['token-a'])).toBe(false);
    expect(tokensMatch('Token-a', ['token-a'])).toBe(false);
  });

  it('never matches an empty token or an empty secret', () => {
    expect(tokensMatch('', [''])).toBe(false);
    expect(tokensMatch('', ['token-a'])).toBe(false);
    expect(tokensMatch('x', [])).toBe(false);
  });
});
