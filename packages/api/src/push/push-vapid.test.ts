import { describe, expect, it } from 'vitest';
import { createTestApi } from '../testing.ts';
import { pushTests } from './push-testing.ts';
import { newVapidKeys } from './vapid-keys.ts';

// The dashboard's VAPID key: made once and kept on the store, or taken from VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY.

const { apis, dashboard } = pushTests();

describe('the VAPID key', () => {
  it('is an uncompressed P-256 point in base64url, made once and the same after a restart on the same store', async () => {
    const first = await dashboard();
    const key = ((await first.call('GET', '/api/push/key')).json as { publicKey: string }).publicKey;
    expect(key).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(Buffer.from(key, 'base64url')[0]).toBe(4);
    expect(((await first.call('GET', '/api/push/key')).json as { publicKey: string }).publicKey).toBe(key);
    // The private key is sealed in the store: nowhere in the export in clear, and the stored value is the vault's.
    const stored = await first.api.store.meta.get('vapidKeys');
    expect(stored).toMatch(/^v1\./);
    const again = await createTestApi({ dir: first.api.dir, credentialsKey: first.api.credentialsKey, scheduler: false });
    apis.push(again);
    expect((await again.caller.push.key()).publicKey).toBe(key);
  });

  it('comes from VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY when they are set, over a stored one; a pair that does not match is refused', async () => {
    const stored = await dashboard();
    const storedKey = (await stored.api.caller.push.key()).publicKey;
    const pair = newVapidKeys();
    const env = await createTestApi({
      dir: stored.api.dir,
      credentialsKey: stored.api.credentialsKey,
      scheduler: false,
      push: { VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey },
    });
    apis.push(env);
    expect((await env.caller.push.key()).publicKey).toBe(pair.publicKey);
    expect(pair.publicKey).not.toBe(storedKey);
    const mismatched = await createTestApi({ scheduler: false, push: { VAPID_PUBLIC_KEY: newVapidKeys().publicKey, VAPID_PRIVATE_KEY: pair.privateKey } });
    apis.push(mismatched);
    await expect(mismatched.caller.push.key()).rejects.toThrow(/VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY/);
  });
});
