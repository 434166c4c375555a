import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';

/**
 * Where an upstream may never be: link-local and cloud-metadata addresses. A credential's base URL
 * may point anywhere else the server can reach (self-hosted services on a LAN, the sandbox on
 * 127.0.0.1), but not at the instance metadata service, which hands out the machine's own
 * credentials to whoever asks from inside it.
 *
 * Node's BlockList checks an IPv4-mapped IPv6 address (`::ffff:169.254.169.254`, `::ffff:a9fe:a9fe`)
 * against the IPv4 rules; the mapped range is listed as well so that does not rest on that alone.
 */
const refused = new BlockList();
refused.addSubnet('169.254.0.0', 16, 'ipv4'); // IPv4 link-local; AWS, GCP, Azure, Oracle metadata at .169.254
refused.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
refused.addAddress('168.63.129.16', 'ipv4'); // Azure WireServer: the VM agent's goal state, extensions' settings and certificates
refused.addSubnet('::ffff:169.254.0.0', 112, 'ipv6'); // the same, IPv4-mapped
refused.addSubnet('64:ff9b::169.254.0.0', 112, 'ipv6'); // the same through NAT64
refused.addAddress('::ffff:100.100.100.200', 'ipv6');
refused.addAddress('::ffff:168.63.129.16', 'ipv6');
refused.addAddress('64:ff9b::168.63.129.16', 'ipv6');
refused.addSubnet('fe80::', 10, 'ipv6'); // IPv6 link-local
refused.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6

/**
 * Where a destination that should be on the public internet may not be either (a Web Push endpoint: a browser's push
 * service): loopback, unspecified, private (RFC 1918, IPv6 unique-local fc00::/7), link-local and shared (CGNAT
 * 100.64.0.0/10), in IPv4, IPv4-mapped and NAT64 forms. `PUSH_ALLOW_PRIVATE_ENDPOINTS=true` lifts it for push.
 */
const nonPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
  nonPublic.addSubnet(`::ffff:${network}`, 96 + prefix, 'ipv6');
  nonPublic.addSubnet(`64:ff9b::${network}`, 96 + prefix, 'ipv6');
}
nonPublic.addAddress('::', 'ipv6');
nonPublic.addAddress('::1', 'ipv6');
nonPublic.addSubnet('fc00::', 7, 'ipv6');
nonPublic.addSubnet('fe80::', 10, 'ipv6');

/** Which addresses a guard refuses: link-local and cloud metadata (every upstream), or every non-public one besides. */
export type AddressScope = 'upstream' | 'public';

/** `[fd00:ec2::254]` as a URL writes it, or a bare address; an IPv6 zone (`%eth0`) is dropped. */
function bareAddress(address: string): string {
  const unbracketed = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zone = unbracketed.indexOf('%');
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

/**
 * True when `address` is an IP address an upstream may not have: link-local or cloud metadata, in
 * IPv4, IPv6 or IPv4-mapped IPv6 form, bracketed or not. Anything that is not an IP (a hostname) is
 * false here: hostnames are checked where they are resolved, by the guarded fetch.
 */
export function isRefusedAddress(address: string, scope: AddressScope = 'upstream'): boolean {
  const bare = bareAddress(address.trim());
  const family = isIP(bare);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return refused.check(bare, type) || (scope === 'public' && nonPublic.check(bare, type));
}

/** Why a destination was refused; the message names the address and nothing else of the request. */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_REFUSED_UPSTREAM_ADDRESS';
  /** Without brackets. */
  readonly address: string;

  /** `hostname`, when given, is the name that resolved to `address`. */
  constructor(address: string, hostname?: string, scope: AddressScope = 'upstream') {
    const bare = bareAddress(address);
    const via = hostname && bareAddress(hostname) !== bare ? ` (${hostname} resolves to it)` : '';
    super(
      scope === 'public' && !isRefusedAddress(bare)
        ? `The address ${bare} (loopback, private, link-local or shared) is not allowed here: only a public address${via}`
        : `The address ${bare} (link-local or cloud metadata) is not allowed as an upstream${via}`,
    );
    this.name = 'RefusedAddressError';
    this.address = bare;
  }
}

/**
 * Why a base URL may not be used, or undefined when it may. Only a literal IP is judged here; a
 * hostname is checked each time it is resolved, at connect time.
 */
export function refusedBaseUrl(baseUrl: string, scope: AddressScope = 'upstream'): string | undefined {
  let hostname: string;
  try {
    hostname = new URL(baseUrl).hostname;
  } catch {
    return undefined;
  }
  return isRefusedAddress(hostname, scope) ? new RefusedAddressError(hostname, undefined, scope).message : undefined;
}

/** The RefusedAddressError somewhere in an error's causes (fetch wraps connect errors in a TypeError). */
export function refusedAddressIn(error: unknown): RefusedAddressError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof RefusedAddressError) return current;
  }
  return undefined;
}

/** Resolves as `lookup` does, minus refused addresses; fails when nothing else is left. */
export function guardedLookup(lookup: LookupFunction = dnsLookup, scope: AddressScope = 'upstream'): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, resolved) => {
      if (error) return callback(error, '', 0);
      const addresses = typeof resolved === 'string' ? [{ address: resolved, family: isIP(resolved) }] : resolved;
      const allowed = addresses.filter((entry) => !isRefusedAddress(entry.address, scope));
      const first = allowed[0];
      if (!first) {
        const address = addresses[0]?.address;
        const failure = address === undefined ? Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }) : new RefusedAddressError(address, hostname, scope);
        return callback(failure, '', 0);
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

export interface GuardedAgentOptions {
  /** How hostnames are resolved; `dns.lookup` unless a test hands in its own. */
  lookup?: LookupFunction;
  /** `public`: loopback, private, link-local and shared (CGNAT) addresses are refused too (Web Push endpoints). */
  scope?: AddressScope;
}

/**
 * An undici Agent that refuses, at connect time, a link-local or cloud-metadata destination: a literal
 * IP in the URL before any socket is opened, a hostname on the addresses it resolves to as the socket
 * connects (so a DNS answer cannot change between a check and the connection). Every connection goes
 * through it, redirects included.
 */
export function guardedAgent(options: GuardedAgentOptions = {}): Agent {
  const { scope = 'upstream' } = options;
  const connect = buildConnector({ lookup: guardedLookup(options.lookup, scope) });
  return new Agent({
    connect(connectOptions, callback) {
      if (isRefusedAddress(connectOptions.hostname, scope)) {
        callback(new RefusedAddressError(connectOptions.hostname, undefined, scope), null);
        return;
      }
      connect(connectOptions, callback);
    },
  });
}

/**
 * A fetch with the global fetch's signature whose every connection goes through a guarded agent. A
 * refused destination rejects as fetch rejects for any network failure (a TypeError), with the
 * RefusedAddressError as its cause; see `refusedAddressIn`.
 */
export function guardedFetch(options: GuardedAgentOptions = {}): typeof fetch {
  let dispatcher: Agent | undefined;
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let url: string | URL;
    let requestInit: RequestInit = init ?? {};
    if (typeof input === 'string' || input instanceof URL) {
      url = input;
    } else {
      // A Request from the global fetch is another class than undici's: taken apart and passed on.
      url = input.url;
      requestInit = {
        method: input.method,
        headers: input.headers,
        redirect: input.redirect,
        signal: input.signal,
        ...(input.body ? { body: input.body, duplex: 'half' } : {}),
        ...init,
      };
    }
    const response = await undiciFetch(url, { ...(requestInit as UndiciRequestInit), dispatcher: (dispatcher ??= guardedAgent(options)) });
    return response as unknown as Response;
  };
  return guarded;
}

/** The fetch connectors get unless a caller hands in its own: one agent for the process, made on first use. */
export const defaultGuardedFetch: typeof fetch = guardedFetch();

/** The fetch for a destination that must be public (Web Push endpoints): as the default, refusing non-public addresses too. */
export const publicOnlyFetch: typeof fetch = guardedFetch({ scope: 'public' });
