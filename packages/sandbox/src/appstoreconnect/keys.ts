import { generateKeyPairSync } from 'node:crypto';

/**
 * The App Store Connect API key the fake accepts: an issuer, a key id and a P-256 key pair made once
 * per process (the private half in the PKCS#8 PEM of a downloaded `AuthKey_<keyId>.p8`). Nothing is
 * stored: every start of the sandbox makes a new pair, and the demo hands the private half to the
 * connector as its credential.
 */
function makeKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return {
    issuerId: '69a6de7e-2c3b-47e3-e053-5b8c7c11a4d1',
    keyId: 'D3M0K3Y42X',
    privateKey,
    publicKey,
  } as const;
}

export const sandboxAppStoreKey: { readonly issuerId: string; readonly keyId: string; readonly privateKey: string; readonly publicKey: string } = makeKey();
