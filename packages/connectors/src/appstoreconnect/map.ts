import type { Storefront } from '@dash/contracts';
import type { AppStoreVersion, CustomerReview } from './schemas.ts';

type Review = Storefront['reviews'][number];
type Version = Storefront['versions'][number];

/** Apple's dates carry a local offset; the dashboard's are UTC, so that they sort as strings. */
const utc = (date: string) => new Date(date).toISOString();

/**
 * A review as the widget lists it; undefined without a rating or a date, which Apple's description
 * does not promise: stars and "when" are what a review is, and neither is made up.
 */
export function toReview(review: CustomerReview): Review | undefined {
  const { rating, createdDate, title, body, reviewerNickname, territory } = review.attributes ?? {};
  if (rating === undefined || createdDate === undefined) return undefined;
  return { rating, title: title ?? '', body: body ?? '', reviewerNickname: reviewerNickname ?? '', territory: territory ?? '', createdAt: utc(createdDate) };
}

/**
 * A version's state as Apple names it today (`READY_FOR_DISTRIBUTION`), or the deprecated
 * `appStoreState` (`READY_FOR_SALE`) when that is all the answer has.
 */
export function stateOf(version: AppStoreVersion): string {
  return version.attributes?.appVersionState ?? version.attributes?.appStoreState ?? 'UNKNOWN';
}

/** A version as the widget lists it; undefined without its version string or its date (the list is the newest ones). */
export function toVersion(version: AppStoreVersion): Version | undefined {
  const { versionString, createdDate } = version.attributes ?? {};
  if (versionString === undefined || createdDate === undefined) return undefined;
  return { version: versionString, state: stateOf(version), createdAt: utc(createdDate) };
}

/** What is not undefined: the records a mapper kept. */
export const kept = <T>(items: readonly (T | undefined)[]): T[] => items.filter((item): item is T => item !== undefined);

export const newestFirst = <T extends { createdAt: string }>(items: T[]): T[] => [...items].sort((a, b) => b.createdAt.localeCompare(a.createdAt));

/** Apple's error list, one sentence per error: "Authentication credentials are missing or invalid. Provide…". */
export function reasonOf(errors: { title: string; detail?: string | null | undefined }[]): string {
  return errors
    .map(({ title, detail }) => (detail ? `${/[.!?]$/.test(title) ? title : `${title}.`} ${detail}` : title))
    .join('; ');
}

/** `X-Rate-Limit: user-hour-lim:3500;user-hour-rem:0;`: the requests left in the rolling hour. */
export function hourRemaining(header: string | null): number | undefined {
  const match = /user-hour-rem:(\d+)/.exec(header ?? '');
  return match ? Number(match[1]) : undefined;
}
