import { createHmac } from 'node:crypto';
import { expect, it } from 'vitest';
import type { HeaderBag, ParsedEvent, ParseResult, WebhookProvider } from './types.ts';

/** Test helpers shared by the provider folders. Not exported from the package. */

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

export const headers = (entries: Record<string, string> = {}): HeaderBag => new Headers(entries);

export const receivedAt = new Date('2026-11-22T12:00:00.000Z');

/** Signs with node:crypto directly, independently of hmac.ts. */
export const sign = (algorithm: 'sha1' | 'sha256', secret: string, body: string): string =>
  createHmac(algorithm, secret).update(body).digest('hex');

export function eventsOf(result: ParseResult): ParsedEvent[] {
  if (!result.ok) throw new Error(`Expected events, got the error: ${result.error}`);
  return result.events;
}

export function errorOf(result: ParseResult): string {
  if (result.ok) throw new Error(`Expected an error, got ${result.events.length} event(s)`);
  return result.error;
}

/** The body with its last character's lowest bit flipped: one byte changed. */
export const oneByteChanged = (body: string): string =>
  `${body.slice(0, -1)}${String.fromCharCode(body.charCodeAt(body.length - 1) ^ 1)}`;

/** Near misses every HMAC provider must refuse, and the rotation it must accept. Call inside a describe. */
export function itHoldsTheSignatureContract(options: {
  provider: WebhookProvider;
  header: string;
  algorithm: 'sha1' | 'sha256';
  prefix?: string;
  body: string;
}): void {
  const { provider, header, algorithm, prefix = '', body } = options;
  const secret = 'whsec-contract';
  const other = algorithm === 'sha1' ? 'sha256' : 'sha1';
  const hex = sign(algorithm, secret, body);
  const good = `${prefix}${hex}`;
  const verify = (value: string | undefined, secrets: readonly string[] = [secret], payload = body) =>
    provider.verify(bytes(payload), headers(value === undefined ? {} : { [header]: value }), secrets);

  it('accepts the signature of the exact bytes, in either hex case', () => {
    expect(verify(good)).toBe(true);
    expect(verify(`${prefix}${hex.toUpperCase()}`)).toBe(true);
  });

  it('refuses a one-byte change of the body and a wrong secret', () => {
    expect(verify(good, [secret], oneByteChanged(body))).toBe(false);
    expect(verify(good, [`${secret}x`])).toBe(false);
  });

  it('refuses truncated, extended, non-hex and missing signatures without throwing', () => {
    for (const value of [good.slice(0, -2), good.slice(0, -1), `${good}00`, `${prefix}${'z'.repeat(hex.length)}`, prefix, '', undefined]) {
      expect(verify(value), String(value)).toBe(false);
    }
  });

  it('refuses the other algorithm and a confused prefix', () => {
    const confused = ['', 'sha1=', 'sha256=']
      .filter((p) => p !== prefix)
      .map((p) => `${p}${hex}`)
      .concat([`${prefix}${sign(other, secret, body)}`, `${other}=${sign(other, secret, body)}`]);
    for (const value of confused) expect(verify(value), value).toBe(false);
  });

  it('accepts any secret of a rotation list, skipping empty entries, and fails closed without one', () => {
    expect(verify(good, ['', 'the-new-secret', secret])).toBe(true);
    expect(verify(good, [])).toBe(false);
    expect(verify(good, ['', ''])).toBe(false);
  });
}
