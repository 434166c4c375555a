import type { z } from 'zod';
import type { DataResult } from '@dash/contracts';
import { none, query, textSchema, type Answer, type RestRoute } from '../route.ts';

/** The data routes (each upstream's numbers, cached, with the cache's state as headers) and the backup that refreshes them. */

/** Header values are ASCII; an upstream's reason may not be. */
const headerText = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 300);

/**
 * A data procedure answers `{ data, meta }`: the body is SPEC.md's JSON (`data`), the freshness goes
 * in headers: `X-Cache: HIT|MISS|STALE`, when it was fetched, why it is stale, and any conversion.
 */
function dataResponse(output: unknown) {
  const { data, meta } = output as DataResult<unknown>;
  const headers: Record<string, string> = {};
  if (meta) {
    headers['x-cache'] = meta.cache;
    headers['x-cache-fetched-at'] = meta.fetchedAt;
    if (meta.staleReason) headers['x-cache-stale-reason'] = headerText(meta.staleReason);
    if (meta.failed) headers['x-upstream-failures'] = headerText(meta.failed.map((failure) => failure.error).join(' | '));
    if (meta.conversion) {
      const { from, to, rate } = meta.conversion;
      headers['x-currency-conversion'] = `${from}->${to} at ${rate} (exchangeRates in settings)`;
    }
  }
  return { body: data, headers };
}

/** The data routes' answer: `data` as the body, `meta` as the x-cache headers (none when not configured). */
const dataAnswer: Answer = {
  respond: dataResponse,
  body: (output) => (output as z.ZodObject<{ data: z.ZodType }>).shape.data,
  description:
    'The data, or `{ configured: false, integration, message }` when the integration is not set up for the project (or for any): ' +
    'that is an answer, not an error, and it comes without the cache headers.',
  headers: {
    'x-cache': { description: 'HIT (from the cache), MISS (fetched now) or STALE (the upstream failed; the last good answer).', schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE'] } },
    'x-cache-fetched-at': { description: 'When the oldest part of the answer was fetched from the upstream (ISO 8601).', schema: { type: 'string', format: 'date-time' } },
    'x-cache-stale-reason': { description: 'With STALE: why the answer could not be refreshed (the upstream\'s error, without secrets).', schema: textSchema },
    'x-upstream-failures': { description: 'Projects left out of an all-projects answer because their upstream failed and nothing was cached.', schema: textSchema },
    'x-currency-conversion': { description: 'Set when amounts were converted with the exchange rates in settings: `USD->CAD at 1.38 (exchangeRates in settings)`.', schema: textSchema },
  },
};

export const backupRoutes: readonly RestRoute[] = [
  // POST takes BACKUP_SECRET as its bearer (checked before dispatch, with the other guards); GET the usual sign-in.
  {
    method: 'POST',
    path: '/api/backup',
    procedure: 'backup.run',
    input: none,
    access: 'backup',
    errors: [409],
    summary: "Refresh every project's cache now and answer the result (a cron's trigger)",
    description: 'Takes BACKUP_SECRET as its bearer and nothing else; without BACKUP_SECRET set the route is off (503). 409 while another process backs up.',
  },
  { method: 'GET', path: '/api/backup', procedure: 'backup.status', input: none, summary: 'What backup runs, what ran last, and the schedule' },
];

export const dataRoutes: readonly RestRoute[] = [
  { method: 'GET', path: '/api/revenue', procedure: 'data.revenue', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Revenue: gross, MRR, net, subscribers and a daily chart' },
  { method: 'GET', path: '/api/ideas', procedure: 'data.ideas', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Ideas and bugs from the issue tracker' },
  {
    method: 'GET',
    path: '/api/shipping',
    procedure: 'data.shipping',
    input: query,
    answer: dataAnswer,
    errors: [404, 502],
    summary: 'Shipped work: merged pull requests, completed issues, production deploys',
  },
  { method: 'GET', path: '/api/errortracker', procedure: 'data.errortracker', input: query, answer: dataAnswer, errors: [404, 502], summary: "The error tracker's open issues" },
  { method: 'GET', path: '/api/health', procedure: 'data.health', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Uptime monitors and incidents' },
  { method: 'GET', path: '/api/storefront', procedure: 'data.storefront', input: query, answer: dataAnswer, errors: [404, 502], summary: 'The app store: app, reviews and versions' },
  { method: 'GET', path: '/api/analytics', procedure: 'data.analytics', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Web analytics: visitors, pages, referrers' },
  { method: 'GET', path: '/api/seo', procedure: 'data.seo', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Search analytics: queries and totals' },
  { method: 'GET', path: '/api/funding', procedure: 'data.funding', input: query, answer: dataAnswer, errors: [404, 502], summary: 'Funding: balance, transactions and members' },
];
