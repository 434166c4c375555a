import { isIP } from 'node:net';

/**
 * The address a request comes from, the one failed sign-ins are counted under and a session records: the
 * socket's, or with `TRUST_PROXY=true` (the dashboard sits behind a reverse proxy) the right-most
 * `X-Forwarded-For` hop, the one that proxy added; hops left of it are whatever the client sent, so they
 * never count. Without TRUST_PROXY the header is ignored, so sending it evades nothing. As the relay does.
 */
export function clientAddressOf(socket: string | undefined, forwardedFor: string | null | undefined, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const proxied = (forwardedFor ?? '')
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean)
      .at(-1);
    if (proxied) return proxied;
  }
  return socket;
}

/**
 * The address a connection is counted under for MAX_CONNECTIONS_PER_ADDRESS: the socket's, an IPv4 one as it is (also
 * IPv4-mapped, `::ffff:192.0.2.1`), an IPv6 one by its /64, which is what one host or one home gets (as the sign-in
 * throttle counts it); none at all under `unknown`.
 */
export function connectionGroup(socketAddress: string | undefined): string {
  const bare = (socketAddress ?? '').split('%')[0]?.toLowerCase() ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)?.[1];
  if (mapped) return mapped;
  if (isIP(bare) !== 6) return bare || 'unknown';
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => (Number.parseInt(group, 16) || 0).toString(16))
    .join(':')}::/64`;
}
