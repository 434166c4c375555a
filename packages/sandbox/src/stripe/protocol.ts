import { hexId } from '../demo.ts';
import type { SandboxReply, SandboxRequest } from '../service.ts';

/**
 * How Stripe's API speaks, whatever it lists: the key a request carries and how a rejected one is masked, its
 * error envelope and request ids, and a page of a list with its cursors and `created` filters.
 */

export const seconds = (ms: number) => Math.floor(ms / 1000);

/** An item of Stripe's list envelope: its id and when it was created (seconds). */
export interface Listed {
  id: string;
  created: number;
}

/**
 * Stripe masks a key it rejects: the `sk_test_` prefix and the last four characters stay, the rest
 * become asterisks.
 */
export function maskStripeKey(key: string): string {
  const prefix = /^(?:sk|rk|pk)_(?:test|live)_/.exec(key)?.[0] ?? '';
  const rest = key.slice(prefix.length);
  if (rest.length <= 4) return prefix + '*'.repeat(rest.length);
  return prefix + '*'.repeat(rest.length - 4) + rest.slice(-4);
}

export function keyOf(request: SandboxRequest): string | undefined {
  const header = request.headers.authorization ?? '';
  const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1];
  if (bearer) return bearer.trim();
  const basic = /^Basic\s+(.+)$/i.exec(header)?.[1];
  if (basic) return Buffer.from(basic, 'base64').toString('utf8').split(':')[0] || undefined;
  return undefined;
}

export function stripeError(status: number, error: Record<string, unknown>): SandboxReply {
  return { status, body: { error } };
}

/** Stripe's id for a request, sent back as Request-Id and named in an error's dashboard link. */
export const requestIdOf = (request: SandboxRequest) => `req_${hexId(`${request.path}${request.query.toString()}`, 14)}`;

export const invalid = (request: SandboxRequest, message: string, extra: Record<string, unknown> = {}) =>
  stripeError(400, { ...extra, message, request_log_url: `https://dashboard.stripe.com/test/logs/${requestIdOf(request)}?t=${seconds(request.now)}`, type: 'invalid_request_error' });

/** A page of a Stripe list: newest first, `limit` 1–100, `starting_after`/`ending_before` cursors, `created[gte]` filters. */
export function list<T extends Listed>(request: SandboxRequest, url: string, items: T[], noun: string): SandboxReply {
  const q = request.query;
  const rawLimit = q.get('limit');
  const limit = rawLimit === null ? 10 : Number(rawLimit);
  if (!Number.isInteger(limit)) return invalid(request, `Invalid integer: ${rawLimit}`, { code: 'parameter_invalid_integer', param: 'limit' });
  if (limit < 1 || limit > 100) {
    return invalid(request, `This value must be ${limit < 1 ? 'greater than or equal to 1' : 'less than or equal to 100'}.`, { param: 'limit' });
  }
  let matching = items;
  for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
    const raw = q.get(`created[${op}]`);
    if (raw === null) continue;
    const bound = Number(raw);
    if (!Number.isInteger(bound)) return invalid(request, `Invalid integer: ${raw}`, { code: 'parameter_invalid_integer', param: `created[${op}]` });
    matching = matching.filter((item) =>
      op === 'gt' ? item.created > bound : op === 'gte' ? item.created >= bound : op === 'lt' ? item.created < bound : item.created <= bound,
    );
  }
  const exact = q.get('created');
  if (exact !== null) matching = matching.filter((item) => item.created === Number(exact));

  const after = q.get('starting_after');
  const before = q.get('ending_before');
  let page: T[];
  let hasMore: boolean;
  if (after !== null) {
    const index = matching.findIndex((item) => item.id === after);
    if (index === -1 && !items.some((item) => item.id === after)) {
      return invalid(request, `No such ${noun}: '${after}'`, { code: 'resource_missing', param: 'starting_after' });
    }
    page = matching.slice(index + 1, index + 1 + limit);
    hasMore = index + 1 + limit < matching.length;
  } else if (before !== null) {
    const index = matching.findIndex((item) => item.id === before);
    if (index === -1) return invalid(request, `No such ${noun}: '${before}'`, { code: 'resource_missing', param: 'ending_before' });
    page = matching.slice(Math.max(0, index - limit), index);
    hasMore = index - limit > 0;
  } else {
    page = matching.slice(0, limit);
    hasMore = limit < matching.length;
  }
  return { body: { object: 'list', data: page, has_more: hasMore, url } };
}
