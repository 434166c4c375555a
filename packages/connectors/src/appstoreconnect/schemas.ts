import { z } from 'zod';

/**
 * App Store Connect speaks JSON:API: `{ data, links, meta }`, fields under `attributes`, the next
 * page's full URL in `links.next`. Dates carry Cupertino's offset (`2026-04-30T09:28:28-07:00`).
 * Apple's description requires only a resource's `type` and `id`: every attribute, and `attributes`
 * itself, may be absent, and map.ts decides what a record without them is worth.
 */
const links = z.object({ self: z.string().optional(), next: z.string().optional() }).loose();
const meta = z.object({ paging: z.object({ total: z.number().int().optional(), limit: z.number().int() }).loose().optional() }).loose();
const appleDate = z.iso.datetime({ offset: true });

/** `GET /v1/apps/{id}?fields[apps]=name,bundleId`. */
export const appDocument = z
  .object({
    data: z.object({ type: z.literal('apps'), id: z.string(), attributes: z.object({ name: z.string().optional(), bundleId: z.string().optional() }).loose().optional() }).loose(),
  })
  .loose();

/** `GET /v1/apps?limit=1&fields[apps]=name`: only read to know the key works. */
export const appList = z
  .object({
    data: z.array(z.object({ type: z.literal('apps'), id: z.string() }).loose()),
    links,
    meta: meta.optional(),
  })
  .loose();

export const customerReview = z
  .object({
    type: z.literal('customerReviews'),
    id: z.string(),
    attributes: z
      .object({
        rating: z.number().int().min(1).max(5).optional(),
        // A review may have a rating alone; Apple leaves the words out then.
        title: z.string().nullish(),
        body: z.string().nullish(),
        reviewerNickname: z.string().nullish(),
        createdDate: appleDate.optional(),
        territory: z.string().optional(),
      })
      .loose()
      .optional(),
  })
  .loose();
export type CustomerReview = z.infer<typeof customerReview>;

export const reviewList = z.object({ data: z.array(customerReview), links, meta: meta.optional() }).loose();

/**
 * `appVersionState` (API 3.3+) replaces the deprecated `appStoreState`; an answer may carry either or
 * both, so both are read.
 */
export const appStoreVersion = z
  .object({
    type: z.literal('appStoreVersions'),
    id: z.string(),
    attributes: z
      .object({
        versionString: z.string().optional(),
        appVersionState: z.string().nullish(),
        appStoreState: z.string().nullish(),
        platform: z.string().nullish(),
        createdDate: appleDate.optional(),
      })
      .loose()
      .optional(),
  })
  .loose();
export type AppStoreVersion = z.infer<typeof appStoreVersion>;

export const versionList = z.object({ data: z.array(appStoreVersion), links, meta: meta.optional() }).loose();

/** `{"errors":[{"status":"401","code":"NOT_AUTHORIZED","title":"…","detail":"…"}]}`. */
export const errorBody = z.object({
  errors: z.array(z.object({ status: z.string().optional(), code: z.string().optional(), title: z.string(), detail: z.string().nullish() }).loose()).min(1),
});
