import { describe, expect, it } from 'vitest';
import { briefingSchema, type Briefing, type BriefingProject } from '@dash/contracts';
import { briefingEmail } from './email.ts';

// The briefing email for mail clients: every value escaped (names, titles and reviews come from people and
// upstreams), links absolute and http(s) only, needs-you first, a quiet day in one line, failed sources named, and a
// plain-text part that reads as text.

const hostile = `<script>alert("x")</script> & 'quotes' "double"`;

const empty = (slug: string, name: string): BriefingProject => ({
  slug,
  name,
  color: null,
  revenue: null,
  shipping: null,
  bugs: null,
  reviews: null,
  traffic: null,
  search: null,
  errors: null,
  uptime: null,
  funding: null,
});

function briefing(overrides: Partial<Briefing> = {}): Briefing {
  return briefingSchema.parse({
    window: { since: '2026-11-25T07:00:00.000Z', until: '2026-11-26T07:00:00.000Z' },
    days: { current: ['2026-11-25'], previous: ['2026-11-24'], weekAgo: ['2026-11-18'] },
    generatedAt: '2026-11-26T07:00:00.000Z',
    needsYou: [],
    quiet: 'A quiet day: nothing needs you across all 2 projects.',
    projects: [empty('formfox', 'Formfox'), empty('tideline', 'Tideline')],
    failed: [],
    unread: true,
    ...overrides,
  });
}

const options = { origin: 'https://dash.example.com', timezone: 'Europe/Berlin' };

describe('the briefing email', () => {
  it('escapes a hostile project name, review title and shipped title in the HTML, and keeps them readable in the text', () => {
    const project: BriefingProject = {
      ...empty('evil', hostile),
      shipping: { items: [{ title: hostile, source: 'code_host', url: 'javascript:alert(1)', shippedAt: '2026-11-25T10:00:00.000Z' }], link: '/?project=evil#widget-shipping' },
      reviews: { items: [{ rating: 1, title: hostile, territory: 'DE', createdAt: '2026-11-25T11:00:00.000Z' }], link: '/?project=evil#widget-storefront' },
    };
    const email = briefingEmail(
      briefing({
        quiet: null,
        needsYou: [
          { rule: 'low_ratings', project: 'evil', section: 'reviews', severity: 'error', text: `One 1-star review: ${hostile}`, value: 1, threshold: 1, link: '/?project=evil&x=1#widget-storefront' },
        ],
        projects: [project],
        failed: [{ project: 'evil', section: 'errors', error: hostile }],
      }),
      options,
    );
    expect(email.html).not.toContain('<script');
    expect(email.html).not.toContain('alert("x")');
    expect(email.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39; &quot;double&quot;');
    // A javascript: URL is never a link; the dashboard's links are absolute and escaped in the attribute.
    expect(email.html).not.toMatch(/href="javascript:/i);
    expect(email.html).toContain('href="https://dash.example.com/?project=evil&amp;x=1#widget-storefront"');
    // The text part says it as it is, not as entities.
    expect(email.text).toContain(`Evil: One 1-star review: ${hostile}`.replace('Evil', hostile));
    expect(email.text).toContain(`★☆☆☆☆ ${hostile} (DE)`);
    expect(email.text).not.toContain('&lt;');
    expect(email.text).toContain('<https://dash.example.com/?project=evil&x=1#widget-storefront>');
    expect(email.subject).toBe('Briefing for Thu 26 Nov: 1 thing needs you');
  });

  it('puts what needs you first, then what could not be read, then each project', () => {
    const email = briefingEmail(
      briefing({
        quiet: null,
        needsYou: [{ rule: 'long_outage', project: 'formfox', section: 'uptime', severity: 'error', text: 'API: down for 3 h', value: 180, threshold: 30, link: '/?notification=n1' }],
        failed: [{ project: 'tideline', section: 'errors', error: 'Sentry answered 401' }],
      }),
      options,
    );
    const inOrder = (body: string, parts: string[]) => {
      const positions = parts.map((part) => body.indexOf(part));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    };
    inOrder(email.html, ['>Needs you<', 'API: down for 3 h', '>Could not be read<', 'Tideline · errors: Sentry answered 401', '>Formfox</td>', '>Tideline</td>']);
    inOrder(email.text, ['NEEDS YOU', '- Formfox: API: down for 3 h', 'COULD NOT BE READ', '- Tideline · errors: Sentry answered 401', '\nFORMFOX\n', '\nTIDELINE\n']);
    expect(email.html).toContain('href="https://dash.example.com/?notification=n1"');
    // "Change when it comes" opens the page with the schedule, not the first page of Settings.
    expect(email.html).toContain('href="https://dash.example.com/settings/briefing"');
    expect(email.text).toContain('Change when it comes: https://dash.example.com/settings/briefing');
  });

  it('says a quiet day in one line, and lays out for mail clients: tables and inline styles, no style sheet or script', () => {
    const email = briefingEmail(briefing(), options);
    expect(email.subject).toBe('Briefing for Thu 26 Nov: a quiet day');
    expect(email.text.split('\n').filter((line) => line.includes('quiet day'))).toEqual(['A quiet day: nothing needs you across all 2 projects.']);
    expect(email.html).toContain('<table role="presentation"');
    expect(email.html).not.toMatch(/<style|<script|class=/i);
    // The window is read in the schedule's zone: 08:00 in Berlin.
    expect(email.text).toContain('Wed 25 Nov, 08:00 – Thu 26 Nov, 08:00 (Europe/Berlin)');
    expect(email.text).toContain('Open it on the dashboard: https://dash.example.com/briefing');
  });

  it('leaves links out when the dashboard does not know its address, rather than relative links a mail client cannot open', () => {
    const email = briefingEmail(briefing(), { origin: undefined, timezone: 'UTC' });
    expect(email.html).not.toContain('href=');
    expect(email.text).toContain('Open it on the dashboard, under Briefing.');
  });

  it('puts each product against last week, and a weekly sparkline as table cells with its values as text', () => {
    const visitors = { metric: 'analytics.visitors' as const, label: 'Visitors', value: 1_400, previous: 910, change: 490 / 910, unit: 'count' as const, spark: [170, 180, 190, 200, 210, 220, 230] };
    const errors = { metric: 'errors.events' as const, label: 'Error events', value: 35, previous: null, change: null, unit: 'count' as const, spark: [5, 5, 0, 5, 5, 5, 15] };
    const mrr = { metric: 'revenue.mrr' as const, label: 'MRR', value: 10_400, previous: 9_800, change: 600 / 9_800, unit: 'money' as const, currency: 'USD' };
    const weekly = briefing({
      period: 'week',
      window: { since: '2026-11-19T00:00:00.000Z', until: '2026-11-26T07:00:00.000Z' },
      days: { current: ['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25'], previous: [], weekAgo: [] },
      projects: [{ ...empty('evil', hostile), trend: [mrr, visitors, errors] }],
      metricAlerts: [{ project: 'evil', title: `Visitors below 800: ${hostile}`, since: '2026-11-24T00:00:00.000Z', link: '/?notification=n2' }],
    });
    const email = briefingEmail(weekly, options);
    expect(email.subject).toBe('Weekly briefing to Thu 26 Nov: a quiet week');
    // Seven bars per sparkline, each a cell with its colour and height (no image to block, nothing to fetch).
    const bars = [...email.html.matchAll(/<td width="14" height="(\d+)" bgcolor="(#[0-9a-f]{6})"/g)].map((match) => Number(match[1]));
    expect(bars).toHaveLength(14);
    // Visitors from zero (170 of 230 is 24 px of 32); error events: the quiet day a 1 px baseline, the spike the full 32.
    expect(bars.slice(0, 7)).toEqual([24, 25, 26, 28, 29, 31, 32]);
    expect(bars.slice(7)).toEqual([11, 11, 1, 11, 11, 11, 32]);
    expect(email.html).not.toMatch(/<img|<svg/i);
    // The bars are hidden from screen readers; the values are said as text beside them.
    expect(email.html).toContain('aria-hidden="true"');
    expect(email.html).toContain('Visitors, Thu 19 Nov – Wed 25 Nov: Thu 19 Nov 170 · Fri 20 Nov 180 · Sat 21 Nov 190 · Sun 22 Nov 200 · Mon 23 Nov 210 · Tue 24 Nov 220 · Wed 25 Nov 230');
    // The change with its sign and arrow, not colour alone; no history is said as such, never 0 %.
    expect(email.html).toMatch(/<strong>Visitors<\/strong> 1,400 <span style="color:#1a7f37;font-weight:600">▲ \+54 %<\/span> <span style="color:#656d76">against 910 the week before<\/span>/);
    expect(email.html).toContain('<strong>Error events</strong> 35 <span style="color:#656d76">no history yet for the week before</span>');
    expect(email.text).toContain('Against the week before:\n  MRR $10,400 (+6 % against $9,800 the week before)\n  Visitors 1,400 (+54 % against 910 the week before)');
    expect(email.text).toContain('    Thu 19 Nov – Wed 25 Nov: Thu 19 Nov 170 · Fri 20 Nov 180 · Sat 21 Nov 190 · Sun 22 Nov 200 · Mon 23 Nov 210 · Tue 24 Nov 220 · Wed 25 Nov 230');
    expect(email.text).toContain('  Error events 35 (no history yet for the week before)');
    // The open metric alerts, escaped, linked to their threads.
    expect(email.html).toContain(`href="https://dash.example.com/?notification=n2" style="color:#0969da;text-decoration:underline">Visitors below 800: &lt;script&gt;`);
    expect(email.html).not.toContain('<script');
    expect(email.text).toContain(`METRIC ALERTS\n- ${hostile}: Visitors below 800: ${hostile} (since Tue 24 Nov) <https://dash.example.com/?notification=n2>`);
  });

  it('says the daily trend against the same day last week, without sparklines', () => {
    const email = briefingEmail(
      briefing({
        period: 'day',
        projects: [{ ...empty('formfox', 'Formfox'), trend: [{ metric: 'uptime.up_ratio', label: 'Uptime', value: 99.5, previous: 99.9, change: (99.5 - 99.9) / 99.9, unit: 'percent', spark: [1, 2, 3, 4, 5, 6, 7] }] }],
      }),
      options,
    );
    expect(email.text).toContain('Against the same day last week:\n  Uptime 99.5 % (−0.4 pts against 99.9 % the same day last week)');
    expect(email.html).toContain('<span style="color:#b42318;font-weight:600">▼ −0.4 pts</span>');
    expect(email.html).not.toContain('bgcolor=');
    expect(email.subject).toBe('Briefing for Thu 26 Nov: a quiet day');
  });
});
