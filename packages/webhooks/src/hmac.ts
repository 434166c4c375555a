import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type HmacAlgorithm = 'sha1' | 'sha256';

const HEX_LENGTH: Record<HmacAlgorithm, number> = { sha1: 40, sha256: 64 };

export function hmacHex(algorithm: HmacAlgorithm, secret: string, payload: Uint8Array): string {
  return createHmac(algorithm, secret).update(payload).digest('hex');
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * True when `signature` (lowercase or uppercase hex) is the HMAC of the payload under one of the
 * secrets. Every secret is tried in order and compared in constant time; anything malformed is false.
 */
export function verifyHmacHex(options: { algorithm: HmacAlgorithm; secrets: readonly string[]; payload: Uint8Array; signature: string | null }): boolean {
  const { algorithm, secrets, payload, signature } = options;
  if (!signature || signature.length !== HEX_LENGTH[algorithm] || !/^[0-9a-f]+$/i.test(signature)) return false;
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  let matched = false;
  for (const secret of secrets) {
    if (secret === '') continue;
    // No early return: the time taken does not tell which secret of the list matched.
    if (timingSafeEqual(given, Buffer.from(hmacHex(algorithm, secret, payload), 'hex'))) matched = true;
  }
  return matched;
}

/** Shared-token check in constant time; hashing first makes the compared lengths equal whatever was sent. */
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
