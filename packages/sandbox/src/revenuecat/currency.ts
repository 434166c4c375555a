import type { SandboxReply, SandboxRequest } from '../service.ts';
import { parameterError } from './replies.ts';

/** The currencies RevenueCat's `currency` parameter accepts, and what a dollar is worth in each. */

/**
 * What one unit of USD is worth in the currencies RevenueCat's `currency` parameter accepts. RevenueCat
 * converts for us; the fake does the same with fixed rates so the demo tells one story in any currency.
 */
export const usdRates: Record<string, number> = {
  USD: 1,
  EUR: 0.92,
  GBP: 0.79,
  AUD: 1.52,
  CAD: 1.37,
  JPY: 151,
  BRL: 5.05,
  KRW: 1370,
  CNY: 7.2,
  MXN: 17.1,
  SEK: 10.5,
  PLN: 3.95,
  NZD: 1.65,
  CHF: 0.88,
};

export function currencyOf(request: SandboxRequest): string | SandboxReply {
  const currency = request.query.get('currency') ?? 'USD';
  if (usdRates[currency] === undefined) {
    return parameterError('currency', `currency must be one of ${Object.keys(usdRates).join(', ')}`);
  }
  return currency;
}
