import { createPublicKey, verify } from 'node:crypto';

/** The longest a VAPID JWT may live (RFC 8292 §2: `exp` no more than 24 hours after the request). */
const MAX_LIFETIME_S = 24 * 60 * 60;

/** A VAPID JWT's claims, as a push service checks them (RFC 8292 §2). */
export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

export type VapidCheck = { ok: true; publicKey: string; claims: VapidClaims } | { ok: false; reason: string };

const decodeJson = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** RFC 8292 §3: `vapid t=<JWT>, k=<key>`, parameters in any order, separated by commas (and spaces). */
export function parseVapidAuthorization(value: string | undefined): { token: string; key: string } | undefined {
  const match = /^vapid\s+(.*)$/i.exec(value?.trim() ?? '');
  if (!match?.[1]) return undefined;
  const params = new Map<string, string>();
  for (const part of match[1].split(',')) {
    const [name, ...rest] = part.trim().split('=');
    if (name) params.set(name.trim().toLowerCase(), rest.join('=').trim());
  }
  const token = params.get('t');
  const key = params.get('k');
  return token && key ? { token, key } : undefined;
}

/** The P-256 public key of an uncompressed point (65 bytes, base64url), as node:crypto takes it. */
function p256Key(point: Buffer) {
  if (point.length !== 65 || point[0] !== 4) throw new Error('not an uncompressed P-256 point');
  return createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
}

/**
 * Checks a request's VAPID authorization as a push service does: an ES256 JWT signed by the key `k`, whose `aud` is
 * the origin of the push resource, whose `exp` is in the future and at most 24 h away, with a `sub` (a `mailto:` or
 * `https:` contact). `now` is in ms.
 */
export function verifyVapid(authorization: string | undefined, audience: string, now: number): VapidCheck {
  const parsed = parseVapidAuthorization(authorization);
  if (!parsed) return { ok: false, reason: 'no `vapid t=…, k=…` Authorization' };
  const parts = parsed.token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'the token is not a JWS compact serialization' };
  const [head = '', payload = '', signature = ''] = parts;
  let claims: Partial<VapidClaims>;
  try {
    const jose = decodeJson(head) as { alg?: unknown; typ?: unknown };
    if (jose.alg !== 'ES256') return { ok: false, reason: `alg is ${String(jose.alg)}, not ES256` };
    const key = p256Key(Buffer.from(parsed.key, 'base64url'));
    const valid = verify('sha256', Buffer.from(`${head}.${payload}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
    if (!valid) return { ok: false, reason: 'the signature does not verify with k' };
    claims = decodeJson(payload) as Partial<VapidClaims>;
  } catch (error) {
    return { ok: false, reason: `unreadable token or key: ${(error as Error).message}` };
  }
  if (claims.aud !== audience) return { ok: false, reason: `aud is ${String(claims.aud)}, not the push resource's origin ${audience}` };
  const seconds = Math.floor(now / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= seconds) return { ok: false, reason: 'exp is missing or past' };
  if (claims.exp > seconds + MAX_LIFETIME_S) return { ok: false, reason: 'exp is more than 24 hours away' };
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) return { ok: false, reason: 'sub is missing or not a mailto: or https: contact' };
  return { ok: true, publicKey: parsed.key, claims: { aud: claims.aud, exp: claims.exp, sub: claims.sub } };
}
