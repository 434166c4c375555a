import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type HmacAlgorithm = 'sha1' | 'sha256';

const HEX_LENGTH: Record<HmacAlgorithm, number> = { sha1: 40, sha256: 64 };
const HEX = /^[0-9a-f]+$/i;

export function hmacHex(algorithm: HmacAlgorithm, secret: string, payload: Uint8Array): string {
  return createHmac(algorithm, secret).update(payload).digest('hex');
}

/** SHA-256 (hex) of a body: the delivery id of providers that send none. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * True when `signature` (hex, either case) is the HMAC of the payload under one of the secrets.
 * Empty secrets are skipped; a missing, malformed or wrong-length signature is false, never an exception.
 */
export function verifyHmacHex(options: {
  algorithm: HmacAlgorithm;
  secrets: readonly string[];
  payload: Uint8Array;
  signature: string | null | undefined;
}): boolean {
  const { algorithm, secrets, payload, signature } = options;
  if (!signature || signature.length !== HEX_LENGTH[algorithm] || !HEX.test(signature)) return false;
  const given = Buffer.from(signature, 'hex');
  let matched = false;
  for (const secret of secrets) {
    if (secret === '') continue;
    // No early return: the time taken does not tell which secret of the list matched.
    if (timingSafeEqual(given, createHmac(algorithm, secret).update(payload).digest())) matched = true;
  }
  return matched;
}

/** Shared-token check in constant time; hashing both sides first makes the compared lengths equal whatever was sent. */
export function tokensMatch(given: string, secrets: readonly string[]): boolean {
  if (given === '') return false;
  const digest = createHash('sha256').update(given).digest();
  let matched = false;
  for (const secret of secrets) {
    if (secret === '') continue;
    if (timingSafeEqual(digest, createHash('sha256').update(secret).digest())) matched = true;
  }
  return matched;
}
