import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialsKeyMismatchError, CredentialVault, parseCredentialsKey, resolveCredentialsKey } from './vault.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('CredentialVault', () => {
  const vault = new CredentialVault(randomBytes(32));

  it('round-trips values and never writes them in clear', () => {
    const sealed = vault.seal('github', { token: 'ghp_secret123' });
    expect(sealed).not.toContain('ghp_secret123');
    expect(vault.open('github', sealed)).toEqual({ token: 'ghp_secret123' });
  });

  it('uses a fresh IV for every write', () => {
    const a = vault.seal('github', { token: 'same' });
    const b = vault.seal('github', { token: 'same' });
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
  });

  it('refuses a value sealed with another key with a clear error, not garbage', () => {
    const sealed = new CredentialVault(randomBytes(32)).seal('github', { token: 'x' });
    expect(() => vault.open('github', sealed)).toThrow(CredentialsKeyMismatchError);
    expect(() => vault.open('github', sealed)).toThrow(/CREDENTIALS_KEY/);
  });

  it('refuses a stored value whose authentication tag was cut short, as it refuses any altered value', () => {
    const sealed = vault.seal('github', { token: 'x' });
    const [format, iv, tag, body] = sealed.split('.') as [string, string, string, string];
    const full = Buffer.from(tag, 'base64url');
    expect(full).toHaveLength(16);
    for (const bytes of [4, 8, 12, 15]) {
      const cut = [format, iv, full.subarray(0, bytes).toString('base64url'), body].join('.');
      expect(() => vault.open('github', cut), `a ${bytes}-byte tag`).toThrow(CredentialsKeyMismatchError);
    }
    // Nor a longer one, and not an empty one.
    expect(() => vault.open('github', [format, iv, Buffer.concat([full, Buffer.alloc(1)]).toString('base64url'), body].join('.'))).toThrow(CredentialsKeyMismatchError);
    expect(vault.open('github', sealed)).toEqual({ token: 'x' });
  });

  it('refuses a sealed value moved to another credential key', () => {
    const sealed = vault.seal('github', { token: 'x' });
    expect(() => vault.open('vercel', sealed)).toThrow(CredentialsKeyMismatchError);
  });
});

describe('credentials key', () => {
  it('accepts 32 bytes as hex or base64 and rejects anything else', () => {
    const raw = randomBytes(32);
    expect(parseCredentialsKey(raw.toString('hex'))).toEqual(raw);
    expect(parseCredentialsKey(raw.toString('base64'))).toEqual(raw);
    expect(() => parseCredentialsKey('too-short')).toThrow(/32 bytes/);
    expect(() => parseCredentialsKey(randomBytes(16).toString('hex'))).toThrow(/32 bytes/);
  });

  it('uses CREDENTIALS_KEY when it is set and writes no file', () => {
    const dir = tempDir();
    const raw = randomBytes(32);
    expect(resolveCredentialsKey({ configured: raw.toString('hex'), dataDir: dir })).toEqual({ key: raw, source: 'env' });
    expect(() => statSync(join(dir, 'credentials.key'))).toThrow();
  });

  it('generates a key once into the data folder, owner-only, and reuses it', () => {
    const dir = join(tempDir(), 'data');
    const first = resolveCredentialsKey({ dataDir: dir });
    expect(first.source).toBe('generated');
    expect(statSync(join(dir, 'credentials.key')).mode & 0o777).toBe(0o600);
    const second = resolveCredentialsKey({ dataDir: dir });
    expect(second).toEqual({ key: first.key, source: 'file' });
  });

  it('tightens a key file that others could read', () => {
    const dir = tempDir();
    const file = join(dir, 'credentials.key');
    writeFileSync(file, randomBytes(32).toString('hex'));
    chmodSync(file, 0o644);
    resolveCredentialsKey({ dataDir: dir });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
  });
});
