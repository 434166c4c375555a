import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { ConnectorError } from '../errors.ts';

/** Apple refuses tokens that live longer than 20 minutes; 19 leaves room for clock skew. */
export const TOKEN_LIFETIME_S = 19 * 60;
/** A token this close to its expiry is not handed out again: a slow request must not outlive it. */
export const RENEW_BEFORE_MS = 60_000;
const AUDIENCE = 'appstoreconnect-v1';

interface CachedToken {
  token: string;
  issuedAt: number;
  expiresAt: number;
}

/**
 * Signed tokens by key, so that every request of the next 18 minutes reuses one signature. The key
 * is a SHA-256 of the credential's values: the private key itself is never kept here.
 */
const cache = new Map<string, CachedToken>();
const MAX_CACHED = 32;

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export const invalidKey = () =>
  new ConnectorError('auth', 'The App Store Connect private key is not a valid .p8 key: paste the whole AuthKey file, its BEGIN and END lines included', {
    retryable: false,
  });

/** The `.p8` as pasted: real newlines or `\n` escapes, with or without its PEM lines. */
function privateKeyOf(pasted: string): KeyObject {
  let pem = pasted.trim().replace(/\\n/g, '\n');
  if (!pem.startsWith('-----BEGIN')) pem = `-----BEGIN PRIVATE KEY-----\n${pem.replace(/\s+/g, '')}\n-----END PRIVATE KEY-----`;
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    // Node's own message says nothing a user can act on; the cause is left out so nothing of the key travels.
    throw invalidKey();
  }
  // Apple's keys are EC P-256, signed ES256; an RSA or other curve's key would only be refused by Apple.
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw invalidKey();
  return key;
}

/** A JWT for the App Store Connect API: ES256 over `header.payload`, the signature raw R||S. */
export function signToken(issuerId: string, keyId: string, privateKey: string, issuedAtS: number): string {
  const key = privateKeyOf(privateKey);
  const header = base64url({ alg: 'ES256', kid: keyId, typ: 'JWT' });
  const payload = base64url({ iss: issuerId, iat: issuedAtS, exp: issuedAtS + TOKEN_LIFETIME_S, aud: AUDIENCE });
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${header}.${payload}.${signature.toString('base64url')}`;
}

/**
 * The bearer token for these credentials at `now` (the context's clock): the cached one while it is
 * more than a minute from expiry, else a new one.
 */
export function appStoreToken(credentials: Readonly<Record<string, string>>, now: number): string {
  const issuerId = credentials.issuerId?.trim() ?? '';
  const keyId = credentials.keyId?.trim() ?? '';
  const privateKey = credentials.privateKey ?? '';
  if (!issuerId || !keyId || !privateKey.trim()) {
    throw new ConnectorError('auth', 'App Store Connect needs an issuer ID, a key ID and a private key (.p8)', { retryable: false });
  }
  const id = createHash('sha256').update(`${issuerId}\n${keyId}\n${privateKey}`).digest('hex');
  const cached = cache.get(id);
  // A token "issued" after now (a clock that went back) is not reused either.
  if (cached && cached.issuedAt <= now && now < cached.expiresAt - RENEW_BEFORE_MS) return cached.token;

  const issuedAtS = Math.floor(now / 1000);
  const token = signToken(issuerId, keyId, privateKey, issuedAtS);
  if (cache.size >= MAX_CACHED) {
    for (const [other, entry] of cache) if (entry.expiresAt <= now || entry.issuedAt > now) cache.delete(other);
    if (cache.size >= MAX_CACHED) cache.clear();
  }
  cache.set(id, { token, issuedAt: issuedAtS * 1000, expiresAt: (issuedAtS + TOKEN_LIFETIME_S) * 1000 });
  return token;
}
