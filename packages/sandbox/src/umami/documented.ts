/**
 * Umami's own example answers, copied from its API documentation (Umami publishes no machine-readable
 * description of the API). The fake reproduces their shape and the connector is tested against them
 * as printed. The docs write self-hosted paths (`/api/websites`); Umami Cloud serves the same under
 * `https://api.umami.is/v1` (`/v1/websites`). JSON is kept as the pages print it; only whitespace differs.
 *
 * The text was read from the pages' source, umami-software/website `src/content/docs/api/*.mdx`: the
 * current docs at aa1f0a4 (the last commit before the docs left that repository), the Umami v2 docs
 * (now at v2.umami.is) at f0aa333 and, for `{ "x": 5 }`, at 3de2f39.
 */
import type { DocumentedExample } from '../documented.ts';

const current = 'https://umami.is/docs/api';
const v2 = 'https://v2.umami.is/docs/api';

export const umamiDocumented = {
  /** The rendered page shows Cloudflare's "[email protected]" where its source has the address. */
  websites: {
    endpoint: 'GET /api/websites',
    url: `${current}/websites`,
    source: 'websites-api.mdx at aa1f0a4',
    status: 200,
    body: JSON.parse(String.raw`{
      "data": [
        {
          "id": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
          "name": "Example",
          "domain": "example.com",
          "shareId": null,
          "resetAt": null,
          "userId": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
          "teamId": null,
          "createdBy": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
          "createdAt": "0000-00-00T00:00:00.000Z",
          "updatedAt": "0000-00-00T00:00:00.000Z",
          "deletedAt": null,
          "user": {
            "username": "bob@aol.com",
            "id": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
          }
        }
      ],
      "count": 1,
      "page": 1,
      "pageSize": 10
    }`) as unknown,
  },

  stats: {
    endpoint: 'GET /api/websites/:websiteId/stats',
    url: `${current}/website-stats`,
    source: 'website-stats-api.mdx at aa1f0a4',
    status: 200,
    body: JSON.parse(String.raw`{
      "pageviews": 15171,
      "visitors": 4415,
      "visits": 5680,
      "bounces": 3567,
      "totaltime": 809968,
      "comparison": {
        "pageviews": 38675,
        "visitors": 10568,
        "visits": 14595,
        "bounces": 9364,
        "totaltime": 2182387
      }
    }`) as unknown,
  },

  /** Umami Cloud's note of the 2025-10-07 change to the stats answer. */
  cloudStats: {
    endpoint: 'GET /websites/[id]/stats',
    url: 'https://umami.is/docs/cloud/api-changelog',
    source: 'cloud/api-changelog.mdx at aa1f0a4',
    status: 200,
    body: JSON.parse(String.raw`{
      "pageviews": 34210,
      "visitors": 9401,
      "visits": 12726,
      "bounces": 7918,
      "totaltime": 5214477,
      "comparison": {
        "pageviews": 30818,
        "visitors": 8776,
        "visits": 11756,
        "bounces": 7396,
        "totaltime": 1704355
      }
    }`) as unknown,
  },

  /** The sample is of type `os`; every type answers rows of the same shape. */
  metrics: {
    endpoint: 'GET /api/websites/:websiteId/metrics',
    url: `${current}/website-stats`,
    source: 'website-stats-api.mdx at aa1f0a4',
    status: 200,
    body: JSON.parse(String.raw`[
      { "x": "Mac OS", "y": 1918 },
      { "x": "Windows 10", "y": 1413 },
      { "x": "iOS", "y": 464 },
      { "x": "Android OS", "y": 301 },
      { "x": "Linux", "y": 296 },
      { "x": "Windows 7", "y": 29 },
      { "x": "Chrome OS", "y": 12 }
    ]`) as unknown,
  },

  metricsExpanded: {
    endpoint: 'GET /api/websites/:websiteId/metrics/expanded',
    url: `${current}/website-stats`,
    source: 'website-stats-api.mdx at aa1f0a4',
    status: 200,
    body: JSON.parse(String.raw`[
      { "name": "Mac OS", "pageviews": 74020, "visitors": 16982, "visits": 24770, "bounces": 15033, "totaltime": 149156302 },
      { "name": "Windows 10", "pageviews": 52252, "visitors": 12858, "visits": 20089, "bounces": 12720, "totaltime": 137208105 },
      { "name": "iOS", "pageviews": 10029, "visitors": 4364, "visits": 5139, "bounces": 3578, "totaltime": 23482267 },
      { "name": "Android OS", "pageviews": 8147, "visitors": 3122, "visits": 3854, "bounces": 2610, "totaltime": 20347972 },
      { "name": "Linux", "pageviews": 12462, "visitors": 3000, "visits": 4278, "bounces": 2630, "totaltime": 26331069 }
    ]`) as unknown,
  },

  pageviews: {
    endpoint: 'GET /api/websites/:websiteId/pageviews',
    url: `${current}/website-stats`,
    source: 'website-stats-api.mdx at aa1f0a4',
    status: 200,
    body: JSON.parse(String.raw`{
      "pageviews": [
        { "x": "2025-10-19T07:00:00Z", "y": 4129 },
        { "x": "2025-10-20T07:00:00Z", "y": 6105 },
        { "x": "2025-10-21T07:00:00Z", "y": 4936 }
      ],
      "sessions": [
        { "x": "2025-10-19T07:00:00Z", "y": 1397 },
        { "x": "2025-10-20T07:00:00Z", "y": 1880 },
        { "x": "2025-10-21T07:00:00Z", "y": 1469 }
      ]
    }`) as unknown,
  },

  active: {
    endpoint: 'GET /api/websites/:websiteId/active',
    url: `${current}/website-stats`,
    source: 'website-stats-api.mdx at aa1f0a4',
    status: 200,
    body: JSON.parse(String.raw`{
      "visitors": 5
    }`) as unknown,
  },

  v2Stats: {
    endpoint: 'GET /api/websites/:websiteId/stats',
    url: `${v2}/website-stats-api`,
    source: 'website-stats-api.mdx at f0aa333',
    status: 200,
    body: JSON.parse(String.raw`{
      "pageviews": { "value": 3018, "prev": 3508 },
      "visitors": { "value": 847, "prev": 910 },
      "visits": { "value": 984, "prev": 1080 },
      "bounces": { "value": 537, "prev": 628 },
      "totaltime": { "value": 150492, "prev": 164713 }
    }`) as unknown,
  },

  /** Metric type `url` (v2's page type). */
  v2Metrics: {
    endpoint: 'GET /api/websites/:websiteId/metrics',
    url: `${v2}/website-stats-api`,
    source: 'website-stats-api.mdx at f0aa333',
    status: 200,
    body: JSON.parse(String.raw`[
      { "x": "/", "y": 46 },
      { "x": "/docs", "y": 17 },
      { "x": "/download", "y": 14 }
    ]`) as unknown,
  },

  v2Pageviews: {
    endpoint: 'GET /api/websites/:websiteId/pageviews',
    url: `${v2}/website-stats-api`,
    source: 'website-stats-api.mdx at f0aa333',
    status: 200,
    body: JSON.parse(String.raw`{
      "pageviews": [
        { "x": "2020-04-20 01:00:00", "y": 3 },
        { "x": "2020-04-20 02:00:00", "y": 7 }
      ],
      "sessions": [
        { "x": "2020-04-20 01:00:00", "y": 2 },
        { "x": "2020-04-20 02:00:00", "y": 4 }
      ]
    }`) as unknown,
  },

  /** The v2 docs printed `{ "x": 5 }` until June 2025, then `{ "visitors": 5 }` as the current docs do. */
  v2Active: {
    endpoint: 'GET /api/websites/:websiteId/active',
    url: 'https://umami.is/docs/api/website-stats-api',
    source: 'website-stats-api.mdx at 3de2f39',
    status: 200,
    body: JSON.parse(String.raw`{
      "x": 5
    }`) as unknown,
  },
} satisfies Record<string, DocumentedExample>;
