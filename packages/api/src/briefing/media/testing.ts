import { briefingSchema, type Briefing, type BriefingProject, type BriefingTrend } from '@dash/contracts';
import type { BriefingRender } from './outline.ts';

/**
 * Briefings for the media's tests: a realistic model (what GET /api/briefing answers for a founder with many
 * products), with products of long names, each with every section, trend lines and open metric alerts.
 */

/** A stranger's project name with what each medium would ping, link or format. */
export const HOSTILE_NAME = '<!channel> *bold* [x](http://evil) @everyone <b>';

export const ORIGIN = 'https://dash.example.com';

const compared = (value: number, previous: number) => ({ value, previous, weekAgo: previous, change: previous === 0 ? null : (value - previous) / previous });

const BRANDS = ['Formfox', 'Tideline', 'Quillstack', 'Harbor Notes', 'Pixelmint', 'Ledgerly', 'Orbit Tasks', 'Snapcast', 'Brightdesk', 'Mapleform', 'Northwind CRM', 'Parcelpost'];

/** A product with every section, named `name`, its figures varied by `i`. */
export function productOf(i: number, name = `${BRANDS[i % BRANDS.length] ?? 'Product'} — ${'the long-named edition for teams who ship every day, '.repeat(2)}#${i + 1}`): BriefingProject {
  const slug = `product-${i + 1}`;
  const link = (widget: string) => `/?project=${slug}#widget-${widget}`;
  const day = (hours: number) => new Date(Date.UTC(2026, 10, 25, hours)).toISOString();
  return {
    slug,
    name,
    color: i % 3 === 0 ? null : `#${(0x1a73e8 + i * 4099).toString(16).slice(-6).padStart(6, '0')}`,
    revenue: {
      currency: 'USD',
      revenue: compared(410 + i * 13, 390),
      week: compared(2_900 + i * 50, 2_700),
      netWeek: compared(2_500 + i * 40, 2_400),
      mrr: compared(12_400 + i * 100, 12_000),
      activeSubscribers: compared(310 + i, 300),
      link: link('revenue'),
    },
    shipping: {
      items: Array.from({ length: 6 }, (_, n) => ({
        title: `Release ${n + 1}: faster exports, a calmer onboarding checklist and the settings page rebuilt for small screens`,
        source: n % 2 === 0 ? 'code_host' : 'deploy_host',
        url: `https://github.com/example/${slug}/pull/${100 + n}`,
        shippedAt: day(8 + n),
      })),
      link: link('shipping'),
    },
    bugs: { opened: [{ title: 'Export button does nothing on Safari 17', priority: 2, url: null, createdAt: day(9) }], closed: 3, link: link('ideas') },
    reviews: {
      items: [1, 3, 5, 4].map((rating, n) => ({ rating, title: `Review ${n + 1}: ${rating < 3 ? 'crashes every time I open a shared form on my iPad' : 'does exactly what it says, and the widgets are lovely'}`, territory: 'DE', createdAt: day(10 + n) })),
      link: link('storefront'),
    },
    traffic: {
      visitors: compared(1_800 + i * 20, 1_650),
      referrers: [
        { source: 'news.ycombinator.com', visitors: 420, new: true },
        { source: 'google.com', visitors: 380, new: false },
      ],
      link: link('analytics'),
    },
    search: { queries: [{ query: 'form builder for teams', clicks: 42, new: true }], link: link('seo') },
    errors: {
      new: [{ title: "TypeError: Cannot read properties of undefined (reading 'id')", level: 'error', userCount: 6, count: 31, url: null }],
      active: 2,
      usersAffected: 9,
      events: compared(58, 20),
      link: link('errors'),
    },
    uptime: {
      incidents: [{ title: 'api.example.com', startedAt: day(3), resolvedAt: day(4), durationMinutes: 45, open: false, link: '/?notification=n_7' }],
      down: [],
      link: link('health'),
    },
    funding: i === 0 ? { currency: 'USD', received: 250, contributions: 4, link: link('funding') } : null,
  };
}

/** The history's trend lines of a product (being added to the model; the media read them when present). */
export function trendOf(i: number): BriefingTrend[] {
  return [
    { metric: 'revenue.mrr', label: 'MRR', value: 12_400 + i * 100, previous: 12_000, change: (400 + i * 100) / 12_000, unit: 'money', currency: 'USD', spark: [11_900, 12_000, 12_050, 12_100, 12_200, 12_300, 12_400 + i * 100] },
    { metric: 'analytics.visitors', label: 'Visitors', value: 1_800, previous: 1_650, change: 150 / 1_650, unit: 'count', spark: [200, 240, 260, 230, 280, 300, 290] },
    { metric: 'uptime.up_ratio', label: 'Uptime', value: 95, previous: 100, change: -0.05, unit: 'percent' },
  ];
}

/** A briefing of `count` products (long names unless `names` says), with needs-you lines, a failed source, the history's trend lines and open metric alerts. */
export function briefingOf(count: number, names: readonly string[] = []): Briefing {
  const projects = Array.from({ length: count }, (_, i) => ({ ...productOf(i, names[i]), trend: trendOf(i) }));
  return briefingSchema.parse({
    window: { since: '2026-11-25T07:00:00.000Z', until: '2026-11-26T07:00:00.000Z' },
    days: { current: ['2026-11-25'], previous: ['2026-11-24'], weekAgo: ['2026-11-18'] },
    generatedAt: '2026-11-26T07:00:05.000Z',
    needsYou: [
      { rule: 'low_ratings', project: 'product-1', section: 'reviews', severity: 'error', text: 'One 1-star review', value: 1, threshold: 1, link: '/?project=product-1#widget-storefront' },
      { rule: 'new_errors', project: 'product-2', section: 'errors', severity: 'warning', text: '3 new error issues, 6 users affected', value: 3, threshold: 3, link: '/?project=product-2#widget-errors' },
    ],
    quiet: null,
    projects,
    failed: [{ project: 'product-3', section: 'search', error: 'Search Console answered 403' }],
    unread: true,
    metricAlerts: [
      { project: 'product-1', title: 'MRR below $12,000 for 3 days now: $11,900', since: '2026-11-23T00:00:00.000Z', link: '/?notification=n_41' },
      { project: 'product-4', title: 'Visitors 45 % below the same weekday last week', since: '2026-11-25T00:00:00.000Z', link: '/?notification=n_42' },
    ],
  });
}

/**
 * A briefing of `count` long-named products with little to say each (revenue, one thing shipped, one review, the MRR
 * trend): the number of blocks or embeds is what a medium runs out of first, not characters.
 */
export function leanBriefingOf(count: number): Briefing {
  const briefing = briefingOf(count);
  for (const project of briefing.projects) {
    Object.assign(project, { bugs: null, traffic: null, search: null, errors: null, uptime: null, funding: null });
    project.shipping?.items.splice(1);
    project.reviews?.items.splice(1);
    project.trend?.splice(1);
  }
  return briefing;
}

/** A briefing whose strangers' text (a project's name, a needs-you line, shipped, reviews, errors, a metric alert) is hostile. */
export function hostileBriefing(): Briefing {
  const briefing = briefingOf(2, [HOSTILE_NAME]);
  const [first] = briefing.projects;
  if (first?.shipping && first.reviews && first.errors && first.traffic && first.search) {
    first.shipping.items = [{ title: HOSTILE_NAME, source: HOSTILE_NAME, url: 'javascript:alert(1)', shippedAt: '2026-11-25T09:00:00.000Z' }];
    first.reviews.items = [{ rating: 1, title: HOSTILE_NAME, territory: 'DE', createdAt: '2026-11-25T10:00:00.000Z' }];
    first.errors.new = [{ title: HOSTILE_NAME, level: 'error', userCount: 1, count: 1, url: null }];
    first.traffic.referrers = [{ source: HOSTILE_NAME, visitors: 5, new: true }];
    first.search.queries = [{ query: HOSTILE_NAME, clicks: 1, new: true }];
  }
  briefing.needsYou = [{ rule: 'low_ratings', project: 'product-1', section: 'reviews', severity: 'error', text: `One 1-star review: ${HOSTILE_NAME}`, value: 1, threshold: 1, link: '/?project=product-1#widget-storefront' }];
  briefing.metricAlerts = [{ project: 'product-1', title: HOSTILE_NAME, since: '2026-11-23T00:00:00.000Z', link: '/?notification=n_41' }];
  return briefing;
}

/** What a destination that gets everything renders from. */
export function renderOf(briefing: Briefing, overrides: Partial<BriefingRender> = {}): BriefingRender {
  return { briefing, parts: ['needs_you', 'figures', 'shipped', 'reviews', 'metric_alerts'], period: 'day', origin: ORIGIN, ...overrides };
}
