import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../errors.ts';

const KEY_BYTES = 32;
const IV_BYTES = 12;
/** GCM's full 128-bit tag; a shorter one would make forging a sealed value far easier. */
const TAG_BYTES = 16;
const FORMAT = 'v1';

/** The stored credentials were sealed with another key than the one configured now. */
export class CredentialsKeyMismatchError extends Error {
  constructor() {
    super(
      'Stored credentials cannot be decrypted with the current CREDENTIALS_KEY. Start the dashboard with the key ' +
        'they were saved with, or remove them and connect the services again.',
    );
    this.name = 'CredentialsKeyMismatchError';
  }
}

/** Parses CREDENTIALS_KEY: 32 bytes written as 64 hex characters or as base64. */
export function parseCredentialsKey(text: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : undefined;
  if (key?.length !== KEY_BYTES) {
    throw new Error('CREDENTIALS_KEY must be 32 bytes written as 64 hex characters or as base64 (openssl rand -hex 32)');
  }
  return key;
}

/**
 * The configured key, or else the one in `<dataDir>/credentials.key`, generated on first use with
 * owner-only permissions. There is deliberately no built-in fallback.
 */
export function resolveCredentialsKey(options: { configured?: string | undefined; dataDir: string }): {
  key: Buffer;
  source: 'env' | 'file' | 'generated';
} {
  if (options.configured) return { key: parseCredentialsKey(options.configured), source: 'env' };
  const file = join(options.dataDir, 'credentials.key');
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return { key: parseCredentialsKey(readFileSync(file, 'utf8')), source: 'generated' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // An existing key file that others can read is tightened rather than trusted as it is.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return { key: parseCredentialsKey(readFileSync(file, 'utf8')), source: 'file' };
}

/**
 * Seals credential values with AES-256-GCM: a fresh random IV for every write, and the credential's
 * key as additional data so a sealed value cannot be moved to another key's row.
 */
export class CredentialVault {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`A credentials key is ${KEY_BYTES} bytes`);
    this.#key = key;
  }

  seal(name: string, values: Record<string, string>): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(name));
    const body = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** Throws CredentialsKeyMismatchError when the value was sealed with another key (or altered). */
  open(name: string, sealed: string): Record<string, string> {
    const [format, iv, tag, body] = sealed.split('.');
    if (format !== FORMAT || !iv || !tag || body === undefined) throw new Error(`Unrecognised sealed credential format for "${name}"`);
    // Only a full-length tag is checked: Node would otherwise accept a tag cut to as little as 4 bytes.
    const tagBytes = Buffer.from(tag, 'base64url');
    if (tagBytes.length !== TAG_BYTES) throw new CredentialsKeyMismatchError();
    let plain: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(name));
      decipher.setAuthTag(tagBytes);
      plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new CredentialsKeyMismatchError();
    }
    return JSON.parse(plain) as Record<string, string>;
  }
}

/** Refuses to write with a key that cannot read what is already stored: that would mix two keys. */
export function assertKeyMatches(state: { credentialsKeyMatches: boolean }): void {
  if (!state.credentialsKeyMatches) throw fail('INTERNAL_SERVER_ERROR', new CredentialsKeyMismatchError().message);
}
