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
