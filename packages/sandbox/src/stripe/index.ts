import { sandboxTokens } from '../demo.ts';
import type { SandboxReply, SandboxRequest, SandboxService } from '../service.ts';
import { buildAccount } from './account.ts';
import { invalid, keyOf, list, maskStripeKey, requestIdOf, stripeError } from './protocol.ts';

/** The fake Stripe's routes, its key check and rate limit; the seeded account is in account.ts. */

const API_VERSION = '2025-03-31.basil';

/**
 * Stripe (`/v1/balance`, `/v1/balance_transactions`, `/v1/charges`, `/v1/subscriptions`) for Formfox, the
 * demo's form builder, in the key's own account. Amounts are integer cents, lists newest first.
 */
export function stripeService(now: number): SandboxService {
  const data = buildAccount(now);
  const key = sandboxTokens.stripe;

  /** Echoes the pinned version like Stripe does, and refuses an account the key cannot act for. */
  const guarded =
    (handle: (request: SandboxRequest) => SandboxReply) =>
    (request: SandboxRequest): SandboxReply => {
      const version = request.headers['stripe-version'];
      const headers = { 'Request-Id': requestIdOf(request), 'Stripe-Version': typeof version === 'string' ? version : API_VERSION };
      const onBehalf = request.headers['stripe-account'];
      if (typeof onBehalf === 'string' && onBehalf !== data.account) {
        return {
          headers,
          ...stripeError(403, {
            code: 'account_invalid',
            doc_url: 'https://stripe.com/docs/error-codes/account-invalid',
            message: `The provided key '${maskStripeKey(key)}' does not have access to account '${onBehalf}' (or that account does not exist). Application access may have been revoked.`,
            type: 'invalid_request_error',
          }),
        };
      }
      const reply = handle(request);
      return { ...reply, headers: { ...headers, ...reply.headers } };
    };

  return {
    name: 'stripe',
    basePath: '/v1',
    authorize: (request) => keyOf(request) === key,
    unauthorized: (request) => {
      const given = keyOf(request);
      return stripeError(401, {
        message: given
          ? `Invalid API Key provided: ${maskStripeKey(given)}`
          : "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        type: 'invalid_request_error',
      });
    },
    // Test mode allows 25 operations a second. Stripe sends no rate-limit headers and no Retry-After.
    rateLimit: {
      limit: 25,
      windowMs: 1_000,
      tooMany: () =>
        stripeError(429, {
          code: 'rate_limit',
          doc_url: 'https://stripe.com/docs/error-codes/rate-limit',
          message: 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.',
          type: 'invalid_request_error',
        }),
    },
    routes: [
      {
        method: 'GET',
        path: '/balance',
        handle: guarded(() => ({
          body: {
            object: 'balance',
            available: [{ amount: data.available, currency: 'usd', source_types: { card: data.available } }],
            connect_reserved: [{ amount: 0, currency: 'usd' }],
            livemode: false,
            pending: [{ amount: data.pending, currency: 'usd', source_types: { card: data.pending } }],
          },
        })),
      },
      {
        method: 'GET',
        path: '/balance_transactions',
        handle: guarded((request) => {
          const type = request.query.get('type');
          const items = type ? data.transactions.filter((t) => t.type === type) : data.transactions;
          return list(request, '/v1/balance_transactions', items, 'balance transaction');
        }),
      },
      {
        method: 'GET',
        path: '/charges',
        handle: guarded((request) => {
          const customer = request.query.get('customer');
          const items = customer ? data.charges.filter((c) => c.customer === customer) : data.charges;
          return list(request, '/v1/charges', items, 'charge');
        }),
      },
      {
        method: 'GET',
        path: '/subscriptions',
        handle: guarded((request) => {
          const status = request.query.get('status');
          const known = ['active', 'past_due', 'unpaid', 'canceled', 'incomplete', 'incomplete_expired', 'trialing', 'paused', 'all', 'ended'];
          if (status !== null && !known.includes(status)) {
            return invalid(request, `Invalid status: must be one of ${known.join(', ')}`, { param: 'status' });
          }
          const items = data.subscriptions.filter((s) =>
            status === null ? s.status !== 'canceled' : status === 'all' ? true : status === 'ended' ? s.status === 'canceled' : s.status === status,
          );
          return list(request, '/v1/subscriptions', items, 'subscription');
        }),
      },
    ],
  };
}
