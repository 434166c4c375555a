import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256: what the store keeps of a session's or a token's 256-bit secret (a slow hash adds nothing there). */
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Equal strings, compared in constant time for equal lengths. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const secret = () => randomBytes(32).toString('base64url');

/** A browser session's cookie value: `<id>.<secret>`. */
export function newSessionToken() {
  const id = randomBytes(12).toString('base64url');
  const value = secret();
  return { id, secretHash: sha256(value), token: `${id}.${value}` };
}

export function parseSessionToken(token: string): { id: string; secret: string } | undefined {
  const match = /^([\w-]{16})\.([\w-]{43})$/.exec(token);
  return match ? { id: match[1] as string, secret: match[2] as string } : undefined;
}

const TOKEN_PREFIX = 'fdb_';

/** An API token: `fdb_<id: 10 hex>_<secret: 43 base64url>`; the prefix lets secret scanners find a leaked one. */
export function newApiToken() {
  const id = randomBytes(5).toString('hex');
  const value = secret();
  return { id, secretHash: sha256(value), token: `${TOKEN_PREFIX}${id}_${value}` };
}

export function parseApiToken(token: string): { id: string; secret: string } | undefined {
  const match = /^fdb_([0-9a-f]{10})_([\w-]{43})$/.exec(token);
  return match ? { id: match[1] as string, secret: match[2] as string } : undefined;
}

/** Enough of a token to recognise it in a list (its visible id), not to use it. */
export const tokenHint = (id: string) => `${TOKEN_PREFIX}${id}_…`;

/** The first-run setup token, printed once in the server's log. */
export const newSetupToken = secret;
