import { generateKeyPairSync, verify } from 'node:crypto';
import { startSandbox, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { sandboxAppStoreKey } from '@dash/sandbox';
import { storefrontSchema } from '@dash/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// The lead exports this from @dash/sandbox; the file is the same module either way.

import type { ConnectorContext } from '../context.ts';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { appstoreconnect, nextPageOf } from './index.ts';
import { stateOf } from './map.ts';
import type { AppStoreVersion } from './schemas.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;

let sandbox: Sandbox;
/** How far the sandbox's clock is ahead of real time, moved with a test's clock. */
let skew = 0;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ now: () => Date.now() + skew, observe });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  skew = 0;
  sandbox.reset();
  sandbox.limit('appstoreconnect', { limit: 3500, windowMs: HOUR });
});

const credentials = { issuerId: sandboxAppStoreKey.issuerId, keyId: sandboxAppStoreKey.keyId, privateKey: sandboxAppStoreKey.privateKey };
const pocketLedger = { appId: '1588431207' };
const tideline = { appId: '1602277354' };

/** A context whose fetch remembers every Authorization header it sent. */
function recording(options: Parameters<typeof sandboxContext>[2] = {}): ConnectorContext & { authorizations: string[] } {
  const ctx = sandboxContext(sandbox, 'appstoreconnect', { credentials, ...options });
  const authorizations: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    authorizations.push(new Headers(init?.headers).get('authorization') ?? '');
    return globalThis.fetch(input, init);
  };
  return { ...ctx, fetch, authorizations };
}

/** A clock (and the sandbox's) moved `ahead` from now, where no token of another test is still good. */
function clockAhead(ahead: number) {
  skew = ahead;
  const clock = testClock(Date.now() + ahead);
  return {
    clock,
    advance(ms: number) {
      clock.advance(ms);
      skew += ms;
    },
  };
}

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

const otherKey = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;

describe('App Store Connect connector', () => {
  it('maps Pocket Ledger’s name, bundle id, twenty newest reviews and its versions newest first', async () => {
    const out = await appstoreconnect.storefront(recording(), { config: pocketLedger });
    expect(storefrontSchema.parse(out)).toEqual(out);
    expect(out.app).toEqual({ name: 'Pocket Ledger: Budget & Bills', bundleId: 'app.pocketledger.ios' });

    expect(out.reviews).toHaveLength(20);
    const dates = out.reviews.map((r) => r.createdAt);
    expect(dates).toEqual([...dates].sort().reverse());
    // Apple's Cupertino offsets come back as UTC.
    for (const date of dates) expect(date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(Date.parse(dates[0] ?? '')).toBeGreaterThan(Date.now() - 30 * 24 * HOUR);
    for (const review of out.reviews) {
      expect(review.title).not.toBe('');
      expect(review.reviewerNickname).not.toBe('');
      expect(review.territory).toMatch(/^[A-Z]{3}$/);
    }

    expect(out.versions.map((v) => [v.version, v.state])).toEqual([
      ['2.4.0', 'PREPARE_FOR_SUBMISSION'],
      ['2.3.1', 'READY_FOR_DISTRIBUTION'],
      ['2.3.0', 'REPLACED_WITH_NEW_VERSION'],
      ['2.2.2', 'REPLACED_WITH_NEW_VERSION'],
      ['2.2.0', 'REPLACED_WITH_NEW_VERSION'],
      ['2.1.0', 'REPLACED_WITH_NEW_VERSION'],
      ['2.0.0', 'REPLACED_WITH_NEW_VERSION'],
      ['1.9.3', 'REPLACED_WITH_NEW_VERSION'],
    ]);
    expect(sandbox.requestsTo('appstoreconnect').map((r) => r.path).sort()).toEqual([
      '/v1/apps/1588431207/appStoreVersions?limit=10',
      '/v1/apps/1588431207/customerReviews?sort=-createdDate&limit=20',
      '/v1/apps/1588431207?fields%5Bapps%5D=name%2CbundleId',
    ]);
  });

  it('follows links.next through Tideline’s fourteen versions and keeps the ten newest, reading one page of reviews', async () => {
    const out = await appstoreconnect.storefront(recording(), { config: tideline });
    expect(out.app.name).toBe('Tideline – Tides & Moon');
    expect(out.versions).toHaveLength(10);
    expect(out.versions.slice(0, 3).map((v) => [v.version, v.state])).toEqual([
      ['3.8.0', 'IN_REVIEW'],
      ['3.7.2', 'READY_FOR_DISTRIBUTION'],
      ['3.7.1', 'REPLACED_WITH_NEW_VERSION'],
    ]);
    const versionPages = sandbox.requestsTo('appstoreconnect', '/v1/apps/1602277354/appStoreVersions');
    expect(versionPages).toHaveLength(2);
    expect(versionPages[1]?.path).toMatch(/[?&]cursor=[\w-]+/);
    // Apple links a next page of reviews (47 in all); the widget only needs the newest twenty.
    expect(sandbox.requestsTo('appstoreconnect', '/v1/apps/1602277354/customerReviews')).toHaveLength(1);
    expect(out.reviews).toHaveLength(20);
  });

  it('signs an ES256 JWT Apple accepts: kid, issuer, audience, and a lifetime of 19 minutes from the context’s clock', async () => {
    const { clock } = clockAhead(3 * HOUR);
    const ctx = recording({ clock });
    await appstoreconnect.test(ctx);
    const [authorization = ''] = ctx.authorizations;
    const [head = '', body = '', signature = ''] = authorization.replace(/^Bearer /, '').split('.');
    expect(decode(head)).toEqual({ alg: 'ES256', kid: sandboxAppStoreKey.keyId, typ: 'JWT' });
    const claims = decode(body);
    const iat = Math.floor(clock.now() / 1000);
    expect(claims).toEqual({ iss: sandboxAppStoreKey.issuerId, iat, exp: iat + 19 * 60, aud: 'appstoreconnect-v1' });
    expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(1200);
    const raw = Buffer.from(signature, 'base64url');
    expect(raw).toHaveLength(64);
    expect(verify('sha256', Buffer.from(`${head}.${body}`), { key: sandboxAppStoreKey.publicKey, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
  });

  it('reuses one token across calls and signs a new one only within a minute of its expiry', async () => {
    const moved = clockAhead(6 * HOUR);
    const { clock } = moved;
    const ctx = recording({ clock });
    await appstoreconnect.storefront(ctx, { config: pocketLedger });
    await appstoreconnect.storefront(ctx, { config: tideline });
    expect(ctx.authorizations).toHaveLength(7);
    expect(new Set(ctx.authorizations).size).toBe(1);

    moved.advance(17 * MINUTE);
    await appstoreconnect.test(ctx);
    expect(new Set(ctx.authorizations).size).toBe(1);

    moved.advance(MINUTE + 1000);
    await appstoreconnect.test(ctx);
    expect(new Set(ctx.authorizations).size).toBe(2);
    expect(sandbox.requestsTo('appstoreconnect').every((r) => r.status === 200)).toBe(true);
  });

  it('says the key was rejected with Apple’s reason, without the key or the token', async () => {
    const privateKey = otherKey();
    const ctx = recording({ credentials: { ...credentials, privateKey } });
    const error = await appstoreconnect.storefront(ctx, { config: pocketLedger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({
      kind: 'auth',
      retryable: false,
      message:
        'App Store Connect rejected the credentials (401): Authentication credentials are missing or invalid. Provide a properly configured and signed bearer token, and make sure that it has not expired. Learn more about Generating Tokens for API Requests https://developer.apple.com/go/?id=api-generating-tokens',
    });
    const message = (error as Error).message;
    const token = (ctx.authorizations[0] ?? '').replace(/^Bearer /, '');
    expect(token.length).toBeGreaterThan(100);
    expect(message).not.toContain(token.split('.')[2] ?? '-');
    expect(message).not.toContain(privateKey.split('\n')[1] ?? '-');
    expect(sandbox.requestsTo('appstoreconnect').every((r) => r.status === 401)).toBe(true);
  });

  it('refuses a malformed .p8 with a clear auth error before sending anything, and never echoes it', async () => {
    const broken = '-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgsecretsecretsecret\n-----END PRIVATE KEY-----';
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
    for (const privateKey of [broken, 'hello', rsa]) {
      const error = await appstoreconnect.test(recording({ credentials: { ...credentials, privateKey } })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectorError);
      expect(error).toMatchObject({ kind: 'auth', retryable: false, message: expect.stringMatching(/^The App Store Connect private key is not a valid \.p8 key/) });
      expect((error as Error).message).not.toContain('secretsecret');
    }
    const missing = await appstoreconnect.test(recording({ credentials: { ...credentials, issuerId: '' } })).catch((e: unknown) => e);
    expect(missing).toMatchObject({ kind: 'auth', message: 'App Store Connect needs an issuer ID, a key ID and a private key (.p8)' });
    expect(sandbox.requestsTo('appstoreconnect')).toHaveLength(0);
  });

  it('accepts a .p8 pasted with \\n escapes or without its PEM lines', async () => {
    const escaped = sandboxAppStoreKey.privateKey.trim().replace(/\n/g, '\\n');
    const bare = sandboxAppStoreKey.privateKey.replace(/-----[A-Z ]+-----/g, '').trim();
    await appstoreconnect.test(recording({ credentials: { ...credentials, privateKey: escaped } }));
    await appstoreconnect.test(recording({ credentials: { ...credentials, privateKey: bare } }));
    expect(sandbox.requestsTo('appstoreconnect').map((r) => r.status)).toEqual([200, 200]);
  });

  it('checks credentials with one light call to /v1/apps, and fails it for a wrong issuer', async () => {
    await appstoreconnect.test(recording());
    expect(sandbox.requestsTo('appstoreconnect').map((r) => r.path)).toEqual(['/v1/apps?limit=1&fields%5Bapps%5D=name']);
    const error = await appstoreconnect.test(recording({ credentials: { ...credentials, issuerId: '00000000-0000-0000-0000-000000000000' } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', message: expect.stringContaining('(401): Authentication credentials are missing or invalid.') });
  });

  it('says an unknown app was not found, in Apple’s words', async () => {
    await expect(appstoreconnect.storefront(recording(), { config: { appId: '999' } })).rejects.toMatchObject({
      kind: 'not_found',
      message: expect.stringContaining("The specified resource does not exist. There is no resource of type 'apps' with id '999'"),
    });
  });

  it('backs off on 429 as Retry-After says when Apple sends one, then succeeds', async () => {
    const clock = testClock();
    sandbox.inject('appstoreconnect', {
      status: 429,
      headers: { 'retry-after': '2' },
      body: { errors: [{ status: '429', code: 'RATE_LIMIT_EXCEEDED', title: 'The request rate limit has been reached.', detail: 'Slow down.' }] },
      times: 1,
    });
    await appstoreconnect.test(recording({ clock }));
    expect(clock.slept).toContain(2000);
    expect(sandbox.requestsTo('appstoreconnect').map((r) => r.status)).toEqual([429, 200]);
  });

  it('retries a burst 429 after a short back-off while the hour still has budget', async () => {
    const clock = testClock();
    sandbox.inject('appstoreconnect', { status: 429, body: { errors: [{ status: '429', code: 'RATE_LIMIT_EXCEEDED', title: 'The request rate limit has been reached.' }] }, times: 1 });
    await appstoreconnect.test(recording({ clock }));
    expect(clock.slept).toEqual([250]);
    expect(sandbox.requestsTo('appstoreconnect').map((r) => r.status)).toEqual([429, 200]);
  });

  it('gives up at once with a minute to wait when X-Rate-Limit says the hour is spent', async () => {
    sandbox.limit('appstoreconnect', { limit: 1, windowMs: HOUR });
    const ctx = recording();
    await appstoreconnect.test(ctx);
    const error = await appstoreconnect.test(ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 60_000,
      message:
        "App Store Connect is rate limiting us (429): The request rate limit has been reached. We've received too many requests for this API. Please wait and try again or slow down your request rate.",
    });
    expect(sandbox.requestsTo('appstoreconnect').map((r) => r.status)).toEqual([200, 429]);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error with Apple’s reason', async () => {
    const clock = testClock();
    sandbox.inject('appstoreconnect', {
      status: 500,
      body: { errors: [{ status: '500', code: 'UNEXPECTED_ERROR', title: 'An unexpected error occurred.', detail: 'An unexpected error occurred on the server side.' }] },
    });
    const error = await appstoreconnect.test(recording({ clock })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true, message: 'App Store Connect failed (500): An unexpected error occurred. An unexpected error occurred on the server side.' });
    expect(sandbox.requestsTo('appstoreconnect')).toHaveLength(3);
    expect(clock.slept).toHaveLength(2);
  });

  it('turns a body that is not JSON, or JSON of another shape, into a bad_response error', async () => {
    sandbox.inject('appstoreconnect', { malformed: true, times: 1 });
    await expect(appstoreconnect.test(recording())).rejects.toMatchObject({ kind: 'bad_response', message: 'App Store Connect answered 200 with something that is not JSON' });
    sandbox.inject('appstoreconnect', { status: 200, body: { data: [{ type: 'apps', id: 1588431207 }], links: {} }, times: 1 });
    await expect(appstoreconnect.test(recording())).rejects.toMatchObject({ kind: 'bad_response', message: expect.stringContaining('(data.0.id:') });
  });

  it('follows links.next, relative or absolute, only while it is the same list', () => {
    const list = new URL('https://api.appstoreconnect.apple.com/v1/apps/1/appStoreVersions?limit=10');
    expect(nextPageOf('https://api.appstoreconnect.apple.com/v1/apps/1/appStoreVersions?cursor=Mg&limit=10', list)).toBe('https://api.appstoreconnect.apple.com/v1/apps/1/appStoreVersions?cursor=Mg&limit=10');
    expect(nextPageOf('appStoreVersions?cursor=Mg', list)).toBe('https://api.appstoreconnect.apple.com/v1/apps/1/appStoreVersions?cursor=Mg');
    expect(nextPageOf('../dictionary', list)).toBeUndefined();
    expect(nextPageOf('https://elsewhere.example/v1/apps/1/appStoreVersions?cursor=Mg', list)).toBeUndefined();
    expect(nextPageOf(undefined, list)).toBeUndefined();
  });

  it('reads the newer appVersionState first and falls back to the older appStoreState', () => {
    const version = (attributes: Partial<AppStoreVersion['attributes']>): AppStoreVersion => ({
      type: 'appStoreVersions',
      id: 'v',
      attributes: { versionString: '1.0', createdDate: '2026-04-30T09:28:28-07:00', ...attributes },
    });
    expect(stateOf(version({ appVersionState: 'READY_FOR_DISTRIBUTION', appStoreState: 'READY_FOR_SALE' }))).toBe('READY_FOR_DISTRIBUTION');
    expect(stateOf(version({ appStoreState: 'READY_FOR_SALE' }))).toBe('READY_FOR_SALE');
    expect(stateOf(version({ appVersionState: null, appStoreState: 'WAITING_FOR_REVIEW' }))).toBe('WAITING_FOR_REVIEW');
  });
});
