/** The sentence for `/settings/connections?oauth=…&reason=…`, where a provider's callback lands. */
export function oauthOutcome(params: URLSearchParams): { ok: boolean; message: string } | undefined {
  const outcome = params.get('oauth');
  if (outcome === 'success') return { ok: true, message: 'Connected. The tokens are stored encrypted; the card below says whose account it is.' };
  if (outcome !== 'error') return undefined;
  const reason = params.get('reason') ?? '';
  const sentences: Record<string, string> = {
    access_denied: 'You declined on the provider’s page, so nothing was connected.',
    state: 'That sign-in expired or was finished in another browser, so nothing was connected. Start again with Connect.',
    missing_code: 'The provider sent you back without an authorization code, so nothing was connected. Start again with Connect.',
    insufficient_scope: 'Google did not grant access to Search Console: tick it on Google’s consent screen and connect again.',
    client: 'The OAuth client was removed while you were signing in. Save its ID and secret again, then connect.',
    token_endpoint: 'The provider’s token endpoint did not answer, so nothing was connected. Try again in a moment.',
    invalid_client: 'The provider does not accept the OAuth client (invalid_client): check the client ID and secret saved below.',
    incorrect_client_credentials: 'GitHub does not accept the OAuth app’s client ID and secret: check the ones saved below.',
    redirect_uri_mismatch: 'The provider does not know this redirect URI: register the one shown on the card, exactly.',
  };
  return { ok: false, message: sentences[reason] ?? `The provider refused the connection (${reason || 'no reason given'}), so nothing was connected.` };
}
