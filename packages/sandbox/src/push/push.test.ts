import { createECDH, generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { decryptPushMessage, DecryptError, type SubscriberKeys } from './ece.ts';
import { verifyVapid } from './vapid.ts';

const b64 = (text: string) => Buffer.from(text, 'base64url');

/** RFC 8291 Appendix A, as printed. */
const rfc8291 = {
  plaintext: 'When I grow up, I want to be a watermelon',
  uaPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  asPublic: 'BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8',
  salt: 'DGv6ra1nlYgDCS1FRnbzlw',
  auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  body:
    'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_' +
    'yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};
const rfcKeys: SubscriberKeys = { privateKey: b64(rfc8291.uaPrivate), publicKey: b64(rfc8291.uaPublic), authSecret: b64(rfc8291.auth) };

/** An application server's VAPID key pair and a signer of its JWTs (ES256, as RFC 8292 §2 has it). */
function vapidSigner() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const k = Buffer.concat([Buffer.from([4]), b64(jwk.x ?? ''), b64(jwk.y ?? '')]).toString('base64url');
  const header = (claims: Record<string, unknown>, alg = 'ES256') => {
    const unsigned = `${Buffer.from(JSON.stringify({ typ: 'JWT', alg })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const signature = sign('sha256', Buffer.from(unsigned), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    return `vapid t=${unsigned}.${signature}, k=${k}`;
  };
  return { k, header };
}

describe('the push fake’s decryption (RFC 8291 over aes128gcm)', () => {
  it('decrypts RFC 8291 Appendix A’s worked example to its plaintext', () => {
    const body = b64(rfc8291.body);
    // The example's header is what §A says: its salt, rs 4096, and the application server's key as keyid.
    expect(body.subarray(0, 16).toString('base64url')).toBe(rfc8291.salt);
    expect(body.readUInt32BE(16)).toBe(4096);
    expect(body.subarray(21, 86).toString('base64url')).toBe(rfc8291.asPublic);
    expect(decryptPushMessage(body, rfcKeys).toString('utf8')).toBe(rfc8291.plaintext);
  });

  it('refuses the example with one byte altered, another auth secret, or another subscriber key', () => {
    const altered = b64(rfc8291.body);
    altered[altered.length - 20] = (altered[altered.length - 20] ?? 0) ^ 1;
    expect(() => decryptPushMessage(altered, rfcKeys)).toThrow(DecryptError);
    expect(() => decryptPushMessage(b64(rfc8291.body), { ...rfcKeys, authSecret: Buffer.alloc(16, 7) })).toThrow(/tag does not verify/);
    const other = createECDH('prime256v1');
    const otherPublic = other.generateKeys();
    expect(() => decryptPushMessage(b64(rfc8291.body), { ...rfcKeys, privateKey: other.getPrivateKey(), publicKey: otherPublic })).toThrow(DecryptError);
  });
});

describe('the push fake’s VAPID check (RFC 8292)', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  const seconds = now / 1000;
  const audience = 'http://127.0.0.1:4000';
  const { k, header } = vapidSigner();

  it('accepts an ES256 JWT for the endpoint’s origin, expiring within 24 h, with a contact', () => {
    expect(verifyVapid(header({ aud: audience, exp: seconds + 3600, sub: 'mailto:ops@example.com' }), audience, now)).toEqual({
      ok: true,
      publicKey: k,
      claims: { aud: audience, exp: seconds + 3600, sub: 'mailto:ops@example.com' },
    });
  });

  it('refuses another audience, an expired or over-24-hour exp, no sub, another alg, and a signature from another key', () => {
    const reason = (authorization: string) => {
      const check = verifyVapid(authorization, audience, now);
      return check.ok ? 'accepted' : check.reason;
    };
    const claims = { aud: audience, exp: seconds + 3600, sub: 'mailto:ops@example.com' };
    expect(reason(header({ ...claims, aud: 'http://127.0.0.1:4001' }))).toMatch(/^aud is/);
    expect(reason(header({ ...claims, exp: seconds - 1 }))).toMatch(/past/);
    expect(reason(header({ ...claims, exp: seconds + 24 * 3600 + 1 }))).toMatch(/24 hours/);
    expect(reason(header({ aud: audience, exp: seconds + 60 }))).toMatch(/sub is missing/);
    expect(reason(header(claims, 'HS256'))).toMatch(/not ES256/);
    const forged = header(claims).replace(/k=.*$/, `k=${vapidSigner().k}`);
    expect(reason(forged)).toMatch(/does not verify/);
    expect(reason('WebPush abc')).toMatch(/no `vapid/);
  });
});

describe('the fake push service over HTTP', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.reset());

  const signer = vapidSigner();
  const post = (endpoint: string, headers: Record<string, string>, body: Buffer = b64(rfc8291.body)) =>
    fetch(endpoint, { method: 'POST', headers: { 'content-encoding': 'aes128gcm', ttl: '60', ...headers }, body: new Uint8Array(body) });
  const vapidFor = (endpoint: string) => signer.header({ aud: new URL(endpoint).origin, exp: Math.floor(Date.now() / 1000) + 600, sub: 'mailto:ops@example.com' });

  it('accepts RFC 8291’s example posted to a subscription holding its keys: 201, a Location, and the plaintext recorded', async () => {
    const { id, endpoint, keys } = sandbox.subscribePush({ keys: rfcKeys });
    expect(keys).toEqual({ p256dh: rfc8291.uaPublic, auth: rfc8291.auth });
    const response = await post(endpoint, { authorization: vapidFor(endpoint), urgency: 'high', topic: 'monitor-outage' });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toMatch(/\/message\//);
    expect(sandbox.pushes()).toMatchObject([{ subscriptionId: id, payload: rfc8291.plaintext, ttl: 60, urgency: 'high', topic: 'monitor-outage', vapid: { publicKey: signer.k } }]);
  });

  it('hands out a fresh P-256 key pair and a 16-byte auth secret per subscription', () => {
    const first = sandbox.subscribePush();
    const second = sandbox.subscribePush();
    expect(b64(first.keys.p256dh)).toHaveLength(65);
    expect(b64(first.keys.p256dh)[0]).toBe(4);
    expect(b64(first.keys.auth)).toHaveLength(16);
    expect(first.keys.p256dh).not.toBe(second.keys.p256dh);
    expect(first.endpoint).toBe(`${sandbox.services.push.url}/push/${first.id}`);
  });

  it('refuses what a push service refuses, recording nothing', async () => {
    const { id, endpoint } = sandbox.subscribePush({ keys: rfcKeys });
    const status = async (headers: Record<string, string>, target = endpoint, body?: Buffer) => (await post(target, headers, body)).status;
    const auth = vapidFor(endpoint);
    expect(await status({})).toBe(401);
    expect(await status({ authorization: signer.header({ aud: 'https://elsewhere.example', exp: Math.floor(Date.now() / 1000) + 600, sub: 'mailto:a@b.c' }) })).toBe(401);
    expect((await fetch(endpoint, { method: 'POST', headers: { authorization: auth }, body: new Uint8Array(b64(rfc8291.body)) })).status).toBe(400);
    expect(await status({ authorization: auth, topic: 'a'.repeat(33) })).toBe(400);
    expect(await status({ authorization: auth, urgency: 'urgent' })).toBe(400);
    expect(await status({ authorization: auth, 'content-encoding': 'aesgcm' })).toBe(400);
    expect(await status({ authorization: auth }, endpoint, Buffer.alloc(4097))).toBe(413);
    expect(await status({ authorization: auth }, `${sandbox.services.push.url}/push/nobody`)).toBe(404);
    sandbox.unsubscribePush(id);
    expect(await status({ authorization: auth })).toBe(410);
    expect(sandbox.pushes()).toEqual([]);
  });

  it('accepts only the applicationServerKey a subscription was made with (403 for another)', async () => {
    const { endpoint } = sandbox.subscribePush({ keys: rfcKeys, applicationServerKey: vapidSigner().k });
    expect((await post(endpoint, { authorization: vapidFor(endpoint) })).status).toBe(403);
  });

  it('answers 429 with Retry-After over its limit, and an injected 5xx', async () => {
    const { endpoint } = sandbox.subscribePush({ keys: rfcKeys });
    sandbox.limit('push', { limit: 1, windowMs: 30_000 });
    expect((await post(endpoint, { authorization: vapidFor(endpoint) })).status).toBe(201);
    const limited = await post(endpoint, { authorization: vapidFor(endpoint) });
    expect(limited.status).toBe(429);
    // The window's end in whole seconds: 30 unless the machine took a second or more between the two posts.
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(25);
    expect(retryAfter).toBeLessThanOrEqual(30);
    sandbox.reset();
    sandbox.inject('push', { status: 503, times: 1 });
    expect((await post(endpoint, { authorization: vapidFor(endpoint) })).status).toBe(503);
  });
});
