import { createServer, type Server } from 'node:http';
import type { LookupAddress } from 'node:dns';
import { BlockList, type AddressInfo, type LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardedFetch, guardedLookup, isRefusedAddress, RefusedAddressError, refusedAddressIn, refusedBaseUrl } from './address-guard.ts';
import { systemClock } from './context.ts';
import { ConnectorError } from './errors.ts';
import { defineClient } from './http.ts';
import { unlimited } from './limiter.ts';

describe('isRefusedAddress', () => {
  it.each([
    '169.254.169.254',
    '169.254.0.1',
    '169.254.255.255',
    '100.100.100.200',
    'fe80::1',
    'FE80::abcd:1',
    'febf:ffff::1',
    'fe80::1%eth0',
    'fd00:ec2::254',
    'fd00:ec2:0:0:0:0:0:254',
    '[fd00:ec2::254]',
    '[fe80::1]',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '[::ffff:169.254.169.254]',
    '0:0:0:0:0:ffff:a9fe:0001',
    '64:ff9b::169.254.169.254',
    // Azure's WireServer (the platform's host: VM agent goal state, extensions' settings and certificates).
    '168.63.129.16',
    '::ffff:168.63.129.16',
    '::ffff:a83f:8110',
    '64:ff9b::168.63.129.16',
  ])('refuses %s', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
    '10.0.0.5',
    '192.168.1.10',
    '172.16.0.1',
    'fd00::1',
    'fd00:ec2::253',
    'fec0::1',
    '169.253.255.255',
    '169.255.0.1',
    '8.8.8.8',
    '2001:db8::1',
    '100.100.100.100',
    '168.63.129.15',
    '168.63.129.17',
    'example.com',
    'localhost',
    '',
  ])('allows %s', (address) => {
    expect(isRefusedAddress(address)).toBe(false);
  });
});

describe("isRefusedAddress with scope 'public' (Web Push endpoints)", () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.10',
    '169.254.1.1',
    '100.64.0.1',
    '100.127.255.254',
    '::1',
    '[::1]',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:c0a8:0101',
    '64:ff9b::10.0.0.1',
    '169.254.169.254',
  ])('refuses %s', (address) => {
    expect(isRefusedAddress(address, 'public')).toBe(true);
  });

  it.each(['8.8.8.8', '172.32.0.1', '100.63.255.255', '100.128.0.1', '2001:4860::8888', 'fbff::1', 'push.example.com', 'localhost'])('allows %s', (address) => {
    expect(isRefusedAddress(address, 'public')).toBe(false);
  });

  it('names the rule in the refusal, and leaves the default scope as it was', () => {
    expect(refusedBaseUrl('https://10.0.0.7/push/abc', 'public')).toBe('The address 10.0.0.7 (loopback, private, link-local or shared) is not allowed here: only a public address');
    expect(refusedBaseUrl('https://10.0.0.7/push/abc')).toBeUndefined();
  });
});

describe("Node's BlockList", () => {
  // What the guard relies on, or covers with rules of its own: an IPv4 rule matches the IPv4-mapped
  // IPv6 form of its addresses, in dotted and hex notation; it does not match a mapped loopback.
  it('checks an IPv4-mapped IPv6 address against the IPv4 rules', () => {
    const list = new BlockList();
    list.addSubnet('169.254.0.0', 16, 'ipv4');
    expect(list.check('::ffff:169.254.169.254', 'ipv6')).toBe(true);
    expect(list.check('::ffff:a9fe:a9fe', 'ipv6')).toBe(true);
    expect(list.check('::ffff:127.0.0.1', 'ipv6')).toBe(false);
  });
});

describe('refusedBaseUrl', () => {
  it('names the address of a refused literal host, in any form a URL may write it', () => {
    const message = 'The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream';
    expect(refusedBaseUrl('http://169.254.169.254')).toBe(message);
    expect(refusedBaseUrl('http://169.254.169.254/latest/meta-data/')).toBe(message);
    // WHATWG URLs normalise decimal and hex IPv4 to the dotted form.
    expect(refusedBaseUrl('http://2852039166/')).toBe(message);
    expect(refusedBaseUrl('http://0xa9.0xfe.0xa9.0xfe/')).toBe(message);
    expect(refusedBaseUrl('https://[fd00:ec2::254]/')).toBe('The address fd00:ec2::254 (link-local or cloud metadata) is not allowed as an upstream');
    expect(refusedBaseUrl('http://[::ffff:169.254.169.254]:8080')).toMatch(/^The address ::ffff:a9fe:a9fe /);
    expect(refusedBaseUrl('http://168.63.129.16/machine?comp=goalstate')).toBe('The address 168.63.129.16 (link-local or cloud metadata) is not allowed as an upstream');
  });

  it('allows loopback, LAN addresses and hostnames, and leaves a URL it cannot parse to the schema', () => {
    for (const url of ['http://127.0.0.1:4010', 'http://[::1]:80', 'http://10.0.0.2', 'https://sentry.lan', 'https://api.stripe.com', 'not a url']) {
      expect(refusedBaseUrl(url), url).toBeUndefined();
    }
  });

  it('never repeats the rest of the URL (user info, path, query)', () => {
    const message = refusedBaseUrl('http://user:s3cret@169.254.169.254/path?token=abc') ?? '';
    expect(message).toMatch(/169\.254\.169\.254/);
    expect(message).not.toMatch(/s3cret|user|token|abc|path/);
  });
});

/** A resolver that knows a few names and nothing else: no test depends on real DNS. */
function fakeLookup(names: Record<string, readonly LookupAddress[]>): LookupFunction & { asked: string[] } {
  const asked: string[] = [];
  const lookup = ((hostname, options, callback) => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (!addresses) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    if (options.all) callback(null, [...wanted]);
    else callback(null, wanted[0]?.address ?? '', wanted[0]?.family ?? 0);
  }) as LookupFunction & { asked: string[] };
  lookup.asked = asked;
  return lookup;
}

describe('guardedLookup', () => {
  const lookupOnce = (lookup: LookupFunction, hostname: string, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown; family: unknown }>((resolve) => {
      lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family }));
    });

  it('drops refused addresses and keeps the rest, in both callback forms', async () => {
    const lookup = guardedLookup(
      fakeLookup({ mixed: [{ address: '169.254.169.254', family: 4 }, { address: '127.0.0.1', family: 4 }, { address: 'fe80::1', family: 6 }] }),
    );
    expect(await lookupOnce(lookup, 'mixed', true)).toEqual({ error: null, address: [{ address: '127.0.0.1', family: 4 }], family: undefined });
    expect(await lookupOnce(lookup, 'mixed', false)).toEqual({ error: null, address: '127.0.0.1', family: 4 });
  });

  it('fails with a RefusedAddressError when every address is refused', async () => {
    const lookup = guardedLookup(fakeLookup({ metadata: [{ address: '169.254.169.254', family: 4 }, { address: 'fd00:ec2::254', family: 6 }] }));
    for (const all of [true, false]) {
      const { error } = await lookupOnce(lookup, 'metadata', all);
      expect(error).toBeInstanceOf(RefusedAddressError);
      expect(error?.message).toBe('The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream (metadata resolves to it)');
    }
  });

  it('passes a resolver error on unchanged', async () => {
    const { error } = await lookupOnce(guardedLookup(fakeLookup({})), 'nowhere', true);
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('guardedFetch', () => {
  let server: Server;
  let port: number;
  const seen: { url: string | undefined; method: string | undefined; header: string | string[] | undefined; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ url: req.url, method: req.method, header: req.headers['x-test'], body });
        if (req.url === '/redirect') {
          res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path: req.url }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** What a refused fetch rejected with: fetch's own TypeError, the refusal as its cause. */
  async function refusal(promise: Promise<unknown>): Promise<RefusedAddressError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const refused = refusedAddressIn(error);
    expect(refused, String(error)).toBeInstanceOf(RefusedAddressError);
    return refused as RefusedAddressError;
  }

  it('reaches a real server on 127.0.0.1, by address and by a name that resolves to it', async () => {
    const lookup = fakeLookup({ 'sandbox.test': [{ address: '127.0.0.1', family: 4 }] });
    const guarded = guardedFetch({ lookup });
    const byAddress = await guarded(`http://127.0.0.1:${port}/v1/ping?x=1`, { headers: new Headers({ 'x-test': 'yes' }) });
    expect(byAddress.status).toBe(200);
    expect(await byAddress.json()).toEqual({ ok: true, path: '/v1/ping?x=1' });
    const byName = await guarded(new URL(`http://sandbox.test:${port}/by-name`), { method: 'POST', body: '{"a":1}' });
    expect(await byName.json()).toEqual({ ok: true, path: '/by-name' });
    expect(lookup.asked).toEqual(['sandbox.test']);
    expect(seen.at(-2)).toMatchObject({ url: '/v1/ping?x=1', method: 'GET', header: 'yes' });
    expect(seen.at(-1)).toMatchObject({ url: '/by-name', method: 'POST', body: '{"a":1}' });
  });

  it('takes a Request made by the global fetch API', async () => {
    const guarded = guardedFetch();
    const request = new Request(`http://127.0.0.1:${port}/from-request`, { method: 'POST', headers: { 'x-test': 'req' }, body: 'hello' });
    const response = await guarded(request);
    expect(await response.json()).toEqual({ ok: true, path: '/from-request' });
    expect(seen.at(-1)).toMatchObject({ url: '/from-request', method: 'POST', header: 'req', body: 'hello' });
  });

  it('refuses http://169.254.169.254/ and the IPv6 metadata address without opening a connection', async () => {
    const lookup = fakeLookup({});
    const guarded = guardedFetch({ lookup });
    const refused = await refusal(guarded('http://169.254.169.254/latest/meta-data/'));
    expect(refused.message).toBe('The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream');
    expect((await refusal(guarded('http://[fd00:ec2::254]/latest/api/token'))).address).toBe('fd00:ec2::254');
    expect((await refusal(guarded('http://[::ffff:169.254.169.254]/'))).address).toBe('::ffff:a9fe:a9fe');
    expect(lookup.asked).toEqual([]);
  });

  it('refuses a hostname that resolves to a link-local address, at connect time', async () => {
    const lookup = fakeLookup({
      'metadata.test': [{ address: '169.254.169.254', family: 4 }],
      'rebound.test': [{ address: 'fe80::1', family: 6 }],
    });
    const guarded = guardedFetch({ lookup });
    const refused = await refusal(guarded(`http://metadata.test:${port}/latest/meta-data/`));
    expect(refused.message).toBe('The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream (metadata.test resolves to it)');
    expect((await refusal(guarded(`http://rebound.test:${port}/`))).address).toBe('fe80::1');
    expect(lookup.asked).toEqual(['metadata.test', 'rebound.test']);
  });

  it("with scope 'public', refuses loopback by literal before connecting and a name resolving to a private address at connect time", async () => {
    const lookup = fakeLookup({ 'lan.test': [{ address: '192.168.0.20', family: 4 }], 'local.test': [{ address: '127.0.0.1', family: 4 }] });
    const before = seen.length;
    const guarded = guardedFetch({ lookup, scope: 'public' });
    expect((await refusal(guarded(`http://127.0.0.1:${port}/`))).address).toBe('127.0.0.1');
    const refused = await refusal(guarded(`http://local.test:${port}/`));
    expect(refused.message).toBe('The address 127.0.0.1 (loopback, private, link-local or shared) is not allowed here: only a public address (local.test resolves to it)');
    expect((await refusal(guarded(`http://lan.test:${port}/`))).address).toBe('192.168.0.20');
    expect(seen.length).toBe(before);
  });

  it('refuses a redirect to a refused address', async () => {
    const before = seen.length;
    const refused = await refusal(guardedFetch()(`http://127.0.0.1:${port}/redirect`));
    expect(refused.address).toBe('169.254.169.254');
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/redirect']);
  });

  it('is what a connector client reports as a clear error that is not retried', async () => {
    const client = defineClient({ service: 'Example', headers: (c) => ({ authorization: `Bearer ${c.token ?? ''}` }) }, { attempts: 3, baseDelayMs: 1, maxWaitMs: 10 });
    const lookup = fakeLookup({ 'metadata.test': [{ address: '169.254.169.254', family: 4 }] });
    const inner = guardedFetch({ lookup });
    let calls = 0;
    const counting = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      calls++;
      return inner(input, init);
    }) as typeof fetch;
    const ctx = (baseUrl: string, fetch: typeof globalThis.fetch) => ({
      credentials: { token: 'sk_secret_value' },
      baseUrl,
      fetch,
      clock: systemClock,
      limiter: unlimited(systemClock),
    });

    const byName = await client.get(ctx(`http://metadata.test:${port}`, counting), '/v1', {}, z.unknown()).catch((e: unknown) => e);
    expect(byName).toBeInstanceOf(ConnectorError);
    expect(byName).toMatchObject({
      kind: 'upstream',
      retryable: false,
      message: 'Example was not called: The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream (metadata.test resolves to it)',
    });
    expect(calls).toBe(1);
    expect(String((byName as Error).message)).not.toContain('sk_secret_value');

    // A literal address is refused before whatever fetch the context carries is called.
    let plainCalls = 0;
    const plain = (() => {
      plainCalls++;
      return Promise.resolve(new Response('{}'));
    }) as typeof fetch;
    const literal = await client.get(ctx('http://169.254.169.254', plain), '/v1', {}, z.unknown()).catch((e: unknown) => e);
    expect(literal).toMatchObject({ kind: 'upstream', retryable: false, message: 'Example was not called: The address 169.254.169.254 (link-local or cloud metadata) is not allowed as an upstream' });
    expect(plainCalls).toBe(0);

    // And an allowed upstream is unchanged.
    expect(await client.get(ctx(`http://127.0.0.1:${port}`, inner), '/v1/ok', {}, z.object({ ok: z.boolean() }))).toEqual({ ok: true });
  });
});
