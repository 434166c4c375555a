import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The browser's side of Web Push message encryption (RFC 8291 over RFC 8188's `aes128gcm`), with node:crypto's
 * ECDH P-256, HKDF-SHA-256 and AES-128-GCM; only RFC 8291 §3.3-3.4's key derivation is written out here.
 */

/** What a user agent keeps for one subscription: its P-256 key pair (uncompressed points) and the auth secret. */
export interface SubscriberKeys {
  /** 32 bytes. */
  privateKey: Buffer;
  /** 65 bytes, 0x04 || X || Y: the subscription's `p256dh`. */
  publicKey: Buffer;
  /** 16 bytes: the subscription's `auth`. */
  authSecret: Buffer;
}

/** Why a body does not decrypt: a malformed header, a wrong key, or altered bytes (the GCM tag does not verify). */
export class DecryptError extends Error {
  override name = 'DecryptError';
}

const hkdf = (ikm: Buffer, salt: Buffer, info: Buffer, length: number) => Buffer.from(hkdfSync('sha256', ikm, salt, info, length));

/** RFC 8188 §2.1's header: salt (16), rs (uint32), idlen (1), keyid (idlen): here the sender's ephemeral public key. */
function header(body: Buffer) {
  if (body.length < 21) throw new DecryptError('shorter than the aes128gcm header');
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20] ?? 0;
  // RFC 8291 §4: the keyid is the application server's ECDH public key, an uncompressed P-256 point.
  if (idLength !== 65) throw new DecryptError(`keyid is ${idLength} bytes, not an uncompressed P-256 point (65)`);
  const keyId = body.subarray(21, 21 + idLength);
  if (keyId.length !== 65 || keyId[0] !== 4) throw new DecryptError('keyid is not an uncompressed P-256 point');
  if (recordSize < 18) throw new DecryptError(`record size ${recordSize} is below aes128gcm's minimum (18)`);
  return { salt, recordSize, keyId, records: body.subarray(21 + idLength) };
}

/**
 * Decrypts a Web Push message body as the user agent does: the shared ECDH secret with the sender's key from the
 * header, IKM from it and the auth secret (`WebPush: info` || ua_public || as_public), then the CEK and nonce from
 * the salt. RFC 8291 §4 allows one record only, so anything longer than one record is refused. Answers the plaintext
 * without its padding.
 */
export function decryptPushMessage(body: Buffer, keys: SubscriberKeys): Buffer {
  const { salt, recordSize, keyId, records } = header(body);
  if (records.length > recordSize) throw new DecryptError('more than one record: RFC 8291 allows one');
  if (records.length < 17) throw new DecryptError('no ciphertext');
  let secret: Buffer;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(keys.privateKey);
    secret = ecdh.computeSecret(keyId);
  } catch (error) {
    throw new DecryptError(`the sender's key is not a P-256 point: ${(error as Error).message}`);
  }
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.publicKey, keyId]);
  const ikm = hkdf(secret, keys.authSecret, keyInfo, 32);
  const cek = hkdf(ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = hkdf(ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(records.subarray(records.length - 16));
  let padded: Buffer;
  try {
    padded = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
  } catch {
    throw new DecryptError('the authentication tag does not verify: another key, or altered bytes');
  }
  // RFC 8188 §2: the last record ends with a 0x02 delimiter, then zero or more 0x00 padding octets.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (end < 0 || padded[end] !== 2) throw new DecryptError('the last record has no 0x02 delimiter');
  return padded.subarray(0, end);
}

/** A fresh subscription's keys, as a browser makes them. */
export function newSubscriberKeys(): SubscriberKeys {
  const ecdh = createECDH('prime256v1');
  const publicKey = ecdh.generateKeys();
  return { privateKey: ecdh.getPrivateKey(), publicKey, authSecret: randomBytes(16) };
}
