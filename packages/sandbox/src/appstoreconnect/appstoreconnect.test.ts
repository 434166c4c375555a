import { generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdToDescriptions } from '../contract/index.ts';
import { startSandbox, type Sandbox } from '../sandbox.ts';
import { verifyAppStoreToken, appleDate } from './index.ts';
import { sandboxAppStoreKey } from './keys.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function jwt({ header = {}, claims = {}, key = sandboxAppStoreKey.privateKey, now = Date.now() }: { header?: object; claims?: object; key?: string; now?: number } = {}) {
  const iat = Math.floor(now / 1000);
  const head = part({ alg: 'ES256', kid: sandboxAppStoreKey.keyId, typ: 'JWT', ...header });
  const body = part({ iss: sandboxAppStoreKey.issuerId, iat, exp: iat + 19 * 60, aud: 'appstoreconnect-v1', ...claims });
  const signature = sign('sha256', Buffer.from(`${head}.${body}`), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `Bearer ${head}.${body}.${signature}`;
}

const get = (path: string, authorization: string) => fetch(`${sandbox.services.appstoreconnect.baseUrl}${path}`, { headers: { authorization } });

describe('App Store Connect fake', () => {
  it('verifies the JWT for real: signature, alg, kid, issuer, audience and expiry at most 20 minutes ahead', () => {
    const now = Date.now();
    const iat = Math.floor(now / 1000);
    expect(verifyAppStoreToken(jwt({ now }), now)).toBe(true);
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    expect(verifyAppStoreToken(jwt({ key: other.privateKey, now }), now)).toBe(false);
    expect(verifyAppStoreToken(jwt({ header: { kid: 'OTHERKEY01' }, now }), now)).toBe(false);
    expect(verifyAppStoreToken(jwt({ header: { alg: 'none' }, now }), now)).toBe(false);
    expect(verifyAppStoreToken(jwt({ claims: { aud: 'appstoreconnect-v2' }, now }), now)).toBe(false);
    expect(verifyAppStoreToken(jwt({ claims: { iss: 'someone-else' }, now }), now)).toBe(false);
    expect(verifyAppStoreToken(jwt({ claims: { exp: iat + 21 * 60 }, now }), now)).toBe(false);
    expect(verifyAppStoreToken(jwt({ claims: { exp: iat - 1 }, now }), now)).toBe(false);
    const [head, body, signature = ''] = jwt({ now }).split('.');
    const tampered = `${head}.${part({ iss: sandboxAppStoreKey.issuerId, iat, exp: iat + 600, aud: 'appstoreconnect-v1', scope: ['GET /v1/apps'] })}.${signature}`;
    expect(verifyAppStoreToken(tampered, now)).toBe(false);
    expect(verifyAppStoreToken(`${head}.${body}.${signature}`, now)).toBe(true);
  });

  it('answers Apple’s 401 error document to a bad token', async () => {
    const response = await get('/v1/apps', 'Bearer not.a.jwt');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      errors: [
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          status: '401',
          code: 'NOT_AUTHORIZED',
          title: 'Authentication credentials are missing or invalid.',
          detail: expect.stringContaining('Provide a properly configured and signed bearer token'),
        },
      ],
    });
  });

  it('pages reviews with a cursor in links.next and meta.paging, newest first, dates in Cupertino time', async () => {
    const first = await get('/v1/apps/1588431207/customerReviews?sort=-createdDate&limit=20', jwt());
    expect(first.headers.get('x-rate-limit')).toMatch(/^user-hour-lim:3500;user-hour-rem:\d+;$/);
    const page = (await first.json()) as { data: { attributes: { createdDate: string; rating: number } }[]; links: { self: string; next?: string }; meta: { paging: { total: number; limit: number } } };
    expect(page.data).toHaveLength(20);
    expect(page.meta.paging).toEqual({ total: 64, limit: 20 });
    expect(page.links.next).toMatch(/\/v1\/apps\/1588431207\/customerReviews\?sort=-createdDate&limit=20&cursor=[\w-]+$/);
    expect(page.data[0]?.attributes.createdDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-0[78]:00$/);
    const second = (await (await fetch(page.links.next ?? '', { headers: { authorization: jwt() } })).json()) as typeof page;
    expect(second.data).toHaveLength(20);
    expect(Date.parse(second.data[0]?.attributes.createdDate ?? '')).toBeLessThanOrEqual(Date.parse(page.data[19]?.attributes.createdDate ?? ''));
    const ratings = [...page.data, ...second.data].map((r) => r.attributes.rating);
    expect(ratings.filter((r) => r >= 4).length).toBeGreaterThan(ratings.length / 2);
    expect(ratings.some((r) => r <= 2)).toBe(true);
  });

  it('keeps only the asked fields of an app and says which app does not exist', async () => {
    const app = (await (await get('/v1/apps/1602277354?fields[apps]=name,bundleId', jwt())).json()) as { data: { attributes: object } };
    expect(app.data.attributes).toEqual({ name: 'Tideline – Tides & Moon', bundleId: 'app.tideline.ios' });
    const missing = await get('/v1/apps/42', jwt());
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ errors: [{ status: '404', code: 'NOT_FOUND', detail: "There is no resource of type 'apps' with id '42'" }] });
  });

  it('writes dates with Cupertino’s summer and winter offsets', () => {
    expect(appleDate(Date.UTC(2026, 6, 1, 12))).toBe('2026-07-01T05:00:00-07:00');
    expect(appleDate(Date.UTC(2026, 0, 15, 12))).toBe('2026-01-15T04:00:00-08:00');
  });
});
